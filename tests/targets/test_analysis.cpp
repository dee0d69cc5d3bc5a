// The comparison tree of THEORY.md section 4 on the seed's targets, worked out by hand.
#include <boost/test/unit_test.hpp>

#include "infoflow/targets/analysis.hpp"

namespace tg = infoflow::targets;

namespace {
tg::Analysis of(const std::string& text) {
  return tg::analyze(tg::Formula::parse(text));
}
}  // namespace

BOOST_AUTO_TEST_SUITE(analysis)

BOOST_AUTO_TEST_CASE(intrinsic_dimension_is_D_comparisons_of_order_two) {
  const tg::Analysis a = of("sum(i = 1..D) max(s, t) bilinear(A[i], x[s], x[t])");
  BOOST_TEST(a.order == 2);
  BOOST_TEST(a.dimension_text() == "D");
  BOOST_TEST(a.number_text() == "D*T^2");
  BOOST_TEST(a.dimension_value({{"D", 5}}) == 5);
  BOOST_TEST_REQUIRE(a.comparisons.size() == 1u);
  BOOST_TEST(a.comparisons[0].multiplicity == std::vector<std::string>{"D"});
  BOOST_TEST(!a.comparisons[0].split);
}

BOOST_AUTO_TEST_CASE(triangle_centre_has_order_three) {
  const tg::Analysis a = of("min(t1 < t2 < t3) sqnorm(x[t1] + x[t2] + x[t3])");
  BOOST_TEST(a.order == 3);
  BOOST_TEST(a.dimension_text() == "1");
  BOOST_TEST(a.number_text() == "T^3");
}

BOOST_AUTO_TEST_CASE(min_pairwise_inner_product_has_order_two) {
  const tg::Analysis a = of("min(s != t) dot(x[s], x[t])");
  BOOST_TEST(a.order == 2);
  BOOST_TEST(a.number_text() == "T^2");
}

BOOST_AUTO_TEST_CASE(a_separable_body_splits_into_single_index_comparisons) {
  const tg::Analysis a = of("max(s, t) (dot(a, x[s]) - sqnorm(x[t]) + 1)");
  BOOST_TEST(a.order == 1);
  BOOST_TEST(a.comparisons[0].split);
  BOOST_TEST(a.dimension_text() == "2");
  BOOST_TEST(a.number_text() == "2*T");
  // Coupled through a product: no split.
  BOOST_TEST(of("max(s, t) (dot(a, x[s]) * sqnorm(x[t]))").order == 2);
}

BOOST_AUTO_TEST_CASE(nested_token_reductions_form_one_comparison) {
  const tg::Analysis a = of("max(s) min(t) dot(x[s], x[t])");
  BOOST_TEST_REQUIRE(a.comparisons.size() == 1u);
  BOOST_TEST(a.order == 2);
  // An inner reduction that does not involve s is a comparison of its own.
  const tg::Analysis b = of("max(s) dot(x[s], x[1]) + min(t) sqnorm(x[t])");
  BOOST_TEST(b.comparisons.size() == 2u);
  BOOST_TEST(b.order == 1);
  BOOST_TEST(b.fixed_positions == std::vector<long>{});
  BOOST_TEST(b.comparisons[0].positions == std::vector<long>{1});
}

BOOST_AUTO_TEST_CASE(retrieval_targets_and_fixed_positions) {
  const tg::Analysis d = of("sum(i = 1..D) max(t) dot(a[i], x[t])");
  BOOST_TEST(d.order == 1);
  BOOST_TEST(d.number_text() == "D*T");
  const tg::Analysis k = of("kth(2, t by dot(a, x[t])) dot(b, x[t])");
  BOOST_TEST((k.comparisons[0].mode == tg::CompareMode::kRanked));
  BOOST_TEST(k.comparisons[0].rank.value == 2);
  const tg::Analysis f = of("sqnorm(x[1] + x[2] + x[3])");
  BOOST_TEST(f.comparisons.empty());
  BOOST_TEST(f.order == 0);
  BOOST_TEST(f.number_text() == "0");
  BOOST_TEST(f.fixed_positions == (std::vector<long>{1, 2, 3}));
  BOOST_TEST(of("sqnorm(sum(p = 1..3) x[p])").fixed_positions == (std::vector<long>{1, 2, 3}));
  const tg::Analysis named = of("sqnorm(sum(p = 1..T0) x[p])");
  BOOST_TEST(named.comparisons.empty());
  BOOST_TEST_REQUIRE(named.fixed_ranges.size() == 1u);
  BOOST_TEST(named.fixed_ranges[0].second.name == "T0");
  BOOST_TEST(of("sum(t = 1..T) sqnorm(x[t])").comparisons.size() == 1u);  // all tokens: a sum over them
}

BOOST_AUTO_TEST_SUITE_END()
