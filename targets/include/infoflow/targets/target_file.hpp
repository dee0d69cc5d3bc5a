#ifndef INFOFLOW_TARGETS_TARGET_FILE_HPP_
#define INFOFLOW_TARGETS_TARGET_FILE_HPP_

/// \file
/// Targets kept in data files (TOML), one [[target]] table each:
///
///   [[target]]
///   name = "intrinsic_dim"                                 # required, [A-Za-z0-9_]+
///   formula = "sum(i = 1..D) max(s, t) bilinear(A[i], x[s], x[t])"   # required
///   family = "retrieval"      # the catalogue family it belongs to (default): its derived
///                             # bounds are stated for a new family target.NAME inside it
///   same_as = "kth_retrieval" # instead: the target IS that catalogue family
///   d = 4                     # token dimension (default 4)
///   set = { D = 2, T = 8 }    # values of the formula's named integers; T: for training
///   inputs = { variance = 1.0, min_norm = 0.2, max_norm = 4.0 }   # default N(0, I_d)
///   E = 16                    # embedding of the architectures below (default 16)
///   pe = false                # positional encoding (default: on if the formula reads x[p])
///   architectures = ["2,2", "1,2"]   # heads per layer: bounds derived for `check --targets`
///   notes = "..."
///
///   [target.task]             # optional: the target is the built-in task `train --task NAME`
///   description = "min_{s != t} <x(s), x(t)>; ${inputs}"   # reports; ${T}, ${D}, ${k}, ${T0}
///                             # and ${d} are the task's values, ${inputs} its input distribution
///   limits = { T = "2..", k = "1..T" }   # the values the task accepts: low.. or low..high
///   pe = false                # the positional encoding it trains with (default: as above)
///   summation = "blocked"     # the order of its sums (Summation; default "per_token")
///   plain_norm = { formula = "...", description = "..." }   # what --norm plain trains
///
/// The built-in tasks are the entries of targets/targets.toml with a task table; the file is
/// compiled into the library (builtin_targets()). Their values of D, k and T0 come from the
/// training options, not from `set`, which is for the derivation.
///
/// Errors name the file, line and column (a formula's, at its character).

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "infoflow/core/architecture.hpp"
#include "infoflow/targets/evaluator.hpp"
#include "infoflow/targets/formula.hpp"

namespace infoflow::targets {

/// The values a task accepts for one of its integers: low.., or low..high with high a number
/// or another integer (k = "1..T").
struct IntegerLimit {
  long low = 1;
  std::string high;  ///< "" for no upper limit
};

/// How a built-in task trains ([target.task]).
struct TaskSpec {
  std::string description;
  std::map<std::string, IntegerLimit, std::less<>> limits;
  bool positional = false;
  Summation summation = Summation::kPerToken;
  std::optional<Formula> plain_norm;  ///< --norm plain
  std::string plain_norm_description;
};

struct TargetSpec {
  std::string name;
  Formula formula;
  std::string family = "retrieval";
  bool same_as_family = false;  ///< `same_as`: the target is exactly that family
  long token_dim = core::defaults::kTokenDim;
  Bindings set;
  double variance = 1.0;
  double min_norm = 0.0;
  double max_norm = 0.0;  ///< 0: no clamp
  long embedding = core::defaults::kEmbedding;
  bool positional = false;
  std::vector<std::vector<long>> architectures;
  std::string notes;
  std::optional<TaskSpec> task;
  SourceLocation where;
};

/// Loads every [[target]] of a file; throws InputError (file:line:column) on any problem:
/// malformed TOML, unknown or missing keys, a bad formula, a duplicate name.
std::vector<TargetSpec> load_targets(const std::filesystem::path& file);

/// The same from TOML text; `file` names it in errors.
std::vector<TargetSpec> parse_targets(std::string_view text, const std::filesystem::path& file);

/// targets/targets.toml as built into the library: the built-in tasks and their derivations.
const std::vector<TargetSpec>& builtin_targets();

/// The formula's named integers, T aside, that the target gives no value.
std::vector<std::string> unset_integers(const TargetSpec& target);
/// The one unset integer of a target whose condition on it is asked for (`derive` without its
/// value), or "" if every integer is set. InputError if more than one is unset, or if one is
/// and `conditions_wanted` is false (an output form without conditions).
std::string unset_integer_for_conditions(const TargetSpec& target, bool conditions_wanted);

/// Why inputs drawn from N(0, variance I_d), each token's norm clamped to [min_norm, max_norm]
/// (max_norm 0: no clamp), cannot be used, or "" if they can: a target file's and an experiment
/// spec's `inputs` are checked by this. The variance lies within 1e-6 and 1e6, so that a target's
/// values, products of a few inputs, and their variance stay far from underflow and overflow.
std::string input_distribution_problem(double variance, double min_norm, double max_norm);

/// "2,2" -> {2, 2}; throws InputError naming `where` on anything but positive integers.
std::vector<long> parse_heads(const std::string& text, const SourceLocation& where = {});

}  // namespace infoflow::targets

#endif  // INFOFLOW_TARGETS_TARGET_FILE_HPP_
