// E1: a maximum over s of a maximum over t is one maximum over (s, t) (likewise for min),
// constraints included (max(s) max(t < s) is max(t < s) over both), so that elimination sees
// every index at once: written nested, max(s) max(t) max(u) (<x_s, x_t> + <x_t, x_u>) would be
// compiled inner reduction first, one layer per level, where the chain needs two. Only where no
// selection, no range and no more indices than the exhaustive search tries.
#include <algorithm>

#include "elimination_order.hpp"
#include "readings/reading.hpp"

namespace infoflow::theorems::detail {

namespace {

using targets::Node;
using K = targets::Node::Kind;

std::optional<Node> nested_as_one(const Node& n, const Node& written, Reader& reader) {
  const auto plain = [](const Node& r) {
    return r.kind == K::kReduce && !r.has_key() &&
           (r.op == targets::ReduceOp::kMax || r.op == targets::ReduceOp::kMin) &&
           std::none_of(r.binders.begin(), r.binders.end(),
                        [](const targets::Binder& b) { return b.has_range; });
  };
  if (!plain(n) || !plain(n.args[0]) || n.args[0].op != n.op ||
      n.binders.size() + n.args[0].binders.size() > kExhaustiveIndices)
    return std::nullopt;
  Node out = n;
  Node inner = std::move(out.args[0]);
  out.binders.insert(out.binders.end(), inner.binders.begin(), inner.binders.end());
  out.constraints.insert(out.constraints.end(), inner.constraints.begin(), inner.constraints.end());
  out.args[0] = std::move(inner.args[0]);
  reader.note(out, " (written " + targets::to_text(written) +
                                         ": nested reductions of one kind are one, E1)");
  return out;
}

}  // namespace

extern const Reading kNestedExtrema;  // registered in readings/registry.cpp
const Reading kNestedExtrema{"E1", "nested extrema", nested_as_one};

}  // namespace infoflow::theorems::detail
