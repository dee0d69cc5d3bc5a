#include <boost/test/unit_test.hpp>

#include "common/symbols.hpp"
#include "infoflow/symbolic/expression.hpp"

using namespace infoflow;
using namespace infoflow::symbolic;
using infoflow::testing::ex_of;
using infoflow::testing::same;
using infoflow::testing::sym;

namespace {

/// The InputError a parse throws, or fails the test.
InputError parse_failure(std::string_view text, SourceLocation where = {}) {
  try {
    parse_expression(text, where);
  } catch (const InputError& e) {
    return e;
  }
  BOOST_FAIL("no error for \"" << text << "\"");
  throw;  // unreachable
}

}  // namespace

BOOST_AUTO_TEST_SUITE(expression)

BOOST_AUTO_TEST_CASE(parses_theorem_two_exponent) {
  const GiNaC::ex e = ex_of("eps^(-(T-k-1)/(n+1))");
  const GiNaC::ex expected =
      GiNaC::pow(sym("eps"), -(sym("T") - sym("k") - 1) / (sym("n") + 1));
  BOOST_TEST(same(e, expected));
}

BOOST_AUTO_TEST_CASE(precedence_and_associativity) {
  // -2^2 is -(2^2); 2^3^2 is 2^(3^2); a - b - c is (a - b) - c.
  BOOST_TEST(same(ex_of("-2^2"), -4));
  BOOST_TEST(same(ex_of("2^3^2"), 512));
  BOOST_TEST(same(ex_of("T - k - 1"), sym("T") - sym("k") - 1));
  BOOST_TEST(same(ex_of("T/4/n"), sym("T") / (4 * sym("n"))));
  BOOST_TEST(same(ex_of("eps^-1"), 1 / sym("eps")));
}

BOOST_AUTO_TEST_CASE(written_form_is_kept) {
  const Expr e = parse_expression("eps^(1 - T0*d/E)");
  BOOST_TEST(to_text(e) == "eps^(1 - T0*d/E)");
  BOOST_TEST(to_latex(e) == "\\varepsilon^{1 - \\frac{T_0 d}{E}}");
  BOOST_TEST(to_latex(parse_expression("eps^(-(T-k-1)/(n+1))")) ==
             "\\varepsilon^{-\\frac{T - k - 1}{n + 1}}");
  BOOST_TEST(to_latex(parse_expression("log(1/eps)^2")) ==
             "\\log^{2}\\left(\\frac{1}{\\varepsilon}\\right)");
  BOOST_TEST(to_text(parse_expression("T - (k - 1)")) == "T - (k - 1)");
  BOOST_TEST(to_text(parse_expression("(T/4 - s)/((n+1)*s + 1)")) == "(T/4 - s)/((n + 1)*s + 1)");
}

BOOST_AUTO_TEST_CASE(unknown_symbol_reports_column) {
  const InputError e = parse_failure("eps^(-zz)", SourceLocation{"cat.toml", 7, 10});
  BOOST_TEST(e.where().file == "cat.toml");
  BOOST_TEST(e.where().line == 7u);
  BOOST_TEST(e.where().column == 16u);  // 10 + offset 6 of "zz"
  BOOST_TEST(e.message().find("unknown symbol 'zz'") != std::string::npos);
  BOOST_TEST(std::string(e.what()).starts_with("cat.toml:7:16: error:"));
}

BOOST_AUTO_TEST_CASE(rejects_floats_and_implicit_products) {
  BOOST_TEST(parse_failure("eps^1.5").where().column == 5u);
  BOOST_TEST(parse_failure("2T").message().find("missing operator") != std::string::npos);
  BOOST_TEST(parse_failure("eps**2").message().find("'^'") != std::string::npos);
  BOOST_TEST(parse_failure("(T + 1").message().find("expected ')'") != std::string::npos);
  BOOST_TEST(parse_failure("foo(T)").message().find("unknown function") != std::string::npos);
  BOOST_TEST(parse_failure("T +").message().find("end of expression") != std::string::npos);
  BOOST_TEST(parse_failure("T = 2").message().find("unexpected '='") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(relation_chains) {
  const std::vector<Relation> chain = parse_relations("1 <= T0 <= T + 1");
  BOOST_TEST_REQUIRE(chain.size() == 2u);
  BOOST_TEST(to_text(chain[0]) == "1 <= T0");
  BOOST_TEST(to_text(chain[1]) == "T0 <= T + 1");
  BOOST_TEST(same(to_ex_difference(chain[1]), sym("T0") - sym("T") - 1));
  BOOST_TEST(to_latex(parse_relations("n >= T*d").front()) == "n \\ge T d");
  BOOST_CHECK_THROW(parse_relations("T + 1"), InputError);
  BOOST_CHECK_THROW(parse_relations("T = 1"), InputError);
}

BOOST_AUTO_TEST_CASE(nesting_and_length_are_bounded_not_the_stack) {
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += "(";
  deep += "eps";
  for (int i = 0; i < 100; ++i) deep += ")";
  BOOST_TEST(same(ex_of(deep), sym("eps")));  // 100 levels are fine
  const InputError e = parse_failure("(" + deep + ")", SourceLocation{"f", 3, 5});
  BOOST_TEST(e.where().line == 3u);
  BOOST_TEST(e.where().column == 5u + 101u);  // inside the 101st parenthesis
  BOOST_TEST(e.message().find("nested more than 100 levels deep") == 0u);
  BOOST_TEST(parse_failure(std::string(5000, '-') + "eps").message() ==
             "the formula has 5003 characters; at most 4096 are accepted");
}

BOOST_AUTO_TEST_CASE(a_division_by_zero_is_placed_where_it_is_written) {
  const InputError e = parse_failure("eps^(-T/(n - n))", SourceLocation{"cat.toml", 7, 9});
  BOOST_TEST(e.where().file == "cat.toml");
  BOOST_TEST(e.where().line == 7u);
  BOOST_TEST(e.where().column == 9u + 9u);  // the divisor, n - n, starts at offset 9
  BOOST_TEST(e.message() == "division by zero in \"-T/(n - n)\"");
  BOOST_CHECK_THROW(parse_relations("T/(2 - 2) > 1", {}), InputError);
}

BOOST_AUTO_TEST_CASE(zero_to_a_power_that_is_not_positive_is_refused_where_it_is_written) {
  // GiNaC kept 0^(k-1) whole and threw "division by zero" (exit 3) when a value made the
  // exponent negative; in an exponent it gave eps^(1/0^k), a gap of 1/0^k.
  const InputError e = parse_failure("eps^(-1) * 0^(k-1)", SourceLocation{"cat.toml", 7, 9});
  BOOST_TEST(e.where().file == "cat.toml");
  BOOST_TEST(e.where().line == 7u);
  BOOST_TEST(e.where().column == 9u + 11u);  // 0^(k-1) starts at offset 11
  BOOST_TEST(e.message() ==
             "\"0^(k - 1)\" has no value: 0 to the power k - 1, which is not a positive number");
  BOOST_TEST(parse_failure("eps^(0^(-k))").where().column == 6u);
  BOOST_TEST(parse_failure("(k - k)^(-k)*eps").message() ==
             "\"(k - k)^(-k)\" has no value: 0 to the power -k, which is not a positive number");
  BOOST_TEST(parse_failure("0^0*eps").message().find("0 to the power 0,") != std::string::npos);
  BOOST_CHECK_THROW(parse_relations("k >= 0^(k-1)", {}), InputError);
  // A positive power of 0 is 0.
  BOOST_TEST(same(ex_of("eps + 0^(1/2)"), sym("eps")));
  BOOST_TEST(same(ex_of("eps + 0^3"), sym("eps")));
}

BOOST_AUTO_TEST_CASE(numbers_too_large_and_poles_are_bad_input) {
  // Found by fuzzing: GiNaC would compute 444^444444323 exactly (hours) and throws a plain
  // domain error on 0^(-1) (exit 3).
  const InputError big = parse_failure("eps^444^444444323");
  BOOST_TEST(big.where().column == 5u);
  BOOST_TEST(big.message() == "the number 444^444444323 is too large (over 100000 bits)");
  BOOST_TEST(parse_failure("0^(-1)*eps").message().find("has no value") != std::string::npos);
  // GiNaC's polynomial algorithms keep degrees in an int ("Not a 32-bit integer", exit 3).
  BOOST_TEST(parse_failure("eps^88882222222222222/22 - d").message() ==
             "the exponent 88882222222222222 is too large (at most 10000)");
  BOOST_TEST(parse_failure("eps^5000*eps^5001").message().find("exponent 10001") !=
             std::string::npos);
  // A number inside an exponent too: expand() splits eps^(D + c) into eps^D * eps^c.
  BOOST_TEST(parse_failure("eps^(2222222288828822 + D)/(n*s + n) - 882").message() ==
             "the number 2222222288828822 in an exponent is too large (at most 10000)");
  BOOST_TEST(same(ex_of("eps^10000"), GiNaC::pow(sym("eps"), 10000)));
  // GiNaC's normal() is exponential in the height of a tower of exponents (34 s for 10).
  BOOST_TEST(parse_failure("eps^eps^eps^eps^eps^2").message() ==
             "exponents are nested more than 4 deep (a^b^c^... or exp(exp(...)))");
  BOOST_TEST(parse_failure("exp(exp(exp(exp(exp(T)))))").message().find("nested more than 4") !=
             std::string::npos);
  BOOST_TEST(same(ex_of("2^2^2^2"), 65536));
  // normal() multiplies out denominators: twice the time with each (12 took 24 s).
  std::string fractions = "T";
  for (int i = 1; i <= 4; ++i) fractions += " + T/(n + " + std::to_string(i) + ")";
  BOOST_TEST(same(ex_of(fractions).subs(sym("n") == 0), sym("T") * (1 + GiNaC::numeric(25, 12))));
  BOOST_TEST(parse_failure(fractions + " + 1/(s + 1)").message() ==
             "more than 4 divisions by (or powers of) expressions with symbols");
}

BOOST_AUTO_TEST_SUITE_END()
