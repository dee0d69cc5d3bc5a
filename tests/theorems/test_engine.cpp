// The InfoFlow engine against the predictions THEORY.md section 4 lists as checks of the
// formalization, over grids of architectures.
#include <set>
#include <string>
#include <tuple>

#include <boost/test/unit_test.hpp>

#include "infoflow/symbolic/canonical.hpp"
#include "infoflow/theorems/check.hpp"
#include "infoflow/theorems/engine.hpp"

namespace th = infoflow::theorems;
namespace tg = infoflow::targets;

namespace {

const th::Catalogue& catalogue() {
  static const th::Catalogue c = th::Catalogue::load_directory(INFOFLOW_CATALOGUE_DIR);
  return c;
}

th::Target target(const std::string& formula, tg::Bindings b = {},
                  const std::string& family = "retrieval", bool is_family = false) {
  return th::Target("t", tg::Formula::parse(formula), std::move(b), family, is_family);
}

th::Architecture arch(std::vector<long> heads, bool pe = false) {
  th::Architecture a;
  a.heads = std::move(heads);
  a.embedding = 16;
  a.token_dim = 4;
  a.head_dim = 4;
  a.positional = pe;
  return a;
}

std::string verdict(const th::Target& t, const th::Architecture& a) {
  th::Engine engine(catalogue());
  return th::to_text(engine.plan(t, a).verdict);
}

const char* kIntrinsic = "sum(i = 1..D) max(s, t) bilinear(A[i], x[s], x[t])";
const char* kRetrieval = "sum(i = 1..D) max(t) dot(a[i], x[t])";

}  // namespace

BOOST_AUTO_TEST_SUITE(engine)

BOOST_AUTO_TEST_CASE(depth_separation_for_the_minimum_pairwise_inner_product) {
  const th::Target t = target("min(s != t) dot(x[s], x[t])", {}, "min_pairwise_inner_product");
  for (long h = 1; h <= 8; ++h) BOOST_TEST(verdict(t, arch({h})) == "exponential in T");
  th::Engine engine(catalogue());
  const th::Plan two = engine.plan(t, arch({1, 1}));
  BOOST_TEST(th::to_text(two.verdict) == "efficient");
  BOOST_TEST(two.rate().print() == "eps^(-1)");
  // One layer: global aggregation, decoding T tokens of dimension 4 in E = 16: eps^(1 - T/4).
  BOOST_TEST(engine.plan(t, arch({1})).rate().print() == "eps^(1 - T/4)");
}

BOOST_AUTO_TEST_CASE(intrinsic_dimension_needs_D_heads_in_both_layers) {
  for (long d = 2; d <= 4; ++d) {
    const th::Target t = target(kIntrinsic, {{"D", d}});
    for (long h1 = 1; h1 <= d + 1; ++h1) {
      for (long h2 = 1; h2 <= d + 1; ++h2) {
        BOOST_TEST_INFO("D = " << d << ", heads (" << h1 << "," << h2 << ")");
        BOOST_TEST(verdict(t, arch({h1, h2})) ==
                   (h1 >= d && h2 >= d ? "efficient" : "exponential in T"));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(predecessor_retrieval_needs_L_times_h_at_least_D) {
  for (long d = 2; d <= 5; ++d) {
    const th::Target t = target(kRetrieval, {{"D", d}}, "d_retrieval");
    for (long layers = 1; layers <= 3; ++layers) {
      for (long h = 1; h <= 5; ++h) {
        BOOST_TEST_INFO("D = " << d << ", L = " << layers << ", h = " << h);
        BOOST_TEST(verdict(t, arch(std::vector<long>(static_cast<std::size_t>(layers), h))) ==
                   (layers * h >= d ? "efficient" : "exponential in T"));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(only_the_maximum_is_retrieved_efficiently) {
  th::Engine engine(catalogue());
  const th::Plan first = engine.plan(target("kth(1, t by dot(a, x[t])) dot(b, x[t])"), arch({1}));
  BOOST_TEST(th::to_text(first.verdict) == "efficient");
  for (long k = 2; k <= 4; ++k) {
    const th::Plan p =
        engine.plan(target("kth(k, t by dot(a, x[t])) dot(b, x[t])", {{"k", k}}), arch({2, 2}));
    BOOST_TEST(th::to_text(p.verdict) == "exponential in T");
    // Theorem 2 with n = 4: (T - k - 1)/5.
    BOOST_TEST(infoflow::symbolic::canonical(p.exponent) ==
               infoflow::symbolic::canonical(GiNaC::ex(
                   (infoflow::symbolic::SymbolRegistry::standard().seq_len() - k - 1) / 5)));
    BOOST_TEST(p.entries.size() >= 2u);
    BOOST_TEST((std::find(p.entries.begin(), p.entries.end(), "infoflow.thm2.kth_max") !=
                p.entries.end()));
  }
}

BOOST_AUTO_TEST_CASE(fixed_positions_cost_does_not_depend_on_T) {
  th::Engine engine(catalogue());
  const th::Target t = target("sqnorm(x[1] + x[2] + x[3])");
  const th::Plan p = engine.plan(t, arch({1}, true));
  BOOST_TEST(th::to_text(p.verdict) == "efficient");
  BOOST_TEST_REQUIRE(p.steps.size() == 1u);
  BOOST_TEST((p.steps[0].action == th::Action::kPositionAggregation));
  BOOST_TEST(p.sets.back().readout == "{1, 2, 3}");
  // A named range of positions is resolved: T0 = 5 positions, decoded at 5 d/E - 1 = 1/4: the
  // floor.
  const th::Plan named =
      engine.plan(target("sqnorm(sum(p = 1..T0) x[p])", {{"T0", 5}}), arch({1}, true));
  BOOST_TEST(th::to_text(named.verdict) == "efficient");
  BOOST_TEST(named.sets.back().readout == "{1, 2, 3, 4, 5}");
  // Without a positional encoding only global aggregation reaches fixed positions.
  BOOST_TEST(th::to_text(engine.plan(t, arch({1})).verdict) == "exponential in T");
}

BOOST_AUTO_TEST_CASE(triangle_centre_is_efficient_for_no_fixed_shape) {
  th::Engine engine(catalogue());
  const th::Target t = target("min(t1 < t2 < t3) sqnorm(x[t1] + x[t2] + x[t3])");
  const th::Search s = engine.search(t, arch({1}, true));
  BOOST_TEST(s.architectures == 8 + 64 + 512);
  BOOST_TEST(!s.smallest.has_value());
  BOOST_TEST(s.per_depth.empty());
  BOOST_TEST(th::to_text(engine.plan(t, arch({8, 8, 8}, true)).verdict) == "super-polynomial");
}

BOOST_AUTO_TEST_CASE(plan_reports_information_sets_and_steps) {
  th::Engine engine(catalogue());
  const th::Plan p = engine.plan(target(kIntrinsic, {{"D", 2}}), arch({2, 2}));
  BOOST_TEST_REQUIRE(p.sets.size() == 3u);
  BOOST_TEST(p.sets[1].token == "{t, s1*(t), s2*(t)}");
  BOOST_TEST(p.sets[1].token_size == 3);
  BOOST_TEST(p.sets[2].readout == "I(t1*,1) ∪ I(t2*,1)");
  BOOST_TEST(infoflow::symbolic::canonical(p.sets[2].readout_size) == "6");
  BOOST_TEST(p.steps.size() == 4u);
  BOOST_TEST(p.fallbacks.empty());
  // One head short: the comparison left over falls back to aggregation, and says why.
  const th::Plan short_one = engine.plan(target(kIntrinsic, {{"D", 2}}), arch({1, 2}));
  BOOST_TEST_REQUIRE(!short_one.fallbacks.empty());
  BOOST_TEST(short_one.fallbacks[0].find("no free head at the tokens") != std::string::npos);
  // Every slot is used once: no two steps share a (layer, token class, head).
  for (const th::Plan* q : {&p, &short_one}) {
    std::set<std::tuple<long, int, long>> slots;
    for (const th::PlanStep& s : q->steps) {
      BOOST_TEST(slots.insert({s.layer, static_cast<int>(s.where), s.head}).second);
      BOOST_TEST(s.head <= q->architecture.heads[static_cast<std::size_t>(s.layer - 1)]);
    }
  }
}

BOOST_AUTO_TEST_CASE(search_finds_the_smallest_efficient_architectures) {
  th::Engine engine(catalogue());
  const th::Search s = engine.search(target(kIntrinsic, {{"D", 3}}), arch({1}));
  BOOST_TEST_REQUIRE(s.per_depth.size() == 2u);  // none with one layer
  BOOST_TEST(s.per_depth[0].architecture.heads == (std::vector<long>{3, 3}));
  BOOST_TEST_REQUIRE(s.smallest.has_value());
  BOOST_TEST(s.smallest->architecture.widest() == 2);  // depth trades for heads: (1,2,2) or alike
  const th::Search m = engine.search(target("min(s != t) dot(x[s], x[t])"), arch({1}));
  BOOST_TEST(m.smallest->architecture.heads == (std::vector<long>{1, 1}));
}

BOOST_AUTO_TEST_CASE(derived_bounds_join_the_catalogue_and_the_check) {
  th::Catalogue c = catalogue();
  th::Engine engine(c);
  const th::Target t =
      target("min(s != t) dot(x[s], x[t])", {}, "min_pairwise_inner_product", true);
  const th::Plan plan = engine.plan(t, arch({1}));
  const th::Entry one = engine.derived_entry(t, plan);
  BOOST_TEST(one.id == "derived.t.L1.h1.E16");
  BOOST_TEST(th::to_text(one.provenance) == "derived");
  BOOST_TEST(one.task == "min_pairwise_inner_product");  // the target is that family
  BOOST_TEST(one.rate.print() == "eps^(1 - T/4)");
  engine.add_derived(c, t, plan);
  // A member of a family gets a family of its own inside it.
  const th::Target member = target("min(s != t) dot(x[s], x[t])", {}, "retrieval");
  BOOST_TEST(engine.derived_entry(member, plan).task == "target.t");
  const th::CheckReport r = th::check(c);
  bool involved = false;
  for (const th::Finding& f : r.findings) {
    for (const std::string& id : f.entries) involved = involved || id == one.id;
  }
  BOOST_TEST(involved);  // Theorem 1's one-layer lower bound meets the derived upper bound
}

BOOST_AUTO_TEST_CASE(bad_architectures_are_input_errors) {
  th::Engine engine(catalogue());
  const th::Target t = target("min(s != t) dot(x[s], x[t])");
  th::Architecture a = arch({0, 1});
  BOOST_CHECK_THROW((void)engine.plan(t, a), infoflow::InputError);
  a = arch({3});
  a.head_dim = 0;  // 3 does not divide 16
  BOOST_CHECK_THROW((void)engine.plan(t, a), infoflow::InputError);
  BOOST_CHECK_THROW((void)target(kIntrinsic), infoflow::InputError);  // D has no value
  BOOST_CHECK_THROW((void)engine.plan(target("max(t) dot(x[t], x[1])"), arch({1})),
                    infoflow::InputError);
}

BOOST_AUTO_TEST_SUITE_END()
