#include <boost/test/unit_test.hpp>

#include "common/symbols.hpp"
#include "infoflow/symbolic/compare.hpp"

using namespace infoflow::symbolic;
using infoflow::testing::ex_of;
using infoflow::testing::same;

BOOST_AUTO_TEST_SUITE(compare)

BOOST_AUTO_TEST_CASE(eps_regime_lexicographic) {
  SignOracle oracle;
  const Rate a = Rate::parse("eps^(-2)");
  const Rate b = Rate::parse("eps^(-1)*log(1/eps)^5");
  BOOST_TEST(compare_as_eps_to_zero(a, b, Domain{}, oracle).growth == Growth::kFaster);
  BOOST_TEST(compare_as_eps_to_zero(b, a, Domain{}, oracle).growth == Growth::kSlower);
  const Rate c = Rate::parse("eps^(-1)*log(1/eps)^2");
  const RateComparison by_log = compare_as_eps_to_zero(b, c, Domain{}, oracle);
  BOOST_TEST(by_log.growth == Growth::kFaster);
  BOOST_TEST(by_log.decided_by == "log exponent");
  BOOST_TEST(compare_as_eps_to_zero(c, c, Domain{}, oracle).growth == Growth::kSame);
}

BOOST_AUTO_TEST_CASE(predecessor_separation_threshold) {
  // Entry 5 (h = s < D) against entry 4 (O(eps^-gamma)): k > gamma iff
  // T > 4 (D + gamma((n+1)s + 1) + (n+1)s + s), as solved by hand (symbolic-anchors.md 5.3).
  SignOracle oracle;
  Domain d;
  d.require(parse_relations("s < D").front());
  const Rate lower = Rate::parse("eps^(-((T/4 - s - D + 1)/((n+1)*s + 1) - 1))");
  const Rate upper = Rate::parse("eps^(-gamma)");
  const RateComparison c = compare_as_eps_to_zero(lower, upper, d, oracle);
  BOOST_TEST(c.growth == Growth::kDepends);
  BOOST_TEST_REQUIRE(c.faster_when.threshold_T.has_value());
  BOOST_TEST(c.faster_when.above);
  BOOST_TEST(same(*c.faster_when.threshold_T,
                  ex_of("4*(D + gamma*((n+1)*s + 1) + (n+1)*s + s)")));
  BOOST_TEST_REQUIRE(c.gap_sign.positive_at.has_value());
  BOOST_TEST_REQUIRE(c.gap_sign.negative_at.has_value());
}

BOOST_AUTO_TEST_CASE(global_aggregation_against_theorem_three) {
  // eps^(1 - T d/E) against eps^(-T/E): the exponent gap is (T d - T - E)/E.
  SignOracle oracle;
  const Rate thm3 = Rate::parse("eps^(1 - T*d/E)");
  const Rate global = Rate::parse("eps^(-T/E)");
  const RateComparison c = compare_as_eps_to_zero(thm3, global, Domain{}, oracle);
  BOOST_TEST(c.growth == Growth::kDepends);
  BOOST_TEST(same(c.gap, ex_of("(T*d - T - E)/E")));
  BOOST_TEST(c.faster_when.text == "T*d > T + E");
}

BOOST_AUTO_TEST_CASE(T_regime) {
  SignOracle oracle;
  const Rate linear = Rate::parse("eps^(-(c*T - c0))");
  const Rate flat = Rate::parse("eps^(-1)");
  const RateComparison c = compare_as_T_to_infinity(linear, flat, Domain{}, oracle);
  BOOST_TEST(c.growth == Growth::kFaster);
  BOOST_TEST(same(c.gap, ex_of("c")));
  // Same eps exponent, but one has an exp(T) factor.
  const RateComparison e =
      compare_as_T_to_infinity(Rate::parse("exp(T)*eps^(-1)"), flat, Domain{}, oracle);
  BOOST_TEST(e.growth == Growth::kFaster);
  BOOST_TEST(e.decided_by == "rate of exp(g*T)");
  // T/(n+1) against T/(n+2): both linear, slope gap 1/((n+1)(n+2)) > 0.
  BOOST_TEST(compare_as_T_to_infinity(Rate::parse("eps^(-T/(n+1))"), Rate::parse("eps^(-T/(n+2))"),
                                      Domain{}, oracle)
                 .growth == Growth::kFaster);
  // A bounded exponent gap: same growth in T.
  BOOST_TEST(compare_as_T_to_infinity(Rate::parse("eps^(-T)"), Rate::parse("eps^(-T-1)"), Domain{},
                                      oracle)
                 .growth == Growth::kSame);
}

BOOST_AUTO_TEST_CASE(where_the_eps_exponents_tie_the_log_power_decides) {
  // eps^(1-k) log(1/eps) against eps^(-1), k >= 2: faster for k > 2 by the eps exponent, and at
  // k = 2 by the log factor (log(1/eps)/eps against 1/eps): faster everywhere.
  SignOracle oracle;
  Domain d;
  d.require(parse_relations("k >= 2").front());
  const Rate with_log = Rate::parse("eps^(1-k)*log(1/eps)");
  const Rate plain = Rate::parse("eps^(-1)");
  const RateComparison up = compare_as_eps_to_zero(with_log, plain, d, oracle);
  BOOST_TEST(up.growth == Growth::kFaster);
  BOOST_TEST(up.log_decides_ties);
  BOOST_TEST(compare_as_eps_to_zero(plain, with_log, d, oracle).growth == Growth::kSlower);
  // The log on the other side: faster for k > 2 only, slower at k = 2, with a point each.
  const RateComparison mixed =
      compare_as_eps_to_zero(Rate::parse("eps^(1-k)"), Rate::parse("eps^(-1)*log(1/eps)"), d, oracle);
  BOOST_TEST(mixed.growth == Growth::kDepends);
  BOOST_TEST(mixed.faster_when.text == "k > 2");
  BOOST_TEST_REQUIRE(mixed.gap_sign.negative_at.has_value());
  BOOST_TEST(same(mixed.gap_sign.negative_at->evaluate(ex_of("k")), ex_of("2")));
  BOOST_TEST(!mixed.gap_sign.zero_at.has_value());
  // eps^(k-3) log(1/eps) against eps^(-1), k >= 1: faster where k <= 2 (not only k < 2).
  Domain from_one;
  from_one.require(parse_relations("k >= 1").front());
  const RateComparison below = compare_as_eps_to_zero(Rate::parse("eps^(k-3)*log(1/eps)"), plain,
                                                      from_one, oracle);
  BOOST_TEST(below.growth == Growth::kDepends);
  BOOST_TEST(below.faster_when.text == "2 >= k");
  // A log power that itself vanishes at the tie: equal there.
  const RateComparison equal = compare_as_eps_to_zero(Rate::parse("eps^(k-3)*log(1/eps)^(k-2)"),
                                                      plain, from_one, oracle);
  BOOST_TEST_REQUIRE(equal.gap_sign.zero_at.has_value());
  BOOST_TEST(same(equal.gap_sign.zero_at->evaluate(ex_of("k")), ex_of("2")));
  BOOST_TEST(equal.faster_when.text == "2 > k");
}

BOOST_AUTO_TEST_SUITE_END()
