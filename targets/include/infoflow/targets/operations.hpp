#ifndef INFOFLOW_TARGETS_OPERATIONS_HPP_
#define INFOFLOW_TARGETS_OPERATIONS_HPP_

/// \file
/// What the formula language's operations compute from their operands' values: a number, dot,
/// bilinear, norm, sqnorm, the scalar functions, -, +, -, * and / on scalars and vectors, and ^.
/// The training data's evaluator (Evaluator) and the constructor's evaluation of a term both
/// apply them here, each resolving the leaves (x[t], x[3], T, a, A[i]) and reductions its own
/// way, so that the two compute the same bits: recorded training data are drawn with this order
/// of floating-point operations. Header-only, so that the evaluator's walk inlines it.

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "infoflow/targets/formula.hpp"

namespace infoflow::targets {

/// A scalar, or a vector of type V: Eigen::VectorXd, or a vector of fixed capacity where a walk
/// over every sequence must not allocate.
template <class V>
struct ScalarOrVector {
  double s = 0;
  V v;
  bool vector = false;
};

/// The scalar function `name` (exp, log, sqrt, abs, tanh, sin, cos, relu) at `a`. Throws
/// std::invalid_argument for another name (the checker admits none).
inline double scalar_function(const std::string& name, double a) {
  if (name == "exp") return std::exp(a);
  if (name == "log") return std::log(a);
  if (name == "sqrt") return std::sqrt(a);
  if (name == "abs") return std::abs(a);
  if (name == "tanh") return std::tanh(a);
  if (name == "sin") return std::sin(a);
  if (name == "cos") return std::cos(a);
  if (name == "relu") return std::max(0.0, a);
  throw std::invalid_argument("scalar_function(): no function " + name);
}

/// The value of the operation `n`, a number, a call or an arithmetic node, whose operand i has
/// the value `operand(i)` (a ScalarOrVector<V>; each is asked for once) and, for bilinear, whose
/// matrix is `matrix()` (an Eigen::MatrixXd). A reference or a reduction is the caller's to
/// resolve: std::logic_error.
template <class V, class Operand, class Matrix>
ScalarOrVector<V> apply_operation(const Node& n, Operand&& operand, Matrix&& matrix) {
  using K = Node::Kind;
  ScalarOrVector<V> out;
  switch (n.kind) {
    case K::kNumber:
      out.s = n.number;
      return out;
    case K::kCall: {
      if (n.name == "bilinear") {
        const auto& a = matrix();
        const ScalarOrVector<V> u = operand(1);
        const ScalarOrVector<V> v = operand(2);
        out.s = u.v.dot(a * v.v);
        return out;
      }
      if (n.name == "dot") {
        const ScalarOrVector<V> u = operand(0);
        out.s = u.v.dot(operand(1).v);
        return out;
      }
      const ScalarOrVector<V> a = operand(0);
      if (n.name == "norm")
        out.s = a.v.norm();
      else if (n.name == "sqnorm")
        out.s = a.v.squaredNorm();
      else
        out.s = scalar_function(n.name, a.s);
      return out;
    }
    case K::kNeg:
      out = operand(0);
      out.s = -out.s;
      if (out.vector) out.v = -out.v;
      return out;
    case K::kAdd:
    case K::kSub: {
      const ScalarOrVector<V> a = operand(0);
      const ScalarOrVector<V> b = operand(1);
      const double sign = n.kind == K::kAdd ? 1.0 : -1.0;
      out.vector = a.vector;
      if (a.vector)
        out.v = a.v + sign * b.v;
      else
        out.s = a.s + sign * b.s;
      return out;
    }
    case K::kMul: {
      const ScalarOrVector<V> a = operand(0);
      const ScalarOrVector<V> b = operand(1);
      out.vector = a.vector || b.vector;
      if (a.vector)
        out.v = a.v * b.s;
      else if (b.vector)
        out.v = a.s * b.v;
      else
        out.s = a.s * b.s;
      return out;
    }
    case K::kDiv: {
      const ScalarOrVector<V> a = operand(0);
      const double b = operand(1).s;
      out.vector = a.vector;
      if (a.vector)
        out.v = a.v / b;
      else
        out.s = a.s / b;
      return out;
    }
    case K::kPow: {
      const double base = operand(0).s;
      out.s = std::pow(base, operand(1).s);
      return out;
    }
    case K::kRef:
    case K::kReduce:
      break;
  }
  throw std::logic_error("apply_operation(): a reference or a reduction is the caller's");
}

}  // namespace infoflow::targets

#endif  // INFOFLOW_TARGETS_OPERATIONS_HPP_
