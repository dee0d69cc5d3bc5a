#include "infoflow/theorems/value.hpp"

#include <algorithm>
#include <utility>

#include "infoflow/targets/node_algebra.hpp"

namespace infoflow::theorems {

namespace {
using targets::Node;
using K = Node::Kind;

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

Value leaf(Value::Held h) { return Value{h, {}}; }

/// The value as a formula tree with the pseudo-names of to_text(Value), for printing only.
Node printable(const Value& v) {  // NOLINT(misc-no-recursion)
  Node out;
  std::visit(Overloaded{
                 [&](const Node& op) { out = op; },
                 [&](const Value::Held& h) {
                   out.kind = K::kRef;
                   out.name = "#" + std::to_string(h.quantity) +
                              (h.component >= 0 ? "." + std::to_string(h.component) : "");
                 },
                 [&](const Value::Selected& s) {
                   out.kind = K::kCall;
                   out.name = "#select";
                   out.index = s.index;
                   out.args.push_back(printable(leaf(Value::Held{s.quantity, -1})));
                 },
                 [&](const Value::Combined& c) {
                   out.kind = K::kCall;
                   out.name = c.op == targets::ReduceOp::kSum   ? "#sum"
                              : c.op == targets::ReduceOp::kMin ? "#min"
                                                                : "#max";
                 },
                 [&](const Value::Coordinate& c) {
                   out.kind = K::kRef;
                   out.name = "#@" + std::to_string(c.unit);
                 },
                 [&](const Value::Reduction& r) { out = r.node; },
             },
             v.what);
  for (const Value& a : v.args) out.args.push_back(printable(a));
  return out;
}
}  // namespace

Value lifted(const Node& n, const Node* what, const Value* by) {  // NOLINT(misc-no-recursion)
  if (what != nullptr && targets::same_expression(n, *what)) return *by;
  if (n.kind == K::kReduce) return Value{Value::Reduction{n}, {}};
  Value out;
  Node op = n;
  op.args.clear();
  out.what = std::move(op);
  out.args.reserve(n.args.size());
  for (const Node& a : n.args) out.args.push_back(lifted(a, what, by));
  return out;
}

Value replaced(const Value& v, const Value& what, const Value& by) {  // NOLINT(misc-no-recursion)
  if (same_value(v, what)) return by;
  Value out = v;
  for (Value& a : out.args) a = replaced(a, what, by);
  return out;
}

Value number(double v) {
  Node n;
  n.number = v;
  return Value{std::move(n), {}};
}

Value operation(K kind, std::vector<Value> args) {
  Node op;
  op.kind = kind;
  return Value{std::move(op), std::move(args)};
}

Value sum_of(std::vector<Value> terms) {
  if (terms.empty()) return number(0);
  Value out = std::move(terms.front());
  for (std::size_t i = 1; i < terms.size(); ++i)
    out = operation(K::kAdd, {std::move(out), std::move(terms[i])});
  return out;
}

Value held(int id, double ratio, int component) {
  Value ref = leaf(Value::Held{id, component});
  if (ratio == 1) return ref;
  return operation(K::kMul, {number(ratio), std::move(ref)});
}

std::vector<std::pair<double, Value>> additive_terms(const Value& v) {  // NOLINT(misc-no-recursion)
  std::vector<std::pair<double, Value>> out;
  auto add = [&](const Value& a, double c) {
    for (auto& [k, t] : additive_terms(a)) out.emplace_back(c * k, std::move(t));
  };
  const auto* combined = std::get_if<Value::Combined>(&v.what);
  if (v.is(K::kAdd) || v.is(K::kSub)) {
    add(v.args[0], 1);
    add(v.args[1], v.is(K::kSub) ? -1 : 1);
  } else if (v.is(K::kNeg)) {
    add(v.args[0], -1);
  } else if (combined != nullptr && combined->op == targets::ReduceOp::kSum) {
    for (const Value& a : v.args) add(a, 1);
  } else if (v.is(K::kMul) && v.args[0].is(K::kNumber)) {
    add(v.args[1], v.args[0].operation()->number);
  } else if (v.is(K::kNumber) && v.operation()->number == 0) {
  } else {
    out.emplace_back(1.0, v);
  }
  return out;
}

bool same_value(const Value& a, const Value& b) {  // NOLINT(misc-no-recursion)
  if (a.what.index() != b.what.index() || a.args.size() != b.args.size()) return false;
  const bool same = std::visit(
      Overloaded{
          [&](const Node& op) { return targets::same_expression(op, std::get<Node>(b.what)); },
          [&](const Value::Held& h) {
            const auto& o = std::get<Value::Held>(b.what);
            return h.quantity == o.quantity && h.component == o.component;
          },
          [&](const Value::Selected& s) {
            const auto& o = std::get<Value::Selected>(b.what);
            return s.quantity == o.quantity && s.index == o.index;
          },
          [&](const Value::Combined& c) { return c.op == std::get<Value::Combined>(b.what).op; },
          [&](const Value::Coordinate& c) {
            return c.unit == std::get<Value::Coordinate>(b.what).unit;
          },
          [&](const Value::Reduction& r) {
            return targets::same_expression(r.node, std::get<Value::Reduction>(b.what).node);
          },
      },
      a.what);
  if (!same) return false;
  for (std::size_t i = 0; i < a.args.size(); ++i) {
    if (!same_value(a.args[i], b.args[i])) return false;
  }
  return true;
}

bool reads_held_value(const Value& v) {  // NOLINT(misc-no-recursion)
  return std::holds_alternative<Value::Held>(v.what) ||
         std::holds_alternative<Value::Selected>(v.what) ||
         std::any_of(v.args.begin(), v.args.end(),
                     [](const Value& a) { return reads_held_value(a); });
}

std::string to_text(const Value& v) { return targets::to_text(printable(v)); }

}  // namespace infoflow::theorems
