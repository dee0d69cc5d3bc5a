// The report's claims are text the tool wrote; in report.tex their rates are set in math mode.
#include <boost/test/unit_test.hpp>

#include "infoflow/report/catalogue_report.hpp"
#include "infoflow/report/experiment_report.hpp"

namespace rp = infoflow::report;

BOOST_AUTO_TEST_SUITE(prose_latex)

BOOST_AUTO_TEST_CASE(rates_powers_and_relations_are_math) {
  BOOST_TEST(rp::prose_latex("O(eps^(-1)) (efficient): NMSE does not grow in T") ==
             "$O\\left(\\varepsilon^{-1}\\right)$ (efficient): NMSE does not grow in T");
  BOOST_TEST(rp::prose_latex("O(eps^(1 - T/4)) at T = 8: NMSE ~ M^(-2.00)") ==
             "$O\\left(\\varepsilon^{1 - \\frac{T}{4}}\\right)$ at T = 8: NMSE $\\sim$ $M^{-2.00}$");
  BOOST_TEST(rp::prose_latex("grows like T^0.54, median NMSE < 0.5, k >= 2") ==
             "grows like $T^{0.54}$, median NMSE $<$ 0.5, k $\\ge$ 2");
  BOOST_TEST(rp::prose_latex("Omega(eps^(-k)) and Theta(eps^(-2))") ==
             "$\\Omega\\left(\\varepsilon^{-k}\\right)$ and $\\Theta\\left(\\varepsilon^{-2}\\right)$");
}

BOOST_AUTO_TEST_CASE(everything_else_is_escaped_text) {
  // Not a rate (an unknown symbol, unbalanced): escaped as text, never dropped.
  BOOST_TEST(rp::prose_latex("O(q_1) & 50% of runs_x") == "O(q\\_1) \\& 50\\% of runs\\_x");
  BOOST_TEST(rp::prose_latex("O(eps") == "O(eps");
  BOOST_TEST(rp::prose_latex("see docs/experiments.md") == "see docs/\\allowbreak{}experiments.md");
}

BOOST_AUTO_TEST_CASE(commands_are_typewriter_and_keep_their_double_dashes) {
  // TeX makes "--" an en dash: a command copied from the PDF would not run.
  BOOST_TEST(rp::prose_latex("(run `infoflow sweep x.toml --profile paper_plateau`)") ==
             "(run \\texttt{infoflow sweep x.toml -{}-{}profile paper\\_plateau})");
  BOOST_TEST(rp::prose_latex("a -- b, an `unclosed one") == "a -{}- b, an `unclosed one");
}

BOOST_AUTO_TEST_SUITE_END()
