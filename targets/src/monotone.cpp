#include "infoflow/targets/monotone.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace infoflow::targets {

namespace {
using K = Node::Kind;

/// A term that reads no token and no index: numbers and scalar parameters.
bool closed_term(const Node& m) {  // NOLINT(misc-no-recursion)
  if (m.kind == K::kReduce) return false;
  if (m.kind == K::kRef && (m.name == "x" || !m.index.empty() || m.position > 0 ||
                            !m.position_name.empty() || m.offset != 0))
    return false;
  return std::all_of(m.args.begin(), m.args.end(), [](const Node& a) { return closed_term(a); });
}
}  // namespace

std::optional<MonotoneStep> monotone_step(const Node& m, bool strict) {
  const auto number = [](const Node& c) -> std::optional<double> {
    if (c.kind == K::kNumber) return c.number;
    if (c.kind == K::kNeg && c.args[0].kind == K::kNumber) return -c.args[0].number;
    return std::nullopt;
  };
  switch (m.kind) {
    case K::kNeg:
      return MonotoneStep{0, true};
    case K::kAdd:
      if (closed_term(m.args[0])) return MonotoneStep{1, false};
      if (closed_term(m.args[1])) return MonotoneStep{0, false};
      return std::nullopt;
    case K::kSub:
      if (closed_term(m.args[1])) return MonotoneStep{0, false};
      if (closed_term(m.args[0])) return MonotoneStep{1, true};
      return std::nullopt;
    case K::kMul:
      for (const std::size_t i : {0U, 1U}) {
        if (const std::optional<double> c = number(m.args[i]); c && *c != 0)
          return MonotoneStep{1 - i, *c < 0};
      }
      return std::nullopt;
    case K::kDiv:
      if (const std::optional<double> c = number(m.args[1]); c && *c != 0)
        return MonotoneStep{0, *c < 0};
      return std::nullopt;
    case K::kPow:  // u^3, u^5: strictly increasing; |u|^p (p > 0) too, |u| being >= 0
      if (m.args[1].kind == K::kNumber && m.args[1].number >= 1 &&
          std::fmod(m.args[1].number, 2.0) == 1.0)
        return MonotoneStep{0, false};
      if (m.args[1].kind == K::kNumber && m.args[1].number > 0 && m.args[0].kind == K::kCall &&
          m.args[0].name == "abs")
        return MonotoneStep{0, false};
      return std::nullopt;
    case K::kCall:
      if (m.args.size() == 1 && (m.name == "exp" || m.name == "log" || m.name == "sqrt" ||
                                 m.name == "tanh" || (m.name == "relu" && !strict)))
        return MonotoneStep{0, false};
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

Node unsaturated_keys(Node n) {  // NOLINT(misc-no-recursion)
  for (Node& a : n.args) a = unsaturated_keys(std::move(a));
  if (!n.has_key() || n.op == ReduceOp::kSum) return n;  // a sum's key selects nothing
  for (std::optional<MonotoneStep> step = monotone_step(n.args[1], true);
       step && !(n.op == ReduceOp::kKth && step->decreasing);
       step = monotone_step(n.args[1], true)) {
    if (step->decreasing) n.op = n.op == ReduceOp::kMax ? ReduceOp::kMin : ReduceOp::kMax;
    Node inner = std::move(n.args[1].args[step->argument]);
    n.args[1] = std::move(inner);
  }
  return n;
}

}  // namespace infoflow::targets
