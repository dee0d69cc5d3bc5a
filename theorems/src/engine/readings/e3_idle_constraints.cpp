// E3: a closed extremum under `!=` constraints that takes the same values without them (the
// constraints never bind: max(s != t) (y_s - y_t) is at distinct tokens anyway, the maximum and
// the minimum of y) is compiled without them; they would couple indices that are free. Tried on
// random sequences, as E4. The compiler applies it to each token reduction as it compiles it.
#include <algorithm>
#include <string>

#include "readings/reading.hpp"

namespace infoflow::theorems::detail {

namespace {

using targets::Node;

std::optional<Node> without_idle_constraints(const Node& n, const Node& /*written*/,
                                             Reader& reader) {
  if (n.constraints.empty() || n.has_key() || n.op == targets::ReduceOp::kSum ||
      n.op == targets::ReduceOp::kKth ||
      std::any_of(n.constraints.begin(), n.constraints.end(),
                  [](const targets::IndexConstraint& c) { return c.strict_order; }) ||
      std::any_of(n.binders.begin(), n.binders.end(),
                  [](const targets::Binder& b) { return b.has_range; }))
    return std::nullopt;
  Node free = n;
  free.constraints.clear();
  for (targets::Binder& b : free.binders) b.from_chain = false;
  // nullopt: an index bound further out, a member of an unrolled family
  if (reader.same_values(n, free) != true) return std::nullopt;
  reader.note(free, " (written " + targets::to_text(n) +
                                          ": the constraints never bind on random sequences, E3)");
  return free;
}

}  // namespace

const Reading kIdleConstraints{"E3", "idle constraints", without_idle_constraints};

}  // namespace infoflow::theorems::detail
