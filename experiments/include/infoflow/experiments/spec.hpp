#ifndef INFOFLOW_EXPERIMENTS_SPEC_HPP_
#define INFOFLOW_EXPERIMENTS_SPEC_HPP_

/// \file
/// Experiments as data (experiments/*.toml) and the runs they expand to.
///
///   [experiment]
///   name = "intrinsic_dim"          # file-name-like
///   title = "..."                   # one line for tables
///   claim = "heads_phase"           # heads_phase | growth_in_T | exponent (docs/experiments.md)
///   task = "intrinsic_dim"          # a built-in task, or: formula = "..." (with d, inputs)
///   group = "D"                     # one claim per value of this key (optional)
///   arm = "heads"                   # the compared arms within a group
///   [profile.quick]                 # and [profile.full]
///   D = [2, 3]  T = [8]  heads = ["D,D", "D-1,D"]  E = [16]  seeds = [1, 2]
///   steps = 2000  batch = 64  lr = 3e-3  ...
///   until_plateau = 20000           # optional: on to the plateau, then a cool-down (train.hpp)
///
/// Lists are swept (the Cartesian product); single values are fixed. A run is keyed by a hash
/// of its whole configuration and the code version (numeric/build.hpp), so a sweep appends each
/// finished run to a JSON-lines file once, resumes where it stopped, and never mixes results of
/// other code.

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "infoflow/core/error.hpp"
#include "infoflow/numeric/tasks.hpp"
#include "infoflow/numeric/train.hpp"

namespace infoflow::experiments {

/// One training run of a sweep.
struct RunConfig {
  std::string experiment;
  numeric::TaskOptions task;  ///< a built-in task, when `formula` is empty
  std::string formula;        ///< else a formula, with task.tokens, token_dim and `bindings`
  targets::Bindings bindings;
  numeric::InputDistribution inputs;
  numeric::ModelConfig model;
  numeric::TrainOptions training;
  std::map<std::string, std::string> labels;  ///< the swept values: "D" -> "3", "heads" -> "(2,3)"
  std::string key;                            ///< hash of the canonical configuration + version

  /// The task this run trains on.
  [[nodiscard]] std::unique_ptr<numeric::Task> make() const;
};

struct ExperimentSpec {
  std::string name;
  std::string title;
  std::string claim;  ///< the name of a claim kind (claims/*.cpp)
  std::string group;
  std::string arm;
  /// A catalogue entry (a conjecture, say) whose verdict verify sets beside the engine's and the
  /// measured one, architecture by architecture; empty: none.
  std::string confront;
  SourceLocation confront_at;
  std::filesystem::path file;
  /// How a command names it: a shipped experiment by its name, any other by its file.
  std::string called;
  std::vector<std::string> profiles;
  /// The runs of a profile, in a fixed order; throws InputError (file:line:column) for an
  /// unknown key or an impossible configuration (bad heads, k > T, ...).
  [[nodiscard]] std::vector<RunConfig> runs(const std::string& profile) const;

  /// Loads and validates every profile (expands them all), so nothing starts on a bad spec.
  static ExperimentSpec load(const std::filesystem::path& file);

 private:
  struct Document;
  std::shared_ptr<const Document> toml_;  // the parsed document, kept for runs()
};

/// Specs by file or by name in `directory` (NAME.toml; a file of that name wins); with no
/// names, every *.toml of `directory` in name order. All are loaded, and so validated, before
/// any runs.
std::vector<ExperimentSpec> load_specs(const std::vector<std::string>& names,
                                       const std::filesystem::path& directory);

}  // namespace infoflow::experiments

#endif  // INFOFLOW_EXPERIMENTS_SPEC_HPP_
