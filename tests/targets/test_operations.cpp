// The formula operations' arithmetic on given operand values (targets/operations.hpp), which the
// training data's evaluator and the constructor's both apply.
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <boost/test/unit_test.hpp>

#include "infoflow/targets/operations.hpp"

namespace tg = infoflow::targets;
using K = tg::Node::Kind;
using Value = tg::ScalarOrVector<Eigen::VectorXd>;

namespace {
tg::Node op(K kind, const std::string& name = "") {
  tg::Node n;
  n.kind = kind;
  n.name = name;
  return n;
}
Value scalar(double s) {
  return Value{s, {}, false};
}
Value vector(double a, double b) {
  return Value{0, Eigen::Vector2d(a, b), true};
}

/// `n` applied to `operands`, with bilinear's matrix [[1, 2], [0, 1]].
Value applied(const tg::Node& n, const std::vector<Value>& operands) {
  const Eigen::MatrixXd a = (Eigen::MatrixXd(2, 2) << 1, 2, 0, 1).finished();
  return tg::apply_operation<Eigen::VectorXd>(
      n, [&](std::size_t i) { return operands.at(i); },
      [&]() -> const Eigen::MatrixXd& { return a; });
}
}  // namespace

BOOST_AUTO_TEST_SUITE(operations)

BOOST_AUTO_TEST_CASE(calls_on_vectors_and_scalar_functions) {
  tg::Node number = op(K::kNumber);
  number.number = 2.5;
  BOOST_TEST(applied(number, {}).s == 2.5);
  BOOST_TEST(applied(op(K::kCall, "dot"), {vector(1, 2), vector(3, 4)}).s == 11.0);
  // A (0, 1) = (2, 1), whose dot with (1, 3) is 5; operand 0 is the matrix, not asked for.
  BOOST_TEST(applied(op(K::kCall, "bilinear"), {scalar(0), vector(1, 3), vector(0, 1)}).s == 5.0);
  BOOST_TEST(applied(op(K::kCall, "norm"), {vector(3, 4)}).s == 5.0);
  BOOST_TEST(applied(op(K::kCall, "sqnorm"), {vector(3, 4)}).s == 25.0);
  BOOST_TEST(applied(op(K::kCall, "relu"), {scalar(-1)}).s == 0.0);
  BOOST_TEST(applied(op(K::kCall, "abs"), {scalar(-2)}).s == 2.0);
  BOOST_TEST(applied(op(K::kCall, "sqrt"), {scalar(9)}).s == 3.0);
  BOOST_TEST(applied(op(K::kCall, "exp"), {scalar(0)}).s == 1.0);
  BOOST_CHECK_THROW(applied(op(K::kCall, "floor"), {scalar(1)}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(arithmetic_on_scalars_and_vectors) {
  const Value negated = applied(op(K::kNeg), {vector(1, -2)});
  BOOST_TEST(negated.vector);
  BOOST_TEST(negated.v == Eigen::Vector2d(-1, 2));
  BOOST_TEST(applied(op(K::kSub), {vector(3, 4), vector(1, 2)}).v == Eigen::Vector2d(2, 2));
  BOOST_TEST(applied(op(K::kAdd), {scalar(1.5), scalar(2)}).s == 3.5);
  BOOST_TEST(applied(op(K::kSub), {scalar(1.5), scalar(2)}).s == -0.5);
  const Value left = applied(op(K::kMul), {scalar(2), vector(1, 2)});
  BOOST_TEST(left.vector);
  BOOST_TEST(left.v == Eigen::Vector2d(2, 4));
  BOOST_TEST(applied(op(K::kMul), {vector(1, 2), scalar(3)}).v == Eigen::Vector2d(3, 6));
  BOOST_TEST(applied(op(K::kMul), {scalar(1.5), scalar(4)}).s == 6.0);
  BOOST_TEST(applied(op(K::kDiv), {vector(1, 2), scalar(2)}).v == Eigen::Vector2d(0.5, 1));
  BOOST_TEST(applied(op(K::kDiv), {scalar(3), scalar(4)}).s == 0.75);
  BOOST_TEST(applied(op(K::kPow), {scalar(2), scalar(3)}).s == 8.0);
  // The leaves and reductions are the caller's.
  BOOST_CHECK_THROW(applied(op(K::kRef, "x"), {}), std::logic_error);
}

BOOST_AUTO_TEST_SUITE_END()
