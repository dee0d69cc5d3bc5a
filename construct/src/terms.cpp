#include "terms.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <variant>

namespace infoflow::construct::detail {

namespace {
using targets::Node;
using theorems::Value;
using K = Node::Kind;

/// The formula node of an operand: itself, or a value's operation (a parameter is one).
const Node& node_of(const Node& n) { return n; }
const Node& node_of(const Value& v) {
  if (const Node* op = v.operation()) return *op;
  throw std::invalid_argument("evaluate(): a held value where a parameter is read");
}

const Eigen::MatrixXd& parameter(const Node& ref, const TermInputs& in) {
  const long member = ref.position > 0 ? ref.position - 1 : 0;
  return in.parameters->parameter(ref.name, static_cast<std::size_t>(member));
}

/// The formula operation `n` applied to `args` (n's own, or a value's operands).
template <class Tree>
TermValue apply(const Node& n, const std::vector<Tree>& args,  // NOLINT(misc-no-recursion)
                const TermInputs& in) {
  TermValue out;
  switch (n.kind) {
    case K::kNumber:
      out.s = n.number;
      return out;
    case K::kRef: {
      if (n.name == "T") {  // the sequence length (T is a named integer, never a parameter)
        out.s = static_cast<double>(in.tokens_count);
        return out;
      }
      if (n.name == "x") {
        if (positioned(n)) {
          out.vector = true;
          out.v = in.positioned.at(n);
          return out;
        }
        if (n.offset != 0) throw std::invalid_argument("evaluate(): a term reads a token by offset");
        out.vector = true;
        out.v = in.tokens.at(n.index);
        return out;
      }
      const Eigen::MatrixXd& p = parameter(n, in);
      if (n.value == targets::ValueKind::kVector) {
        out.vector = true;
        out.v = p.col(0);
      } else {
        out.s = p(0, 0);
      }
      return out;
    }
    case K::kCall: {
      if (n.name == "bilinear") {
        const Eigen::MatrixXd& a = parameter(node_of(args[0]), in);
        out.s = evaluate(args[1], in).v.dot(a * evaluate(args[2], in).v);
        return out;
      }
      if (n.name == "dot") {
        out.s = evaluate(args[0], in).v.dot(evaluate(args[1], in).v);
        return out;
      }
      const TermValue a = evaluate(args[0], in);
      if (n.name == "norm") out.s = a.v.norm();
      else if (n.name == "sqnorm") out.s = a.v.squaredNorm();
      else if (n.name == "exp") out.s = std::exp(a.s);
      else if (n.name == "log") out.s = std::log(a.s);
      else if (n.name == "sqrt") out.s = std::sqrt(a.s);
      else if (n.name == "abs") out.s = std::abs(a.s);
      else if (n.name == "tanh") out.s = std::tanh(a.s);
      else if (n.name == "sin") out.s = std::sin(a.s);
      else if (n.name == "cos") out.s = std::cos(a.s);
      else if (n.name == "relu") out.s = std::max(0.0, a.s);
      else throw std::invalid_argument("evaluate(): no function " + n.name);
      return out;
    }
    case K::kNeg:
      out = evaluate(args[0], in);
      out.s = -out.s;
      if (out.vector) out.v = -out.v;
      return out;
    case K::kAdd:
    case K::kSub: {
      const TermValue a = evaluate(args[0], in);
      const TermValue b = evaluate(args[1], in);
      const double sign = n.kind == K::kAdd ? 1.0 : -1.0;
      out.vector = a.vector;
      if (a.vector) out.v = a.v + sign * b.v;
      else out.s = a.s + sign * b.s;
      return out;
    }
    case K::kMul: {
      const TermValue a = evaluate(args[0], in);
      const TermValue b = evaluate(args[1], in);
      out.vector = a.vector || b.vector;
      if (a.vector) out.v = a.v * b.s;
      else if (b.vector) out.v = a.s * b.v;
      else out.s = a.s * b.s;
      return out;
    }
    case K::kDiv: {
      const TermValue a = evaluate(args[0], in);
      const double b = evaluate(args[1], in).s;
      out.vector = a.vector;
      if (a.vector) out.v = a.v / b;
      else out.s = a.s / b;
      return out;
    }
    case K::kPow:
      out.s = std::pow(evaluate(args[0], in).s, evaluate(args[1], in).s);
      return out;
    case K::kReduce:
      break;
  }
  throw std::invalid_argument("evaluate(): a reduction inside a term");
}

/// The sum, maximum or minimum of the copies `args`.
TermValue combine(targets::ReduceOp op, const std::vector<Value>& args,  // NOLINT(misc-no-recursion)
                  const TermInputs& in) {
  TermValue out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const TermValue a = evaluate(args[i], in);
    if (a.vector) {  // a sum of vectors (sum(p = 1..3) x[p])
      if (op != targets::ReduceOp::kSum) throw std::invalid_argument("evaluate(): an extremum of vectors");
      out.vector = true;
      out.v = i == 0 ? a.v : Eigen::VectorXd(out.v + a.v);
      continue;
    }
    const double v = a.s;
    out.s = i == 0                           ? v
            : op == targets::ReduceOp::kSum ? out.s + v
            : op == targets::ReduceOp::kMax ? std::max(out.s, v)
                                            : std::min(out.s, v);
  }
  return out;
}
}  // namespace

TermValue evaluate(const Node& n, const TermInputs& in) {  // NOLINT(misc-no-recursion)
  return apply(n, n.args, in);
}

TermValue evaluate(const Value& n, const TermInputs& in) {  // NOLINT(misc-no-recursion)
  if (const Node* op = n.operation()) return apply(*op, n.args, in);
  if (const auto* held = std::get_if<Value::Held>(&n.what)) return in.reference(*held);
  TermValue out;
  if (std::holds_alternative<Value::Selected>(n.what)) {
    out.s = in.selection(n);
    return out;
  }
  if (const auto* c = std::get_if<Value::Coordinate>(&n.what)) {
    out.s = in.coordinate(c->unit);
    return out;
  }
  if (const auto* c = std::get_if<Value::Combined>(&n.what)) return combine(c->op, n.args, in);
  throw std::invalid_argument("evaluate(): a reduction inside a term");
}

bool positioned(const Node& n) {
  return n.kind == K::kRef && n.name == "x" && (n.position > 0 || !n.position_name.empty());
}

bool reads_position(const Value& n) {  // NOLINT(misc-no-recursion)
  const Node* op = n.operation();
  return (op != nullptr && positioned(*op)) ||
         std::any_of(n.args.begin(), n.args.end(), [](const Value& a) { return reads_position(a); });
}

void token_indices(const Value& n, std::vector<std::string>& out) {  // NOLINT(misc-no-recursion)
  const Node* op = n.operation();
  if (op != nullptr && op->kind == K::kRef && op->name == "x" && !op->index.empty() &&
      !positioned(*op) && std::find(out.begin(), out.end(), op->index) == out.end())
    out.push_back(op->index);
  for (const Value& a : n.args) token_indices(a, out);
}

}  // namespace infoflow::construct::detail
