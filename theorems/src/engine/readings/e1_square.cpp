// E1 for squares: u * u is u^2, which the rules for |E| and E^2 read (max(t) y * y is max |y|,
// two retrievals).
#include "infoflow/targets/node_algebra.hpp"

#include "readings/reading.hpp"
#include "terms.hpp"

namespace infoflow::theorems::detail {

namespace {

using targets::Node;
using K = targets::Node::Kind;

std::optional<Node> square(const Node& n, const Node& /*written*/, Reader& /*reader*/) {
  if (n.kind != K::kMul || !targets::mentions_token(n.args[0]) ||
      canonical(n.args[0], {}) != canonical(n.args[1], {}))
    return std::nullopt;
  Node out;
  out.kind = K::kPow;
  out.args = {n.args[0], Node{}};
  out.args[1].number = 2;
  return out;
}

}  // namespace

extern const Reading kSquare;  // registered in readings/registry.cpp
const Reading kSquare{"E1", "square", square};

}  // namespace infoflow::theorems::detail
