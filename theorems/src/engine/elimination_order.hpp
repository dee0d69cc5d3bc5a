#ifndef INFOFLOW_THEOREMS_ENGINE_ELIMINATION_ORDER_HPP_
#define INFOFLOW_THEOREMS_ENGINE_ELIMINATION_ORDER_HPP_

// The search for an elimination order (docs/infoflow_engine.md, E1): which order of eliminating
// a reduction's token indices keeps every message on the fewest indices, then the shallowest.
// Pure: index sets in, an order out. Internal to the engine.

#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace infoflow::theorems::detail {

/// How many token indices a search over elimination orders tries exhaustively.
constexpr std::size_t kExhaustiveIndices = 6;

struct Elimination {
  std::vector<std::string> order;
  std::size_t widest = 0;  ///< the largest message scope
  std::size_t depth = 0;   ///< the longest chain of messages: layers the plan needs
  [[nodiscard]] bool better_than(const Elimination& o) const;
};

/// The best order to eliminate `bound` from factors over the index sets `factor_scopes` (the
/// narrowest widest message, then the shallowest): the written order, then, up to
/// kExhaustiveIndices indices, every order in alphabetical order, each taken only where strictly
/// better; beyond, the written order and the greedy one.
Elimination best_order(const std::vector<std::set<std::string>>& factor_scopes,
                       const std::vector<std::string>& bound);

}  // namespace infoflow::theorems::detail

#endif  // INFOFLOW_THEOREMS_ENGINE_ELIMINATION_ORDER_HPP_
