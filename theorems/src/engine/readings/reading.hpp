#ifndef INFOFLOW_THEOREMS_ENGINE_READINGS_READING_HPP_
#define INFOFLOW_THEOREMS_ENGINE_READINGS_READING_HPP_

// The readings of a target (docs/infoflow_engine.md, "Quantities"): rewrites of its tree that
// keep its value and let the compiler see what the rules price (nested maxima as one, a range
// unrolled, a monotone function peeled off a score). Each reading is one file, readings/ID_WHAT.cpp
// named by its rule's id, defining its Reading; readings/registry.cpp lists the order the reader
// takes them in. A reading matches on the syntax tree, never on printed text. Internal to the
// engine.

#include <cstddef>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "infoflow/targets/formula.hpp"
#include "infoflow/targets/node_algebra.hpp"

namespace infoflow::theorems::detail {

class Reader;

struct Reading {
  const char* rule;  ///< the rule's id in docs/infoflow_engine.md (E0, E1, E3, R1, R5)
  const char* name;  ///< what it does, unique among the readings
  /// `n` rewritten, if the reading applies to it; `written` is `n` before its operands were read.
  std::optional<targets::Node> (*rewrite)(const targets::Node& n, const targets::Node& written,
                                          Reader& reader);
  /// Only in the engine's second reading (compile()'s `split_products`).
  bool second_reading_only = false;
};

/// What the reader does with a reading's result.
enum class Then {
  kReadAgain,  ///< read the result as a new node: every reading may apply to it
  kGoOn,       ///< the readings after this one see the result
  kDone,       ///< the result is the node as read
};

/// A reading at its place in the reader's order.
struct ReadingStep {
  const Reading* reading;
  bool before_operands;  ///< tried on the node as written, before its operands are read
  Then then;
};

/// The registry (readings/registry.cpp): the steps in the order the reader takes them.
std::span<const ReadingStep> reading_steps();

/// The reading of this name; nullptr if there is none.
const Reading* find_reading(std::string_view name);

/// E3, which the compiler applies to each token reduction as it compiles it, not to the tree.
extern const Reading kIdleConstraints;

/// Reads a target for the compiler: each node with its operands read, then the readings in the
/// registry's order. Holds what the readings found: how each rewritten reduction was written,
/// and the selections whose body reads none of their indices.
class Reader {
 public:
  /// `second_reading`: the engine's alternative program (compile()'s `split_products`).
  Reader(const targets::Bindings& bindings, long token_dim, bool second_reading);

  /// `n` with every reading of the registry applied (the operands first).
  targets::Node read(const targets::Node& n);

  /// Records how a rewritten reduction was written (once: a rewrite seen twice says it once).
  void note(const targets::Node& reduction, const std::string& how);
  using Notes = std::map<targets::Node, std::string, targets::ExpressionOrder>;
  /// Per rewritten reduction, how it was written.
  [[nodiscard]] const Notes& notes() const { return notes_; }
  /// Records a selection whose body reads none of its indices (no action).
  void note_idle(std::string selection) { idle_.push_back(std::move(selection)); }
  [[nodiscard]] const std::vector<std::string>& idle() const { return idle_; }

  /// The value of a range bound or rank; InputError at `column` where it has none.
  [[nodiscard]] long resolve(const targets::Bound& b, std::size_t column) const;
  /// E5: the value a closed reduction (no index bound further out) takes on every random
  /// sequence, if one (min(s, t) sqnorm(x[s] - x[t]) is 0: s = t is allowed).
  [[nodiscard]] std::optional<double> closed_constant(const targets::Node& n,
                                                     bool every_length = false) const;
  /// Whether `a` and `b` take the same values on random sequences (as E4 draws them); nullopt
  /// where either cannot be evaluated alone (an index bound further out).
  [[nodiscard]] std::optional<bool> same_values(const targets::Node& a,
                                                const targets::Node& b) const;
  [[nodiscard]] bool second_reading() const { return second_reading_; }

 private:
  const targets::Bindings& bindings_;
  long token_dim_ = 0;  // the target's d, if known: E4 and E5 try it too
  bool second_reading_ = false;
  Notes notes_;
  std::vector<std::string> idle_;
};

/// Whether a binder of reduction `n` runs over a range of its own, not over the tokens: an index
/// ranged 1..T that subscripts x runs over the tokens.
bool ranged(const targets::Binder& b, const targets::Node& n);

}  // namespace infoflow::theorems::detail

#endif  // INFOFLOW_THEOREMS_ENGINE_READINGS_READING_HPP_
