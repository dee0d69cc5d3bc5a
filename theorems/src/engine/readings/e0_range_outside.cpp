// E0: a maximum over tokens of a maximum over a range (or minima) is the maximum over the range
// of the maximum over tokens, which the range unrolls into copies: max(t) max(i = 1..2)
// dot(a[i], x[t]) is two retrievals, as written the other way round. The second reading only:
// where an FFN computes the inner maximum at each token (max_i |A_i x_t|), one retrieval after it
// is cheaper.
#include <algorithm>

#include "readings/reading.hpp"

namespace infoflow::theorems::detail {

namespace {

using targets::Node;
using K = targets::Node::Kind;

std::optional<Node> range_outside(const Node& n, const Node& /*written*/, Reader& /*reader*/) {
  const auto plain = [](const Node& r) {
    return r.kind == K::kReduce && !r.has_key() && r.constraints.empty() &&
           (r.op == targets::ReduceOp::kMax || r.op == targets::ReduceOp::kMin);
  };
  if (!plain(n) || !plain(n.args[0]) || n.args[0].op != n.op) return std::nullopt;
  const Node& inner = n.args[0];
  if (std::any_of(n.binders.begin(), n.binders.end(),
                  [&](const targets::Binder& b) { return ranged(b, n); }) ||
      !std::all_of(inner.binders.begin(), inner.binders.end(),
                   [&](const targets::Binder& b) { return ranged(b, inner); }))
    return std::nullopt;
  Node outer = n;
  outer.args[0] = inner.args[0];
  Node out = inner;
  out.args[0] = std::move(outer);
  return out;
}

}  // namespace

extern const Reading kRangeOutside;  // registered in readings/registry.cpp
const Reading kRangeOutside{"E0", "range outside", range_outside, true};

}  // namespace infoflow::theorems::detail
