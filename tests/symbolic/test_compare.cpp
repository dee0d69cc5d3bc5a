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

BOOST_AUTO_TEST_SUITE_END()
