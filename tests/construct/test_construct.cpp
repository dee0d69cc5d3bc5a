// Constructions (docs/constructions.md): plans compiled into weights and measured.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <toml++/toml.h>

#include "infoflow/construct/construction.hpp"
#include "infoflow/core/error.hpp"
#include "infoflow/numeric/checkpoint.hpp"
#include "infoflow/numeric/tasks.hpp"
#include "infoflow/numeric/train.hpp"
#include "infoflow/targets/evaluator.hpp"
#include "infoflow/theorems/engine.hpp"
#include "theorems/target_generator.hpp"

namespace cn = infoflow::construct;
namespace nm = infoflow::numeric;
namespace th = infoflow::theorems;
namespace tg = infoflow::targets;

namespace {

std::vector<long> heads_of(const std::string& text) {
  std::vector<long> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    out.push_back(std::stol(text.substr(start, comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

/// The most indices bound along one path of nested reductions: the target's exact value takes
/// up to T^k evaluations of the body per sequence.
long nested_indices(const tg::Node& n) {
  long inner = 0;
  for (const tg::Node& a : n.args) inner = std::max(inner, nested_indices(a));
  return inner + (n.kind == tg::Node::Kind::kReduce ? static_cast<long>(n.binders.size()) : 0);
}

struct Built {
  th::Plan plan;
  cn::Construction construction;
};

/// The plan of `formula` on `heads` (E, n as given, d = 4, T as given) and its construction.
Built build(const std::string& formula, const std::vector<long>& heads, long tokens = 8,
            tg::Bindings set = {}, long embedding = 16, long head_dim = 4,
            cn::ConstructOptions options = {}, bool positional = false) {
  static const th::Catalogue catalogue = th::Catalogue::load_directory(INFOFLOW_CATALOGUE_DIR);
  th::Engine engine(catalogue);
  tg::TargetSpec spec;
  spec.name = "t";
  spec.formula = tg::Formula::parse(formula);
  spec.set = set;
  spec.set["T"] = tokens;
  spec.token_dim = 4;
  spec.positional = positional;
  const th::Target target = th::to_target(spec);
  Built out{engine.plan(target, th::architecture_for(spec, embedding, head_dim, heads)), {}};
  out.construction = cn::construct(spec, out.plan, options);
  return out;
}

cn::ConstructOptions quick() {
  cn::ConstructOptions o;
  o.samples = 512;
  o.calibration = 256;
  return o;
}

/// `b` again at each head dimension its width failure names, until it is built or fails for
/// another reason, at twice the E while the stream is short and twice the FFN width while an
/// FFN is (up to 256 and 1,024: a mask by content's 64 features need 64 coordinates, and 384
/// units where the readout and the input tokens compute them both); whether a wider build
/// succeeded.
bool widen(Built& b, const std::string& formula, const std::vector<long>& heads,
           const tg::Bindings& set, bool positional) {
  long head_dim = 4;
  long embedding = 16;
  cn::ConstructOptions options = quick();
  while (!b.construction.built) {
    if (b.construction.status.shortfall == cn::Shortfall::kHeadWidth) {
      BOOST_TEST_REQUIRE(b.construction.head_dim_needed > head_dim, b.construction.failure);
      head_dim = b.construction.head_dim_needed;
    } else if (b.construction.status.shortfall == cn::Shortfall::kFfnWidth && options.ffn_width < 1024) {
      options.ffn_width *= 2;
    } else if (b.construction.status.shortfall == cn::Shortfall::kEmbedding && embedding < 256) {
      embedding *= 2;
    } else {
      break;
    }
    b = build(formula, heads, 8, set, embedding, head_dim, options, positional);
  }
  return b.construction.built;
}

/// Whether the construction masks s != t by content (no positions): its error is the mask's.
bool masked_by_content(const cn::Construction& c) {
  return std::any_of(c.steps.begin(), c.steps.end(), [](const std::string& s) {
    return s.find("by content") != std::string::npos;
  });
}

/// `formula` on `heads` at E = 96, n = 68 with the few and the many mask features of the two
/// options: both built, masked by content, and the many at most half the few's NMSE; the many's.
double finer_error(const std::string& formula, const std::vector<long>& heads,
                   const cn::ConstructOptions& few, const cn::ConstructOptions& many) {
  const Built coarse = build(formula, heads, 8, {}, 96, 68, few);
  const Built fine = build(formula, heads, 8, {}, 96, 68, many);
  BOOST_TEST_REQUIRE((fine.plan.verdict == th::Verdict::kEfficient));
  BOOST_TEST_REQUIRE(coarse.construction.built, coarse.construction.failure);
  BOOST_TEST_REQUIRE(fine.construction.built, fine.construction.failure);
  BOOST_TEST(masked_by_content(fine.construction));
  BOOST_TEST_MESSAGE("NMSE " << coarse.construction.nmse << " at " << few.mask_features
                             << " features, " << fine.construction.nmse << " at "
                             << many.mask_features);
  BOOST_TEST(fine.construction.nmse <= 0.5 * coarse.construction.nmse);
  return fine.construction.nmse;
}

/// An efficient plan's construction that failed says why, and the cause is a shortfall of E or
/// a rule the constructor lacks, never the engine's plan.
void check_refusal(const Built& b) {
  BOOST_TEST(!b.construction.failure.empty());
  const cn::Shortfall whose = b.construction.status.shortfall;
  BOOST_TEST((whose == cn::Shortfall::kEmbedding || whose == cn::Shortfall::kConstructor),
             cn::to_text(whose) << ": " << b.construction.failure);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(construct)

BOOST_AUTO_TEST_CASE(one_retrieval_is_exact_up_to_the_softmax) {
  const Built b = build("max(t) dot(a, x[t])", {1});
  BOOST_TEST_REQUIRE(b.construction.built, b.construction.failure);
  // One head, no FFN: the only error is softmax at beta = 1000 against the hard maximum.
  BOOST_TEST(b.construction.nmse < 1e-8);
  BOOST_TEST(b.construction.knots == 0);
  BOOST_TEST(b.construction.counts.theory() == b.construction.counts.encoder +
                                                  b.construction.counts.ffn +
                                                  b.construction.counts.readout);
}

BOOST_AUTO_TEST_CASE(a_selection_whose_value_is_a_message_reads_it_off_the_chosen_token) {
  // Issue 46, defect 6: the value at the token s the readout selects is m1(s), which s holds
  // after layer 1; the constructor evaluated it as a function of x alone (bad_function_call,
  // exit 3). It is now fetched from the chosen token's stream with the selection.
  const Built b =
      build("max(s by dot(a, x[s])) max(t) dot(x[s], x[t])", {1, 1}, 8, {}, 16, 0, quick());
  BOOST_TEST_REQUIRE(b.construction.built, b.construction.failure);
  BOOST_TEST(b.construction.nmse < 1e-2);
}

BOOST_AUTO_TEST_CASE(a_maximum_of_products_at_its_vertices_is_built_with_a_fitted_maximum) {
  // Issue 45, item 6: E1's vertex reading of max(s, t) y_s z_t on four heads. The FFN after
  // layer 1 computes the four vertex products (quadratics); the maximum of four is no one
  // level's function, so the readout MLP fits it, and the construction says so.
  const Built b =
      build("max(s, t) (dot(a, x[s]) * dot(b, x[t]))", {4}, 8, {}, 16, 4, quick());
  BOOST_TEST_REQUIRE(b.construction.built, b.construction.failure);
  BOOST_TEST(b.construction.fitted == 1);
  const auto steps_with = [&](const std::string& text) {
    return std::count_if(b.construction.steps.begin(), b.construction.steps.end(),
                         [&](const std::string& s) { return s.find(text) != std::string::npos; });
  };
  BOOST_TEST(steps_with("at the readout: computes #") == 4);
  BOOST_TEST(steps_with("so it is fitted, not written") == 1);
  BOOST_TEST(b.construction.nmse < 3e-3);  // 8.4e-4 measured at W = 256
  // A narrower readout MLP fits with fewer units, and errs more (2.4e-3 measured at W = 64).
  cn::ConstructOptions narrow = quick();
  narrow.ffn_width = 64;
  const Built n = build("max(s, t) (dot(a, x[s]) * dot(b, x[t]))", {4}, 8, {}, 16, 4, narrow);
  BOOST_TEST_REQUIRE(n.construction.built, n.construction.failure);
  BOOST_TEST(n.construction.nmse > b.construction.nmse);
  // A fit that leaves NMSE above 0.1 on its data is no construction: the maximum of eight
  // cubic vertex products at W = 64 (0.16 measured) is refused with that figure.
  cn::ConstructOptions tight = quick();
  tight.ffn_width = 64;
  const Built three = build("max(r, s, t) (dot(a, x[r]) * dot(b, x[s]) * dot(c, x[t]))", {6}, 8,
                            {}, 16, 4, tight);
  BOOST_TEST(!three.construction.built);
  BOOST_TEST(three.construction.failure.find("a least-squares fit by") != std::string::npos,
             three.construction.failure);
  BOOST_TEST(three.construction.failure.find("(above 0.1)") != std::string::npos,
             three.construction.failure);
  // Only a maximum or minimum of held values is fitted: another function that is not one level
  // is refused, as before, not fitted (a review found y / (0.01 + |z|) "built" at NMSE 1.25).
  const Built ratio =
      build("max(t) dot(a, x[t]) / (0.01 + abs(min(s) dot(b, x[s])))", {4}, 8, {}, 16, 4, quick());
  BOOST_TEST(!ratio.construction.built);
  BOOST_TEST(ratio.construction.fitted == 0);
  BOOST_TEST(ratio.construction.failure.find("not one FFN level's function") != std::string::npos,
             ratio.construction.failure);
  // A factor that varies with the sequence and not with t: a maximum of two products, which
  // one ReLU takes exactly (max(u, v) = v + relu(u - v)): nothing fitted.
  const Built free = build("max(t) (dot(a, x[t]) * sum(s) dot(b, x[s]))", {3}, 8, {}, 16, 4, quick());
  BOOST_TEST_REQUIRE(free.construction.built, free.construction.failure);
  BOOST_TEST(free.construction.fitted == 0);
  BOOST_TEST(free.construction.nmse < 1e-5);
}

BOOST_AUTO_TEST_CASE(a_selection_over_a_pair_fetches_the_first_token_s_value_at_each_token) {
  // Issue 45, item 6: max(s != t by dot(x[s], x[t])) dot(a, x[s] + x[t]) on (1,1). Each token t
  // fetches a . x at the token m1 chose for it; layer 2 reads a . x[m1(t)] + a . x[t] off the
  // token it chooses. With positions the mask s != t is one-hot (1.6e-2 measured); without,
  // by content (0.11 at 64 features, 0.035 at 256: the pair a maximum prefers is alike).
  const std::string pair = "max(s != t by dot(x[s], x[t])) dot(a, x[s] + x[t])";
  const Built positions = build(pair, {1, 1}, 8, {}, 48, 16, quick(), true);
  BOOST_TEST_REQUIRE(positions.construction.built, positions.construction.failure);
  BOOST_TEST(positions.construction.nmse < 0.05);
  const Built content = build(pair, {1, 1}, 8, {}, 112, 72, quick());
  BOOST_TEST_REQUIRE(content.construction.built, content.construction.failure);
  BOOST_TEST(content.construction.nmse < 0.25);
}

BOOST_AUTO_TEST_CASE(a_product_of_a_function_of_each_token_is_a_key_feature_against_a_query_one) {
  // phi(x_s) psi(x_t), phi nonlinear: no bilinear form, but one key dimension holding phi (the
  // encoder's feature) against a query holding psi; the holder's FFN multiplies psi by the
  // phi it fetched. Each order of the factors alike (the engine reads them alike since the
  // review).
  for (const char* f : {"max(s, t) (dot(a, x[s]) * dot(b, x[t]) * dot(c, x[s]))",
                        "max(s, t) (dot(b, x[t]) * dot(a, x[s]) * dot(c, x[s]))"}) {
    const Built b = build(f, {1, 1}, 8, {}, 16, 4, quick());
    BOOST_TEST_REQUIRE(b.construction.built, f << ": " << b.construction.failure);
    BOOST_TEST(b.construction.nmse < 1e-4, f);  // 7e-7 measured
  }
  // Both factors nonlinear: psi is the encoder's feature at the holder too (6.2e-6 measured);
  // relu's factors vanish on half the tokens, where no reference is read (6.7e-9).
  for (const char* f : {"max(s, t) (exp(dot(a, x[s])) * tanh(dot(b, x[t])))",
                        "max(s, t) (relu(dot(a, x[s])) * relu(dot(b, x[t])))"}) {
    const Built both = build(f, {1, 1}, 8, {}, 16, 4, quick());
    BOOST_TEST_REQUIRE(both.construction.built, f << ": " << both.construction.failure);
    BOOST_TEST(both.construction.nmse < 1e-3, f);
  }
}

BOOST_AUTO_TEST_CASE(the_same_seed_gives_the_same_network_and_number) {
  const Built a = build("max(t) exp(-dot(a, x[t]))", {1});
  const Built b = build("max(t) exp(-dot(a, x[t]))", {1});
  BOOST_TEST_REQUIRE(a.construction.built);
  BOOST_TEST(a.construction.parameters == b.construction.parameters);
  BOOST_TEST(a.construction.nmse == b.construction.nmse);
  cn::ConstructOptions other;
  other.seed = 2;
  BOOST_TEST(build("max(t) exp(-dot(a, x[t]))", {1}, 8, {}, 16, 4, other).construction.nmse !=
             a.construction.nmse);
}

BOOST_AUTO_TEST_CASE(a_wider_ffn_interpolates_more_finely) {
  // exp on a grid: the interpolation error falls with the knots (h^2 for a smooth function).
  cn::ConstructOptions narrow = quick();
  narrow.ffn_width = 16;
  cn::ConstructOptions wide = quick();
  wide.ffn_width = 256;
  const Built n = build("max(t) exp(-dot(a, x[t]))", {1}, 8, {}, 16, 4, narrow);
  const Built w = build("max(t) exp(-dot(a, x[t]))", {1}, 8, {}, 16, 4, wide);
  BOOST_TEST_REQUIRE(n.construction.built);
  BOOST_TEST_REQUIRE(w.construction.built);
  BOOST_TEST(w.construction.knots > n.construction.knots);
  BOOST_TEST(w.construction.nmse < n.construction.nmse / 10);
}

BOOST_AUTO_TEST_CASE(a_width_too_small_is_said_with_the_width_needed) {
  // A product of two means is two squares in the readout MLP: 4 units leave 2 knots each.
  cn::ConstructOptions tiny = quick();
  tiny.ffn_width = 4;
  const Built b = build("sum(t) dot(a, x[t]) * sum(t) dot(b, x[t])", {1}, 8, {}, 16, 4, tiny);
  BOOST_TEST(!b.construction.built);
  BOOST_TEST((b.construction.status.shortfall == cn::Shortfall::kFfnWidth));
  BOOST_TEST(b.construction.status.step == "the readout MLP");
  BOOST_TEST(cn::to_text(b.construction.status.shortfall) == "width");  // the word printed
  BOOST_TEST(b.construction.failure.find("--ffn-width >=") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_intrinsic_dimension_network_exists_on_d_d) {
  cn::ConstructOptions o = quick();
  o.ffn_width = 1024;
  const Built b = build("sum(i = 1..D) max(s, t) bilinear(A[i], x[s], x[t])", {2, 2}, 8,
                        {{"D", 2}}, 32, 8, o);
  BOOST_TEST_REQUIRE(b.construction.built, b.construction.failure);
  BOOST_TEST(b.construction.nmse <= 1e-3);
}

BOOST_AUTO_TEST_CASE(a_plan_forced_onto_one_head_fewer_names_the_step_without_room) {
  // The constructor counts the heads itself: the plan on (3), built on (2), has no head 3.
  static const th::Catalogue catalogue = th::Catalogue::load_directory(INFOFLOW_CATALOGUE_DIR);
  th::Engine engine(catalogue);
  tg::TargetSpec spec;
  spec.formula = tg::Formula::parse("sum(i = 1..3) max(t) dot(a[i], x[t])");
  spec.set["T"] = 8;
  const th::Target target = th::to_target(spec);
  th::Plan plan = engine.plan(target, th::architecture_for(spec, 16, 4, {3}));
  BOOST_TEST_REQUIRE(th::to_text(plan.verdict) == "efficient");
  plan.architecture.heads = {2};
  const cn::Construction c = cn::construct(spec, plan, quick());
  BOOST_TEST(!c.built);
  BOOST_TEST((c.status.shortfall == cn::Shortfall::kEngine));
  BOOST_TEST(c.status.step.find("layer 1, head 3 at the readout") == 0, c.status.step);
  BOOST_TEST(c.failure.find("layer 1, head 3 at the readout") != std::string::npos, c.failure);
  BOOST_TEST(c.failure.find("has 2 heads") != std::string::npos, c.failure);
}

BOOST_AUTO_TEST_CASE(a_head_too_narrow_for_a_query_key_product_is_found) {
  // x_s' x_t in one head needs d = 4 key dimensions, and no more: the candidate has no score of
  // its own, and the readout token is never a key (it once took a fifth to keep it out).
  const Built b = build("min(s, t) dot(x[s], x[t])", {1, 1}, 8, {}, 16, 3, quick());
  BOOST_TEST(!b.construction.built);
  BOOST_TEST(b.construction.failure.find("4 key") != std::string::npos, b.construction.failure);
  // The heads suffice: n is short.
  BOOST_TEST((b.construction.status.shortfall == cn::Shortfall::kHeadWidth));
  BOOST_TEST(b.construction.head_dim_needed == 4);
  const Built wide = build("min(s, t) dot(x[s], x[t])", {1, 1}, 8, {}, 16, 4, quick());
  BOOST_TEST(wide.construction.built, wide.construction.failure);
  BOOST_TEST(wide.construction.nmse <= 1e-3);
}

BOOST_AUTO_TEST_CASE(a_product_of_two_linear_forms_takes_one_key_dimension) {
  // dot(a, x_s) dot(b, x_t) is x_s' (a b') x_t, of rank 1: the query b . x_t against the key
  // a . x_s fits a head of n = 1 (so does (dot(a, x_s) + 1) dot(b, x_t): its other term is the
  // holder's alone). A score of the candidate's own, dot(c, x_s), takes a second key dimension.
  for (const std::string formula : {"max(s, t) (dot(a, x[s]) * dot(b, x[t]))",
                                    "max(s, t) ((dot(a, x[s]) + 1) * dot(b, x[t]))"}) {
    BOOST_TEST_CONTEXT(formula) {
      const Built one = build(formula, {1, 1}, 8, {}, 16, 1, quick());
      BOOST_TEST_REQUIRE(one.construction.built, one.construction.failure);
      BOOST_TEST(one.construction.nmse <= 1e-3);
    }
  }
  const std::string scored = "max(s, t) (dot(a, x[s]) * dot(b, x[t]) + dot(c, x[s]))";
  const Built narrow = build(scored, {1, 1}, 8, {}, 16, 1, quick());
  BOOST_TEST(!narrow.construction.built);
  BOOST_TEST(narrow.construction.failure.find("2 key") != std::string::npos, narrow.construction.failure);
  const Built two = build(scored, {1, 1}, 8, {}, 16, 2, quick());
  BOOST_TEST_REQUIRE(two.construction.built, two.construction.failure);
  BOOST_TEST(two.construction.nmse <= 1e-3);
}

BOOST_AUTO_TEST_CASE(a_readout_mean_shares_a_head_with_the_input_tokens_retrieval) {
  // The encoder computes relu(e . x[t]), so its mean is taken in layer 1 (it once waited for
  // layer 1's FFN and shared layer 2's head with the other mean), at the readout, on the head
  // that retrieves by x_s' x_t at the input tokens: 4 value dimensions there (the token fetched)
  // and 1 at the readout, n = 5. The readout's FFN interpolates the product of two 4-vectors: at
  // the default width 256 this target stops at 3.3e-3, at 1024 it reaches 1e-5
  // (docs/results.md, "Constructions").
  cn::ConstructOptions wide = quick();
  wide.ffn_width = 1024;
  const Built narrow = build("sum(t) max(s) dot(x[s], x[t]) + sum(t) relu(dot(e, x[t]))", {1, 1},
                             8, {}, 16, 4, wide);
  BOOST_TEST((narrow.construction.status.shortfall == cn::Shortfall::kHeadWidth));
  BOOST_TEST(narrow.construction.head_dim_needed == 5);
  const Built b = build("sum(t) max(s) dot(x[s], x[t]) + sum(t) relu(dot(e, x[t]))", {1, 1}, 8,
                        {}, 16, 5, wide);
  BOOST_TEST_REQUIRE(b.construction.built, b.construction.failure);
  BOOST_TEST(b.construction.nmse <= 1e-3);
}

BOOST_AUTO_TEST_CASE(a_mean_of_more_values_than_a_head_holds_is_spread_over_its_heads) {
  // Three averaged values, n = 2: the plan's step spans heads 1-2, the first takes two values,
  // the second the third (it once went on head 1 alone and failed: 3 value dimensions, n = 2).
  const char* squares =
      "(sum(t) dot(a, x[t]))^2 + (sum(t) dot(b, x[t]))^2 + (sum(t) dot(c, x[t]))^2";
  const Built b = build(squares, {2}, 8, {}, 16, 2, quick());
  BOOST_TEST_REQUIRE(b.construction.built, b.construction.failure);
  BOOST_TEST(b.construction.nmse <= 1e-3);
  // n = 1: one value a head, heads 1-3.
  const Built three = build(squares, {3}, 8, {}, 16, 1, quick());
  BOOST_TEST_REQUIRE(three.construction.built, three.construction.failure);
  BOOST_TEST(three.construction.nmse <= 1e-3);
}

BOOST_AUTO_TEST_CASE(layer_one_reads_a_token_wise_feature_the_encoder_computes) {
  // The score |x[t]|^2 is no linear form of x: the MLP encoder computes it (the quadratic's four
  // eigen-directions, squares each interpolated on its own grid) beside x, and one head retrieves
  // by it. W = 256 leaves (256 - 8 pass-through units - 1 constant) / 4 = 61 knots a square on a
  // range of about 2 * 3.7 * 1.1 = 8.1 (x ~ N(0, 1), 2,048 calibration tokens): h = 0.135, an
  // error below h^2 / 4 a square, h^2 = 0.018 on the score. The readout reads the fetched score:
  // at most twice that where a near-tie is broken the wrong way, 0.036, so MSE <= 1.3e-3 against
  // the variance of the largest of 8 chi-squares with 4 degrees of freedom, about 7: NMSE <= 2e-4.
  const Built b = build("max(t) sqnorm(x[t])", {1}, 8, {}, 16, 4, quick());
  BOOST_TEST_REQUIRE(b.construction.built, b.construction.failure);
  BOOST_TEST(nm::to_string(b.construction.config.encoder) == nm::to_string(nm::Encoder::kMlp));
  BOOST_TEST(b.construction.knots == 61);
  BOOST_TEST(b.construction.target_variance > 5);
  BOOST_TEST(b.construction.nmse <= 2e-4);
  BOOST_TEST(b.construction.counts.encoder > 0);
  // relu(a . x[t]) averaged: the encoder interpolates relu(|a| u) along a / |a| with
  // 256 - 8 - 3 (a constant, the affine part's pair) = 245 knots on a range of about
  // 2 * 3.7 * 1.1 = 8.1: h = 0.033. Only the segment holding the kink errs, by at most
  // |a| h / 4, and a token's u falls in it with probability about 0.4 h = 0.013: the sum over
  // T = 8 errs by E[e^2] <= 8 * 0.013 * (|a| h / 4)^2 + (8 * 0.013 * |a| h / 4)^2, about
  // 1.5e-5 |a|^2, against the variance 8 |a|^2 (1/2 - 1/(2 pi)) = 2.7 |a|^2: NMSE <= 1e-5.
  const Built mean = build("sum(t) relu(dot(a, x[t]))", {1}, 8, {}, 16, 4, quick());
  BOOST_TEST_REQUIRE(mean.construction.built, mean.construction.failure);
  BOOST_TEST(nm::to_string(mean.construction.config.encoder) == nm::to_string(nm::Encoder::kMlp));
  BOOST_TEST(mean.construction.nmse <= 1e-5);
  // A plan whose layer 1 reads only linear forms keeps the linear encoder (a special case).
  const Built linear = build("max(t) dot(a, x[t])", {1}, 8, {}, 16, 4, quick());
  BOOST_TEST_REQUIRE(linear.construction.built, linear.construction.failure);
  BOOST_TEST(nm::to_string(linear.construction.config.encoder) == nm::to_string(nm::Encoder::kLinear));
}

BOOST_AUTO_TEST_CASE(an_encoder_too_narrow_is_said_with_the_width_needed) {
  // 8 units pass x through and the four squares need 3 knots each: 20 at least.
  cn::ConstructOptions narrow = quick();
  narrow.encoder_width = 16;
  const Built b = build("max(t) sqnorm(x[t])", {1}, 8, {}, 16, 4, narrow);
  BOOST_TEST(!b.construction.built);
  BOOST_TEST((b.construction.status.shortfall == cn::Shortfall::kFfnWidth));
  BOOST_TEST(b.construction.status.step == "the encoder");
  BOOST_TEST(b.construction.failure.find("--encoder-width >= 21") != std::string::npos,
             b.construction.failure);
  narrow.encoder_width = 64;
  const Built fits = build("max(t) sqnorm(x[t])", {1}, 8, {}, 16, 4, narrow);
  BOOST_TEST_REQUIRE(fits.construction.built, fits.construction.failure);
  BOOST_TEST(fits.construction.config.encoder_hidden() == 64);
}

/// Issue 45 item 6: s != t needs no positions (THEORY.md section 4). The seed's depth-separation
/// target on (1,1) without positional encoding: each token excludes itself by content features
/// (hats of one projection, a key dimension each), so the head needs d = 4 key dimensions for
/// the product and m for the mask, and the error, where another token's projection falls near
/// the holder's, falls as m grows (0.06 at m = 16, 0.0096 at m = 64 on 1,024 sequences).
BOOST_AUTO_TEST_CASE(a_mask_without_positions_is_built_by_content_and_errs_less_with_more_features) {
  const std::string formula = "min(s != t) dot(x[s], x[t])";
  cn::ConstructOptions few = quick();
  few.mask_features = 16;
  cn::ConstructOptions many = quick();
  many.mask_features = 64;
  const Built narrow = build(formula, {1, 1}, 8, {}, 96, 4, many);
  BOOST_TEST((narrow.construction.status.shortfall == cn::Shortfall::kHeadWidth));
  BOOST_TEST(narrow.construction.head_dim_needed == 4 + 64);
  BOOST_TEST(finer_error(formula, {1, 1}, few, many) <= 0.02);
}

/// Issue 46 item 3: derive plans `kth(2, t) dot(a, x[t]) + max(t) dot(b, x[t])` on (1,1) with
/// g1 at the readout and the head's input-token side taken by max(t) dot(b, x[t]), so no input
/// token holds g1's score to flag itself. The readout masks g2 by content instead: hats of the
/// score it holds against the same hats of each candidate's. It was refused ("the chain's mask
/// needs this head at the input tokens too"); it is built where the hats have room, and errs
/// where the runner-up is near the largest, less with more hats (0.27, 0.052, 0.021 at 16, 64,
/// 128 on 1,024 sequences).
BOOST_AUTO_TEST_CASE(a_readout_chain_whose_input_side_is_taken_masks_by_content) {
  const std::string formula = "kth(2, t) dot(a, x[t]) + max(t) dot(b, x[t])";
  cn::ConstructOptions few = quick();
  few.mask_features = 16;
  few.ffn_width = 512;
  cn::ConstructOptions many = few;
  many.mask_features = 64;
  BOOST_TEST(finer_error(formula, {1, 1}, few, many) <= 0.1);
  // A third step would have to exclude g1's token too, which hats of g2's score do not: refused
  // with that reason (it once read "the chain's score reads the holder").
  const Built third = build("kth(3, t) dot(a, x[t]) + max(t) dot(b, x[t])", {1, 1, 1}, 8, {}, 96,
                            68, many);
  BOOST_TEST(!third.construction.built);
  BOOST_TEST(third.construction.failure.find("third step after a mask by content") !=
                 std::string::npos,
             third.construction.failure);
}

/// A selection every input token makes (a global one, placed at the tokens) and the readout
/// reads: the tokens fetch its value, and the readout's later retrieval brings it along, as it
/// brings the other global values (the bench's one refusal, "the selection ... is read at a
/// token the readout did not fetch itself"). Here the readout's chain is masked by content, so
/// the sizes are the content mask's.
BOOST_AUTO_TEST_CASE(a_selection_the_input_tokens_make_is_brought_to_the_readout) {
  cn::ConstructOptions options = quick();
  options.ffn_width = 1024;
  const Built b = build("-(kth(2, t) dot(b, x[t])) - max(t by dot(c, x[t])) dot(a, x[t])", {1, 1},
                        8, {}, 128, 68, options);
  BOOST_TEST_REQUIRE(b.construction.built, b.construction.failure);
  BOOST_TEST(std::any_of(b.construction.layout.begin(), b.construction.layout.end(),
                         [](const cn::StreamSlot& s) {
                           return s.holds.find("the selection's value (brought along)") !=
                                  std::string::npos;
                         }));
  BOOST_TEST(b.construction.nmse <= 0.1);  // the content mask's error, 0.021 on 1,024 sequences
}

/// A reduction the engine finds constant (E5) is a value the constructor reads, where neither
/// the parameters' draw nor T sets it: min(s, t) abs(dot(a, x[s]) - dot(a, x[t])) is 0 (the pair
/// s = t) at every T and for every a. sum(t) (1 + relu(-sqnorm(x[t]))) is T: constant on random sequences, but of no one
/// value, so it is recorded as none and refused (it was once built with T = 8's value at every
/// T: NMSE 35 at T = 4).
BOOST_AUTO_TEST_CASE(a_constant_reduction_is_read_where_its_value_is_one) {
  for (const long tokens : {4L, 16L}) {
    const Built zero =
        build("max(t) dot(a, x[t]) + min(s, t) abs(dot(a, x[s]) - dot(a, x[t]))", {1}, tokens);
    BOOST_TEST_REQUIRE(zero.construction.built, zero.construction.failure);
    BOOST_TEST(zero.construction.nmse < 1e-6);
    const Built count = build("max(t) dot(a, x[t]) + sum(t) (1 + relu(-sqnorm(x[t])))", {1}, tokens);
    BOOST_TEST(!count.construction.built);
    BOOST_TEST(count.construction.failure.find("records no value") != std::string::npos,
               count.construction.failure);
  }
}

/// A global k-th largest the input tokens compute (g2 at the tokens, read at the readout): each
/// token holds g1's score already, so the FFN flags those at or above it, exactly, with no
/// second head (refused before as "a k-th largest's step at the input tokens").
BOOST_AUTO_TEST_CASE(a_chain_at_the_input_tokens_is_masked_by_the_score_they_hold) {
  const Built b = build("min(t) dot(b, x[t]) + 2 * kth(2, t) dot(c, x[t])", {1, 1});
  BOOST_TEST_REQUIRE(b.construction.built, b.construction.failure);
  BOOST_TEST(!masked_by_content(b.construction));
  BOOST_TEST(b.construction.nmse < 1e-6);
}

/// Tokens read by position are read through the mean of their positions: a readout whose terms
/// read x[1] and x[2] apart but sum to a function of x[1] + x[2] is built, exactly; a product of
/// the two is not a function of their sum and is refused, naming the reason.
BOOST_AUTO_TEST_CASE(terms_read_by_position_are_read_through_their_sum) {
  const Built sum = build("max(t) dot(a, x[t]) - (dot(c, x[1]) + dot(c, x[2]))", {1, 1}, 8, {}, 16,
                          4, quick(), true);
  BOOST_TEST_REQUIRE(sum.construction.built, sum.construction.failure);
  BOOST_TEST(sum.construction.nmse < 1e-6);
  // Terms each a function of the sum stay jobs of their own (one ridge each): merged, they
  // would be two ridges in one job, which no one FFN level writes.
  const Built each = build("exp(dot(b, x[1]) + dot(b, x[2])) + tanh(dot(a, x[1]) + dot(a, x[2]))",
                           {1}, 8, {}, 16, 4, quick(), true);
  BOOST_TEST_REQUIRE(each.construction.built, each.construction.failure);
  BOOST_TEST(each.construction.nmse < 1e-5);
  const Built product = build("dot(a, x[1]) * dot(b, x[2])", {1, 1}, 8, {}, 16, 4, quick(), true);
  BOOST_TEST(!product.construction.built);
  BOOST_TEST(product.construction.failure.find("holds their sum only") != std::string::npos,
             product.construction.failure);
}

/// The engine's rows that one layer does since layer 1 may read token-wise features (the rows
/// whose reason names the token-wise encoder): built, or refused for the constructor's own
/// reasons; never for the engine's, which now reads the encoder's features before layer 1.
BOOST_AUTO_TEST_CASE(rows_that_read_an_encoder_feature_are_not_refused_for_the_engine) {
  const toml::table table = toml::parse_file(INFOFLOW_TEST_DATA_DIR "/engine_targets.toml");
  long rows = 0;
  long built = 0;
  for (const toml::node& node : *table["case"].as_array()) {
    const toml::table& row = *node.as_table();
    if (row["verdict"].value_or(std::string()) != "efficient") continue;
    if (row["why"].value_or(std::string()).find("the token-wise encoder") == std::string::npos) continue;
    const std::string formula = row["formula"].value_or(std::string());
    const std::string on = row["smallest"].value_or(std::string());
    tg::Bindings set;
    if (const toml::table* s = row["set"].as_table()) {
      for (const auto& [k, v] : *s) set[std::string(k.str())] = v.value_or(0L);
    }
    BOOST_TEST_CONTEXT(formula << " on (" << on << ")") {
      const Built b = build(formula, heads_of(on), 8, set, 16, 4, quick(), row["pe"].value_or(false));
      ++rows;
      if (b.construction.built) {
        ++built;
        BOOST_TEST(b.construction.nmse <= 3e-3);  // a near-tied smallest |y|: 1.6e-3 at beta 1,000
      } else {
        BOOST_TEST_MESSAGE("not built (" << cn::to_text(b.construction.status.shortfall)
                                          << "): " << b.construction.failure);
        BOOST_TEST((b.construction.status.shortfall != cn::Shortfall::kEngine), b.construction.failure);
      }
    }
  }
  BOOST_TEST_MESSAGE("built " << built << " of " << rows << " rows that read an encoder feature");
  BOOST_TEST(rows >= 20);
  BOOST_TEST(built >= 14);
}

/// Every row of tests/data/engine_targets.toml that is efficient on its architecture (E = 16,
/// d = 4, n = 4, T = 8): built, it reaches NMSE <= 1e-3 (a few 1e-2, below); not built, it says
/// why and whose rule is missing. Where only a head's width is short ("width"), the same heads
/// are built at the head dimension the failure names. The counts may only grow
/// (docs/constructions.md lists the others).
BOOST_AUTO_TEST_CASE(efficient_rows_of_the_engine_table_compile_or_say_why) {
  const toml::table table = toml::parse_file(INFOFLOW_TEST_DATA_DIR "/engine_targets.toml");
  long efficient = 0;
  long built = 0;
  long built_wider = 0;
  long above = 0;
  long by_content = 0;
  long fitted = 0;
  long not_measured = 0;
  for (const toml::node& node : *table["case"].as_array()) {
    const toml::table& row = *node.as_table();
    if (row["verdict"].value_or(std::string()) != "efficient") continue;
    const std::string formula = row["formula"].value_or(std::string());
    tg::Bindings set;
    if (const toml::table* s = row["set"].as_table()) {
      for (const auto& [k, v] : *s) set[std::string(k.str())] = v.value_or(0L);
    }
    if (set.count("T") != 0) continue;  // planned at its own T below; none of these is at 8
    BOOST_TEST_CONTEXT(formula << " on (" << row["on"].value_or(std::string()) << ")") {
      const std::vector<long> heads = heads_of(row["on"].value_or(std::string()));
      const bool positional = row["pe"].value_or(false);
      if (nested_indices(tg::Formula::parse(formula).root()) > 5) {
        // Its exact values take 8^k evaluations a sequence (8^7 = 2 million for the chain of
        // seven tokens), for the calibration as for the measurement: minutes, so the command
        // builds it (docs/constructions.md), not this test.
        ++efficient;
        ++not_measured;
        continue;
      }
      Built b;
      try {
        b = build(formula, heads, 8, set, 16, 4, quick(), positional);
      } catch (const infoflow::InputError&) {
        continue;  // no index tuple at T = 8 (t < s inside a sum over t): not a plan to build
      }
      ++efficient;
      if (b.construction.built) ++built;
      else if (widen(b, formula, heads, set, positional)) ++built_wider;
      if (b.construction.built && b.construction.fitted > 0) {
        // A maximum of vertex products fitted at the readout (issue 45): 8.4e-4 for two
        // factors; 0.05 for three, whose eight cubic products are fitted at once (0.014 at
        // W = 4,096).
        ++fitted;
        BOOST_TEST_MESSAGE("fitted: " << formula << ": NMSE " << b.construction.nmse);
        BOOST_TEST(b.construction.nmse <= 0.1);
      } else if (b.construction.built && masked_by_content(b.construction)) {
        // The mask's error (docs/constructions.md): 0.01 for a minimum of products, whose pair
        // is rarely alike; up to 0.2 for a maximum, whose pair is, at 64 features and T = 8.
        ++by_content;
        BOOST_TEST_MESSAGE("by content, at E = " << b.construction.config.embedding << " and n = "
                                                 << b.construction.config.head_dim << ": " << formula
                                                 << ": NMSE " << b.construction.nmse);
        BOOST_TEST(b.construction.nmse <= 0.25);
      } else if (b.construction.built && b.construction.config.embedding > 16) {
        // Built at a larger E only. Where the FFN is left fewer than 16 knots a function, its
        // interpolation is the error: sum(i = 1..D) max(s, t) bilinear(...) on (3,3) at E = 32
        // has 9 knots a product at W = 256 (0.04; 5.7e-5 at W = 1,024, `infoflow construct ...
        // --E 32 --head-dim 4 --ffn-width 1024`).
        BOOST_TEST_MESSAGE("at E = " << b.construction.config.embedding << ": " << formula
                                     << ": NMSE " << b.construction.nmse << ", "
                                     << b.construction.knots << " knots");
        BOOST_TEST(b.construction.nmse <= (b.construction.knots < 16 ? 0.1 : 1e-2));
      } else if (b.construction.built) {
        // At the table's W = 256 and beta = 1,000 a few stop between 1e-3 and 6e-3: their FFN
        // interpolates a product of two 4-vectors (or a selection's near-ties average tokens);
        // docs/constructions.md gives their figures.
        BOOST_TEST(b.construction.nmse <= 1e-2);
        if (b.construction.nmse > 1e-3) ++above;
      } else {
        BOOST_TEST_MESSAGE("refused (" << cn::to_text(b.construction.status.shortfall) << "): " << formula << ": "
                                       << b.construction.failure);
        check_refusal(b);
      }
    }
  }
  BOOST_TEST_MESSAGE("constructed " << built << " of " << efficient
                                    << " efficient rows at n = 4 and E = 16, and " << built_wider
                                    << " more at the n and E their steps need (" << by_content
                                    << " with a mask by content, " << fitted
                                    << " with a fitted maximum; " << above
                                    << " of the others above NMSE 1e-3; " << not_measured
                                    << " left to the command, too costly to measure here)");
  BOOST_TEST(efficient >= 90);
  // 64 while the readout token was a key (it took a key dimension); 71 before layer 1 read the
  // encoder's token-wise features; 80 before the planner oracle's R1 (max |L| on one head); 84
  // before a constant reduction's value was recorded (min(s, t) abs(...) is 0), 85 before a sum
  // over tokens recorded T times its terms that read no token (sum(s) (... + max(t) ...)).
  // 86 before E1's vertex values were recorded and their maximum fitted at the readout.
  BOOST_TEST(built >= 91);
  // 89 before masks without positions were built by content (issue 45), and E widened; 102
  // before the vertex values and a selection over a pair's value (issue 45, item 6).
  BOOST_TEST(built + built_wider >= 109);
  BOOST_TEST(by_content >= 10);
  BOOST_TEST(fitted >= 5);
  // The sixth, min(t by abs(dot(a, x[t]))) dot(b, x[t]) (1.6e-3), is the softmax's: the smallest
  // |y| of 8 is often near-tied, and at beta = 10,000 it reaches 3.4e-6.
  BOOST_TEST(above <= 6);
}

/// A fixed sample of the engine tests' generated targets (seed 46), each on the first of a few
/// architectures that derive calls efficient: built, or refused with a reason that is not the
/// engine's (issue 46); a shortfall of head dimension is built again at the n it names.
BOOST_AUTO_TEST_CASE(generated_targets_derive_calls_efficient_compile_or_say_why) {
  namespace gen = infoflow::test_targets;
  gen::Generator generator(46);
  const std::vector<std::vector<long>> architectures{{1}, {2}, {1, 1}, {2, 2}, {3, 3}};
  long efficient = 0;
  long built = 0;
  long built_wider = 0;
  for (int i = 0; i < 40; ++i) {
    const gen::Target target = generator.target();
    const std::string formula = gen::text_of(target);
    const bool positional = gen::reads_positions(target);
    BOOST_TEST_CONTEXT(formula) {
      for (const std::vector<long>& heads : architectures) {
        Built b;
        try {
          b = build(formula, heads, 8, {}, 16, 4, quick(), positional);
        } catch (const infoflow::InputError&) {
          break;  // outside the framework, or no index tuple at T = 8: nothing to build
        }
        if (b.plan.verdict != th::Verdict::kEfficient) continue;
        ++efficient;
        if (b.construction.built) ++built;
        else if (widen(b, formula, heads, {}, positional)) ++built_wider;
        if (!b.construction.built) {
          BOOST_TEST_MESSAGE("not built (" << cn::to_text(b.construction.status.shortfall) << "): " << formula
                                           << ": " << b.construction.failure);
          check_refusal(b);
        } else {
          // A mask by content errs where another token's projection is near the holder's
          // (-0.5 sum(t) sqnorm(x[t]) + max(s != t) dot(x[s], x[t]): 0.18 at 64 features).
          BOOST_TEST(b.construction.nmse <= (masked_by_content(b.construction) ? 0.25 : 1e-2),
                     b.construction.nmse);
        }
        break;
      }
    }
  }
  BOOST_TEST_MESSAGE("generated targets: " << efficient << " efficient on one of (1), (2), (1,1), "
                                           << "(2,2), (3,3); " << built << " built at n = 4, "
                                           << built_wider << " more at the n their steps need");
  BOOST_TEST(efficient >= 25);
  // 17 of 29 before masks were built by content, chains at the input tokens masked by the
  // score they hold and positioned terms read through their sum (2026-12-07); all 29 after.
  BOOST_TEST(built + built_wider >= 29);
}

/// Where no function is interpolated (knots 0: retrievals and linear readouts), the only error
/// is the softmax's, and an efficient plan's construction is as good at T = 32 as at T = 8.
BOOST_AUTO_TEST_CASE(constructions_without_interpolation_do_not_degrade_with_t) {
  for (const std::string formula :
       {"max(t) dot(a, x[t])", "max(s, t) (dot(a, x[s]) + dot(b, x[t]))",
        "max(t) dot(a, x[t]) - min(t) dot(a, x[t])", "sum(i = 1..3) max(t) dot(a[i], x[t])",
        "max(s) min(t) (dot(a, x[s]) + dot(b, x[t]))"}) {
    BOOST_TEST_CONTEXT(formula) {
      const std::vector<long> heads{3};
      const Built short_ = build(formula, heads, 8, {}, 16, 4, quick());
      const Built long_ = build(formula, heads, 32, {}, 16, 4, quick());
      BOOST_TEST_REQUIRE(short_.construction.built, short_.construction.failure);
      BOOST_TEST_REQUIRE(long_.construction.built, long_.construction.failure);
      BOOST_TEST(short_.construction.knots == 0);
      BOOST_TEST(long_.construction.nmse <= 3 * short_.construction.nmse);
    }
  }
}

/// `construct --checkpoint` writes what `train --checkpoint` starts from: the construction's
/// accuracy at the first evaluation (float32, a learning rate too small to move it), and a
/// model of another shape refused.
BOOST_AUTO_TEST_CASE(training_starts_from_a_written_construction) {
  const Built b = build("max(t) dot(a, x[t])", {1});
  BOOST_TEST_REQUIRE(b.construction.built);
  BOOST_TEST_REQUIRE(b.construction.nmse < 1e-8);
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() /
      ("infoflow-construction-" + std::to_string(::getpid()) + ".ckpt");
  nm::save_checkpoint(file, nm::starting_checkpoint(b.construction.config, b.construction.parameters));
  const auto task = nm::make_formula_task(
      "t", tg::Evaluator(tg::Formula::parse("max(t) dot(a, x[t])"), {{"T", 8}}, 4, 1));
  nm::TrainOptions o;
  o.steps = 10;
  o.batch = 32;
  o.validation_size = 512;
  o.adam.learning_rate = 1e-9;
  o.checkpoint = file;
  const nm::TrainResult r = nm::train(b.construction.config, *task, o);
  BOOST_TEST(r.best_validation_nmse < 1e-5);  // from scratch it starts near 1
  nm::ModelConfig other = b.construction.config;
  other.ffn_width += 1;
  nm::save_checkpoint(file, nm::starting_checkpoint(b.construction.config, b.construction.parameters));
  BOOST_CHECK_THROW(nm::train(other, *task, o), infoflow::InputError);
  std::filesystem::remove(file);
}

/// The debug listing (`infoflow construct --format json`, "passes") is the registry's: each
/// pass once, in the order the lowering runs them, the attention and the FFN once per layer.
BOOST_AUTO_TEST_CASE(the_lowering_lists_each_pass_once_in_order) {
  const std::vector<std::string> expected{"set up",    "analyse", "stream layout", "encoder",
                                          "attention", "FFN",     "readout",       "measure"};
  std::vector<std::string> listed;
  std::vector<std::string> per_layer;
  for (const cn::LoweringPass& p : cn::lowering_passes()) {
    listed.push_back(p.name);
    if (p.per_layer) per_layer.push_back(p.name);
    BOOST_TEST(!p.does.empty(), p.name);
  }
  BOOST_TEST(listed == expected, boost::test_tools::per_element());
  BOOST_TEST(per_layer == (std::vector<std::string>{"attention", "FFN"}),
             boost::test_tools::per_element());
}

/// A failure's typed cause prints the words the JSON has always had ("width" for either width).
BOOST_AUTO_TEST_CASE(each_shortfall_prints_its_word) {
  BOOST_TEST(cn::to_text(cn::Shortfall::kNone) == "");
  BOOST_TEST(cn::to_text(cn::Shortfall::kPlan) == "plan");
  BOOST_TEST(cn::to_text(cn::Shortfall::kEngine) == "engine");
  BOOST_TEST(cn::to_text(cn::Shortfall::kConstructor) == "constructor");
  BOOST_TEST(cn::to_text(cn::Shortfall::kHeadWidth) == "width");
  BOOST_TEST(cn::to_text(cn::Shortfall::kFfnWidth) == "width");
  BOOST_TEST(cn::to_text(cn::Shortfall::kEmbedding) == "embedding");
  // A plan the engine does not call efficient is refused by the first pass, which names itself.
  const Built b = build("max(s, t) dot(x[s], x[t])", {1});
  BOOST_TEST_REQUIRE(!b.construction.built);
  BOOST_TEST((b.construction.status.shortfall == cn::Shortfall::kPlan), b.construction.failure);
  BOOST_TEST(b.construction.status.step == "set up");
  BOOST_TEST(cn::to_text(b.construction.status.shortfall) == "plan");
}

BOOST_AUTO_TEST_SUITE_END()
