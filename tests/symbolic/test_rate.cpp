#include <boost/test/unit_test.hpp>

#include "common/symbols.hpp"
#include "infoflow/symbolic/rate.hpp"

using namespace infoflow;
using namespace infoflow::symbolic;
using infoflow::testing::ex_of;
using infoflow::testing::same;
using infoflow::testing::sym;

BOOST_AUTO_TEST_SUITE(rate)

BOOST_AUTO_TEST_CASE(theorem_two_normal_form) {
  const Rate r = Rate::parse("eps^(-(T-k-1)/(n+1))");
  BOOST_TEST(same(r.eps_exponent(), ex_of("(T-k-1)/(n+1)")));
  BOOST_TEST(r.log_exponent().is_zero());
  BOOST_TEST(r.print() == "eps^(-(T - k - 1)/(n + 1))");
  BOOST_TEST(r.print(Landau::kOmega, Format::kLatex) ==
             "\\Omega\\left(\\varepsilon^{-\\frac{T - k - 1}{n + 1}}\\right)");
}

BOOST_AUTO_TEST_CASE(exponents_of_a_product_add_up) {
  // eps^(T+1) * eps^(-2T) = eps^(1-T): GiNaC keeps the factors apart, the normal form sums them.
  const Rate r = Rate::parse("eps^(T+1) * eps^(-2*T) * 3");
  BOOST_TEST(same(r.eps_exponent(), ex_of("T - 1")));
  BOOST_TEST(same(r.coefficient(), 3));
  BOOST_TEST(Rate::parse("eps^(1 - T0*d/E)").print() == "eps^(1 - T0*d/E)");
}

BOOST_AUTO_TEST_CASE(logs_and_growth_in_T) {
  const Rate r = Rate::parse("T^2 * 2^T * eps^(-1) * log(1/eps)^3");
  BOOST_TEST(same(r.eps_exponent(), 1));
  BOOST_TEST(same(r.log_exponent(), 3));
  BOOST_TEST(same(r.power_of_T(), 2));
  BOOST_TEST(same(r.exp_rate_in_T(), GiNaC::log(GiNaC::ex(2))));
  const Rate poly = Rate::parse("(T + 1)^2 * eps^(-1)");
  BOOST_TEST(same(poly.power_of_T(), 2));
  // log(eps^(-2)) = 2 log(1/eps)
  const Rate twice = Rate::parse("log(eps^(-2))");
  BOOST_TEST(same(twice.log_exponent(), 1));
  BOOST_TEST(same(twice.coefficient(), 2));
}

BOOST_AUTO_TEST_CASE(rejects_what_is_not_a_rate) {
  BOOST_CHECK_THROW(Rate::parse("eps^(-1) + eps^(-2)"), InputError);
  BOOST_CHECK_THROW(Rate::parse("log(eps)"), InputError);
  BOOST_CHECK_THROW(Rate::parse("exp(1/eps)"), InputError);
  BOOST_CHECK_THROW(Rate::parse("eps^eps"), InputError);
  BOOST_CHECK_THROW(Rate::parse("T^T"), InputError);
  BOOST_CHECK_EXCEPTION(Rate::parse("log(eps)", SourceLocation{"x.toml", 3, 9}), InputError,
                        [](const InputError& e) {
                          return e.where().line == 3u &&
                                 e.message().find("log(1/eps)") != std::string::npos;
                        });
}

BOOST_AUTO_TEST_CASE(substitution) {
  const Rate thm3 = Rate::parse("eps^(1 - T0*d/E)");
  GiNaC::exmap at_T;
  at_T[sym("T0")] = sym("T");
  BOOST_TEST(thm3.substituted(at_T).print() == "eps^(1 - T*d/E)");
}

BOOST_AUTO_TEST_SUITE_END()
