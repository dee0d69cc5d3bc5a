// The evaluator on sequences whose values are known by hand.
#include <cmath>

#include <boost/test/unit_test.hpp>

#include "infoflow/targets/evaluator.hpp"

#include "common/input_error.hpp"

namespace tg = infoflow::targets;
using Eigen::MatrixXd;

namespace {
double value(const std::string& text, const MatrixXd& x, tg::Bindings b = {}) {
  b["T"] = x.cols();
  return tg::Evaluator(tg::Formula::parse(text), b, x.rows(), 1)(x);
}
std::string error_of(const std::string& text, long t, tg::Bindings b = {}) {
  b["T"] = t;
  return infoflow::testing::input_error_of(
      [&] { (void)tg::Evaluator(tg::Formula::parse(text), b, 2, 1); });
}
}  // namespace

BOOST_AUTO_TEST_SUITE(evaluator)

BOOST_AUTO_TEST_CASE(reductions_arithmetic_and_functions_by_hand) {
  MatrixXd x(2, 4);
  x << 1, 0, 1, -2,  //
      0, 1, 1, -2;
  BOOST_TEST(value("min(s != t) dot(x[s], x[t])", x) == -4.0);  // x3 . x4
  BOOST_TEST(value("max(s, t) dot(x[s], x[t])", x) == 8.0);     // x4 . x4
  BOOST_TEST(value("min(t1 < t2 < t3) sqnorm(x[t1] + x[t2] + x[t3])", x) == 1.0);
  BOOST_TEST(value("sum(t) norm(x[t])", x) == 2 + std::sqrt(2.0) + std::sqrt(8.0),
             boost::test_tools::tolerance(1e-14));
  BOOST_TEST(value("sqnorm(sum(p = 1..T0) x[p])", x, {{"T0", 3}}) == 8.0);
  BOOST_TEST(value("kth(2, t) sqnorm(x[t])", x) == 2.0);  // squared norms 1 1 2 8
  BOOST_TEST(value("kth(k, t by sqnorm(x[t])) dot(x[t], x[2])", x, {{"k", 1}}) == -2.0);
  // Scores x(t) . x(3) are 1, 1, 2, -4: the largest is at t = 3, the smallest at t = 4.
  BOOST_TEST(value("max(t by dot(x[t], x[3])) sqnorm(x[t])", x) == 2.0);
  BOOST_TEST(value("min(t by dot(x[t], x[3])) sqnorm(x[t])", x) == 8.0);
  // A key read without its monotone function: -(...) turns max into min, tanh(20 y) (1.0 in
  // doubles for y = 1 and 2) selects as y; a sum's key selects nothing and stays a sum.
  BOOST_TEST(value("max(t by -dot(x[t], x[3])) sqnorm(x[t])", x) == 8.0);
  BOOST_TEST(value("max(t by tanh(20 * dot(x[t], x[3]))) sqnorm(x[t])", x) == 2.0);
  BOOST_TEST(value("sum(t by -dot(x[t], x[3])) sqnorm(x[t])", x) == value("sum(t) sqnorm(x[t])", x));
  BOOST_TEST(value("2^3 - 4 / 2 * 3 + relu(-1) + abs(-2) + exp(0) + -sqrt(4)", x) ==
             8 - 6 + 0 + 2 + 1 - 2);
  BOOST_TEST(value("dot(3 * x[1] - x[2] / 2, x[3])", x) == 2.5);
}

BOOST_AUTO_TEST_CASE(named_and_relative_positions_by_hand) {
  MatrixXd x(2, 4);
  x << 1, 0, 1, -2,  //
      0, 1, 1, -2;
  BOOST_TEST(value("sqnorm(x[1] - x[T])", x) == 13.0);  // (3, 2)
  BOOST_TEST(value("dot(x[T-1], x[T])", x) == -4.0);
  // x[t+1] reads zero past the last token: successors' products 0, 1, -4, 0.
  BOOST_TEST(value("max(t) dot(x[t], x[t+1])", x) == 1.0);
  BOOST_TEST(value("sum(t) dot(x[t], x[t-1])", x) == 0 + 0 + 1 - 4);
  // Each token s against the others: minima -2, -2, -4, -4.
  BOOST_TEST(value("max(s) min(t != s) dot(x[s], x[t])", x) == -2.0);
}

BOOST_AUTO_TEST_CASE(parameters_follow_the_seed_convention) {
  const tg::Formula f =
      tg::Formula::parse("sum(i = 1..D) max(t) dot(a[i], x[t]) + dot(b, x[1]) + c");
  const tg::Evaluator e(f, {{"T", 3}, {"D", 2}}, 4, 7);
  BOOST_TEST(e.parameter("a", 0).norm() == 1.0, boost::test_tools::tolerance(1e-14));
  BOOST_TEST(e.parameter("b").norm() == 1.0, boost::test_tools::tolerance(1e-14));
  BOOST_TEST((e.parameter("a", 0) - e.parameter("a", 1)).norm() > 0.1);
  const tg::Evaluator again(f, {{"T", 3}, {"D", 2}}, 4, 7);
  BOOST_TEST((again.parameter("a", 1).array() == e.parameter("a", 1).array()).all());
  const tg::Evaluator other(f, {{"T", 3}, {"D", 2}}, 4, 8);
  BOOST_TEST((other.parameter("b") - e.parameter("b")).norm() > 1e-3);
}

BOOST_AUTO_TEST_CASE(values_the_formula_cannot_use_are_input_errors) {
  BOOST_TEST(error_of("sum(i = 1..D) max(t) dot(a[i], x[t])", 4) ==
             "the formula needs a value for D (e.g. --set D=2)");
  BOOST_TEST(error_of("sqnorm(x[5])", 4) == "the formula reads x[5] but T = 4");
  BOOST_TEST(error_of("min(t1 < t2 < t3) sqnorm(x[t1] + x[t2] + x[t3])", 2) ==
             "the reduction 'min(t1 < t2 < t3) sqnorm(x[t1] + x[t2] + x[t3])' has no index tuple "
             "for T = 2");
  BOOST_TEST(error_of("kth(5, t) sqnorm(x[t])", 4) == "kth(5) over 4 index tuples");
  BOOST_TEST(error_of("sum(i = 1..D) max(t) dot(a[i], x[t])", 4, {{"D", 0}}) ==
             "the range i = 1..D is empty");
}

BOOST_AUTO_TEST_CASE(evaluation_cost_and_sizes_are_bounded_before_any_allocation) {
  // 10^9 index triples, 7 nodes each (the product, two dots, four references).
  BOOST_TEST(error_of("max(s, t, u) (dot(x[s], x[t]) * dot(x[u], x[u]))", 1000) ==
             "evaluating the formula once visits about 7e+09 terms; at most 100000000 are "
             "accepted (a smaller T or range)");
  BOOST_TEST(error_of("sum(i = 1..D) dot(a[i], x[1])", 2, {{"D", 1000000}}) ==
             "parameter family a has more than 65536 members");
  BOOST_TEST(error_of("dot(x[1], x[2])", 1000000000) == "the formula needs T between 1 and 16384");
  BOOST_TEST(error_of("max(s, t) dot(x[s], x[t])", 100).empty());
}

BOOST_AUTO_TEST_SUITE_END()
