#include <boost/test/unit_test.hpp>

#include "common/symbols.hpp"
#include "infoflow/symbolic/sign.hpp"

using namespace infoflow::symbolic;
using infoflow::testing::ex_of;
using infoflow::testing::sym;

namespace {

Domain domain_of(std::initializer_list<const char*> relations) {
  Domain d;
  for (const char* text : relations) {
    for (const Relation& r : parse_relations(text)) d.require(r, text);
  }
  return d;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sign)

BOOST_AUTO_TEST_CASE(structural_after_normal_form) {
  SignOracle oracle;
  // T/(n+1) - T/(n+2) = T/((n+1)(n+2)): GiNaC sees it only after normal().
  const SignDecision d = oracle.sign(ex_of("T/(n+1) - T/(n+2)"), Domain{});
  BOOST_TEST(d.sign == Sign::kPositive);
  BOOST_TEST(d.method == "structural");
  BOOST_TEST(oracle.sign(ex_of("T - T"), Domain{}).sign == Sign::kZero);
}

BOOST_AUTO_TEST_CASE(uses_hypotheses_through_z3) {
  SignOracle oracle;
  // T - k - 1 > 0 needs T >= k + 2; with k >= 2 alone it takes both signs.
  const SignDecision proved = oracle.sign(ex_of("T - k - 1"), domain_of({"T >= k + 2"}));
  BOOST_TEST(proved.sign == Sign::kPositive);
  BOOST_TEST(proved.method == "z3");
  const SignDecision both = oracle.sign(ex_of("T - k - 1"), domain_of({"k >= 2"}));
  BOOST_TEST(both.sign == Sign::kIndefinite);
  BOOST_TEST_REQUIRE(both.positive_at.has_value());
  BOOST_TEST_REQUIRE(both.negative_at.has_value());
  // The witnesses are real points: check them exactly.
  BOOST_TEST(GiNaC::ex_to<GiNaC::numeric>(both.positive_at->evaluate(ex_of("T - k - 1"))).is_positive());
  BOOST_TEST(GiNaC::ex_to<GiNaC::numeric>(both.negative_at->evaluate(ex_of("T - k - 1"))).is_negative());
  BOOST_TEST(GiNaC::ex_to<GiNaC::numeric>(both.negative_at->evaluate(sym("k"))) >= 2);
}

BOOST_AUTO_TEST_CASE(integrality_matters) {
  SignOracle oracle;
  // 2T - 3 for integer T >= 1 is never zero; over the reals it would be at T = 3/2.
  const SignDecision d = oracle.sign(ex_of("2*T - 3"), Domain{});
  BOOST_TEST(d.sign == Sign::kNonZero);
  // T0*d - E with T0*d <= E: nonpositive, zero included.
  BOOST_TEST(oracle.sign(ex_of("T0*d - E"), domain_of({"T0*d <= E"})).sign == Sign::kNonPositive);
}

BOOST_AUTO_TEST_CASE(empty_domain_and_satisfiability) {
  SignOracle oracle;
  const Domain contradictory = domain_of({"k >= 2", "k < 2"});
  BOOST_TEST(oracle.satisfiable(contradictory).status == Satisfiability::kUnsatisfiable);
  BOOST_TEST(oracle.sign(ex_of("T - k"), contradictory).sign == Sign::kEmptyDomain);
  const SatResult sat = oracle.satisfiable(domain_of({"s < D", "h == s"}));
  BOOST_TEST(sat.status == Satisfiability::kSatisfiable);
  BOOST_TEST(sat.witness.has_value());
}

BOOST_AUTO_TEST_CASE(registry_bounds_apply) {
  SignOracle oracle;
  // eps < 1 is part of eps's domain: 1 - eps is positive without any hypothesis.
  BOOST_TEST(oracle.sign(ex_of("1 - eps"), Domain{}).sign == Sign::kPositive);
  // T >= 1: T - 1 is nonnegative.
  BOOST_TEST(oracle.sign(ex_of("T - 1"), Domain{}).sign == Sign::kNonNegative);
}

BOOST_AUTO_TEST_CASE(non_polynomial_is_unknown_not_guessed) {
  SignOracle oracle;
  BOOST_TEST(oracle.sign(ex_of("log(T) - 1"), Domain{}).sign == Sign::kUnknown);
}

BOOST_AUTO_TEST_CASE(a_setting_prints_without_the_bounds_a_tighter_one_implies) {
  Domain d;
  d.require(ex_of("k - 3"), RelOp::kGreaterEqual);
  d.require(ex_of("k - 2"), RelOp::kGreaterEqual);
  d.require(ex_of("T - k - 1"), RelOp::kGreater);  // two symbols: kept as written
  d.require(ex_of("2*n - 8"), RelOp::kLess);        // n < 4
  d.require(ex_of("n - 5"), RelOp::kLessEqual);     // implied by n < 4
  d.require(ex_of("k - 3"), RelOp::kGreaterEqual);  // a repeat
  BOOST_TEST(d.to_text() == "k >= 3, T > k + 1, 2*n < 8");
  // Equal values: the strict one says more.
  Domain e;
  e.require(ex_of("k - 2"), RelOp::kGreaterEqual);
  e.require(ex_of("k - 2"), RelOp::kGreater);
  BOOST_TEST(e.to_text() == "k > 2");
}

BOOST_AUTO_TEST_SUITE_END()
