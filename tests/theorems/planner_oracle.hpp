#ifndef INFOFLOW_TESTS_THEOREMS_PLANNER_ORACLE_HPP_
#define INFOFLOW_TESTS_THEOREMS_PLANNER_ORACLE_HPP_

/// \file
/// An exhaustive planner for small targets, written from the rules of docs/theory.md (sections
/// 5 and 6) and the formula tree alone, apart from the engine's program and placement code, so
/// that the two can be compared (issue 46, item 5).
///
/// It reads a few shapes of term (extrema and selections by a linear score, k-th largests,
/// pairwise extrema, means, sums over distinct pairs, fixed positions, sums over a parameter
/// range) into the actions the rules need, merges identical actions, and then tries every
/// assignment of the actions to (layer, token class) slots: each global action at the input
/// tokens, at the readout or at both (the rules make identical actions one action only within a
/// class), at any layer, with the readout's carries in any later layers. Heads within one
/// (layer, token class) are interchangeable, so counting them per slot is the same as assigning
/// each action a head. A target it does not read is out of its range, never guessed at.

#include <optional>
#include <string>
#include <vector>

#include "infoflow/targets/formula.hpp"

namespace infoflow::planner_oracle {

/// One action of a plan (docs/theory.md, section 5.2, and the uniform mean R6).
struct Action {
  enum class Mode { kRetrieval, kPositions, kMean };
  std::string name;          ///< its mode and score: identical actions share it
  Mode mode = Mode::kRetrieval;
  bool token_only = false;   ///< one value at each token (a partner): an action at the tokens
  std::vector<int> inputs;   ///< earlier actions its score or mask reads
  bool output = false;       ///< the readout's final function reads its value
  long values = 0;           ///< kMean: how many values it averages
};

/// A target's readings: where a term can be read two ways (max |L| as one retrieval by the key
/// feature |L|, or as the retrievals of L and -L), each combination is a program.
struct Reading {
  std::vector<std::vector<Action>> programs;  ///< each in dependency order (inputs first)
  std::string out_of_range;                   ///< non-empty: why the oracle does not decide
};

/// What `formula` needs (d = token_dim), or why it is out of the oracle's range.
Reading read(const targets::Formula& formula, const targets::Bindings& bindings, long token_dim);

/// Whether every action fits on `heads` (one entry a layer) with head dimension n and width E:
/// the oracle's verdict "efficient" (no fallback to a k-th retrieval in one layer or to global
/// aggregation, whose costs grow with T). Fixed positions are fetched only where the model
/// encodes positions (`positional`): without, the tokens are exchangeable.
bool fits(const std::vector<Action>& actions, const std::vector<long>& heads, long head_dim,
          long embedding, bool positional);

/// Whether some program of the reading fits (the oracle's verdict on `heads`).
bool fits(const Reading& reading, const std::vector<long>& heads, long head_dim, long embedding,
          bool positional);

/// "R:a | C2:a <- R:a | ...": the actions of each program, for a failure message.
std::string describe(const Reading& reading);

}  // namespace infoflow::planner_oracle

#endif  // INFOFLOW_TESTS_THEOREMS_PLANNER_ORACLE_HPP_
