// Pins the GiNaC behaviours this project works around (symbolic-anchors.md 1.4), so that a
// library upgrade that changes one of them is noticed.
#include <boost/test/unit_test.hpp>

#include <ginac/ginac.h>

BOOST_AUTO_TEST_SUITE(ginac_pitfalls)

BOOST_AUTO_TEST_CASE(series_is_wrong_on_symbolic_exponents) {
  const GiNaC::symbol x("x");
  const GiNaC::symbol T("T");
  // (1/x)^T has no Taylor expansion at 0, yet series() returns 1 + O(x^2).
  const GiNaC::ex s = GiNaC::series_to_poly(GiNaC::pow(1 / x, T).series(x == 0, 2));
  BOOST_TEST(s.is_equal(GiNaC::ex(1)));
}

BOOST_AUTO_TEST_CASE(degree_throws_on_fractional_exponent) {
  const GiNaC::possymbol eps("eps");
  BOOST_CHECK_THROW(GiNaC::pow(eps, GiNaC::numeric(3, 2)).degree(eps), std::runtime_error);
}

BOOST_AUTO_TEST_CASE(inequality_is_syntactic) {
  const GiNaC::possymbol T("T");
  const GiNaC::possymbol k("k");
  BOOST_TEST(static_cast<bool>(T != k));  // "true" although T may equal k
}

BOOST_AUTO_TEST_CASE(default_parser_creates_other_symbols) {
  const GiNaC::possymbol eps("eps");
  GiNaC::parser reader;
  const GiNaC::ex parsed = reader("eps");
  BOOST_TEST(!parsed.is_equal(eps));
  BOOST_TEST(!parsed.info(GiNaC::info_flags::positive));
}

BOOST_AUTO_TEST_SUITE_END()
