#ifndef INFOFLOW_NUMERIC_EXPERIMENT_HPP_
#define INFOFLOW_NUMERIC_EXPERIMENT_HPP_

/// \file
/// Experiments as data (experiments/*.toml) and their sweeps.
///
///   [experiment]
///   name = "intrinsic_dim"          # file-name-like
///   title = "..."                   # one line for tables
///   claim = "heads_phase"           # heads_phase | growth_in_T | exponent (see
///   docs/experiments.md) task = "intrinsic_dim"          # a built-in task, or: formula = "..."
///   (with d, inputs) group = "D"                     # one claim per value of this key (optional)
///   arm = "heads"                   # the compared arms within a group
///   [profile.quick]                 # and [profile.full]
///   D = [2, 3]  T = [8]  heads = ["D,D", "D-1,D"]  E = [16]  seeds = [1, 2]
///   steps = 2000  batch = 64  lr = 3e-3  ...
///
/// Lists are swept (the Cartesian product); single values are fixed. A run is keyed by a hash
/// of its whole configuration and the code version, so a sweep appends each finished run to a
/// JSON-lines file once, resumes where it stopped, and never mixes results of other code.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "infoflow/core/error.hpp"
#include "infoflow/numeric/tasks.hpp"
#include "infoflow/numeric/train.hpp"

namespace infoflow::numeric {

/// Bumped whenever a change of the numeric core changes what a configuration produces.
/// 2: the GELU backward uses the forward's vectorised tanh (results of 1 differ in low bits).
inline constexpr const char* kCodeVersion = "infoflow-numeric-2";

/// What a run's bits depend on besides the code and its configuration: the instruction set this
/// build was compiled for (-march; CMake's INFOFLOW_MARCH) and its build type (optimisation
/// contracts floating-point operations into fused ones differently). Runs of any build but the
/// default (x86-64-v3, Release) are keyed apart and record both.
std::string instruction_set();
std::string build_type();
bool default_numeric_build();

/// One training run of a sweep.
struct RunConfig {
  std::string experiment;
  TaskOptions task;     ///< a built-in task, when `formula` is empty
  std::string formula;  ///< else a formula, with task.tokens, token_dim and `bindings`
  targets::Bindings bindings;
  InputDistribution inputs;
  ModelConfig model;
  TrainOptions training;
  std::map<std::string, std::string> labels;  ///< the swept values: "D" -> "3", "heads" -> "(2,3)"
  std::string key;                            ///< hash of the canonical configuration + version

  /// The task this run trains on.
  [[nodiscard]] std::unique_ptr<Task> make() const;
};

struct ExperimentSpec {
  std::string name;
  std::string title;
  std::string claim;
  std::string group;
  std::string arm;
  /// A catalogue entry (a conjecture, say) whose verdict verify sets beside the engine's and the
  /// measured one, architecture by architecture; empty: none.
  std::string confront;
  SourceLocation confront_at;
  std::filesystem::path file;
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

/// A finished run as stored: its labels, status and figures.
struct RunRecord {
  std::string key;
  std::string experiment;
  std::map<std::string, std::string> labels;
  RunStatus status = RunStatus::kBudgetReached;
  double best_validation_nmse = 0;
  double final_validation_nmse = 0;
  long steps_done = 0;
  long diverged_at = -1;
  long parameters = 0;
  long parameters_theory = 0;
  double seconds = 0;
  std::uint64_t seed = 0;
  /// The validation curve (step, NMSE); empty in records written before it was stored.
  std::vector<std::pair<long, double>> curve;
  [[nodiscard]] bool converged() const { return status == RunStatus::kConverged; }
};

/// The JSON-lines results file of a sweep. Each line is one run, written by one write() on an
/// O_APPEND descriptor and flushed to disk, so a crash leaves whole lines; a line that does not
/// parse (torn or edited) is reported and skipped. A failed append is cut back to the last whole
/// record and throws InputError with the system's reason.
class ResultStore {
 public:
  explicit ResultStore(std::filesystem::path file);
  /// The records on disk, first occurrence of each key; problems go to `warnings`.
  [[nodiscard]] std::vector<RunRecord> read(std::vector<std::string>* warnings = nullptr) const;
  void append(const RunConfig& run, const TrainResult& result) const;
  [[nodiscard]] const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
};

struct SweepOptions {
  std::string profile = "quick";
  Index shard = 0;  ///< run the runs whose index % shards == shard
  Index shards = 1;
  /// Only the runs whose labels take one of these values (label -> values; a label not named
  /// is free), e.g. a slice of a long profile to run first; empty: every run.
  std::map<std::string, std::set<std::string>> where;
  Index workers = 0;  ///< 0: one per core; each run uses one thread
  /// Steps between checkpoints of a run in progress (0: none). They are kept in
  /// RESULTS/checkpoints/NAME/KEY.ckpt, resumed from by the next sweep, and removed once the
  /// run is in the results file.
  Index checkpoint_every = 1000;
};

/// Where a sweep keeps the checkpoint of a run in progress.
std::filesystem::path checkpoint_path(const ResultStore& store, const RunConfig& run);

struct SweepProgress {
  Index done = 0;     ///< finished in this invocation
  Index total = 0;    ///< to run in this invocation
  Index skipped = 0;  ///< already in the results file
  double seconds = 0;
  double best_nmse = 0;
};

struct SweepSummary {
  Index runs = 0;       ///< in the profile (this shard)
  Index skipped = 0;    ///< found in the results file
  Index completed = 0;  ///< run now
  Index diverged = 0;   ///< run now and diverged (recorded as such)
  double seconds = 0;
  std::vector<std::string> warnings;
};

/// Runs what the results file lacks, in parallel, appending each finished run. Holds an
/// exclusive flock on the results file throughout; throws InputError if another sweep holds it.
SweepSummary run_sweep(const ExperimentSpec& spec, const ResultStore& store,
                       const SweepOptions& options,
                       const std::function<void(const SweepProgress&)>& progress = {});

/// Joins results files: every key once, corrupt lines reported and skipped. Throws InputError,
/// writing nothing, when one key holds different results in two places (both are shown).
std::vector<std::string> merge_results(const std::vector<std::filesystem::path>& inputs,
                                       const std::filesystem::path& output);

/// "LABEL=VALUE" -> (LABEL, VALUE); throws InputError on another form.
std::pair<std::string, std::string> parse_where(const std::string& text);

/// "i/N" -> (i, N); throws InputError unless 0 <= i < N.
std::pair<Index, Index> parse_shard(const std::string& text);

}  // namespace infoflow::numeric

#endif  // INFOFLOW_NUMERIC_EXPERIMENT_HPP_
