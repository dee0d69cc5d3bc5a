#include "terms.hpp"

#include <algorithm>
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
  return parameter_of(*in.parameters, ref);
}

/// The formula operation `n` applied to `args` (n's own, or a value's operands): its leaves read
/// here, its arithmetic targets::apply_operation()'s.
template <class Tree>
TermValue apply(const Node& n, const std::vector<Tree>& args,  // NOLINT(misc-no-recursion)
                const TermInputs& in) {
  if (n.kind == K::kReduce) throw std::invalid_argument("evaluate(): a reduction inside a term");
  if (n.kind != K::kRef) {
    return targets::apply_operation<Eigen::VectorXd>(
        n, [&](std::size_t i) { return evaluate(args[i], in); },
        [&]() -> const Eigen::MatrixXd& { return parameter(node_of(args[0]), in); });
  }
  TermValue out;
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

const Eigen::MatrixXd& parameter_of(const targets::Evaluator& parameters, const Node& ref) {
  const long member = ref.position > 0 ? ref.position - 1 : 0;  // A[3] is member 3; a plain a, 1
  return parameters.parameter(ref.name, static_cast<std::size_t>(member));
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
