// E1 for a selection: a selection whose body reads none of its indices is its body, whichever
// tuple the key selects (max(t by bilinear(A, x[s], x[t])) dot(a, x[s]) is dot(a, x[s])): no
// action, and a comparison of order 0.
#include <algorithm>

#include "infoflow/targets/node_algebra.hpp"

#include "readings/reading.hpp"

namespace infoflow::theorems::detail {

namespace {

using targets::Node;

std::optional<Node> idle_selection(const Node& n, const Node& written, Reader& reader) {
  if (n.kind != Node::Kind::kReduce || !n.has_key() ||
      std::any_of(n.binders.begin(), n.binders.end(), [&](const targets::Binder& b) {
        return targets::names_index(n.args[0], b.name);
      }))
    return std::nullopt;
  reader.note_idle(targets::to_text(written));
  return n.args[0];
}

}  // namespace

extern const Reading kIdleSelection;  // registered in readings/registry.cpp
const Reading kIdleSelection{"E1", "idle selection", idle_selection};

}  // namespace infoflow::theorems::detail
