#ifndef INFOFLOW_EXPERIMENTS_RESULTS_HPP_
#define INFOFLOW_EXPERIMENTS_RESULTS_HPP_

/// \file
/// The results of a sweep: one JSON-lines file an experiment, one line a finished run.

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "infoflow/experiments/spec.hpp"
#include "infoflow/numeric/train.hpp"

namespace infoflow::experiments {

/// The fields of a record that tell how a run was made, not what it found: `seconds` (the time
/// it took) and `resumed_from` (the step it resumed from a checkpoint, 0 for a fresh run). Two
/// records of one run may differ in them; every other field is a result, or in the run's key.
inline const std::set<std::string> kBookkeeping{"seconds", "resumed_from"};

/// A finished run as stored: its labels, status and figures.
struct RunRecord {
  std::string key;
  std::string experiment;
  std::map<std::string, std::string> labels;
  numeric::RunStatus status = numeric::RunStatus::kBudgetReached;
  double best_validation_nmse = 0;
  double final_validation_nmse = 0;
  long steps_done = 0;
  long diverged_at = -1;
  long cooldown_start = 0;  ///< training until the plateau: where the cool-down began (0: none)
  long parameters = 0;
  long parameters_theory = 0;
  double seconds = 0;
  std::uint64_t seed = 0;
  /// The validation curve (step, NMSE); empty in records written before it was stored.
  std::vector<std::pair<long, double>> curve;
  [[nodiscard]] bool converged() const { return status == numeric::RunStatus::kConverged; }
};

/// The JSON-lines results file of a sweep. Each line is one run, written by one write() on an
/// O_APPEND descriptor and flushed to disk, so a crash leaves whole lines; a line that does not
/// parse (torn or edited), is nested deeper than limits::kNesting, or lacks a field or holds one
/// of the wrong type or range (a text for a figure, a negative count) is reported and skipped.
/// A failed append is cut back to the last whole record and throws InputError with the
/// system's reason.
class ResultStore {
 public:
  explicit ResultStore(std::filesystem::path file);
  /// The records on disk, first occurrence of each key; problems go to `warnings`.
  [[nodiscard]] std::vector<RunRecord> read(std::vector<std::string>* warnings = nullptr) const;
  void append(const RunConfig& run, const numeric::TrainResult& result) const;
  [[nodiscard]] const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
};

/// Joins results files: every key once, corrupt lines (as ResultStore::read finds them)
/// reported and skipped. Throws InputError, writing nothing, when one key holds different
/// results in two places (both are shown; bookkeeping may differ), or when a sweep holds the
/// output's lock (the sweep's own, sweep.hpp).
std::vector<std::string> merge_results(const std::vector<std::filesystem::path>& inputs,
                                       const std::filesystem::path& output);

}  // namespace infoflow::experiments

#endif  // INFOFLOW_EXPERIMENTS_RESULTS_HPP_
