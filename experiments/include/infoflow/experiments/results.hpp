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

/// The layout of the records ResultStore::append writes, in each record's `schema` field.
/// 1: the records written before they carried one (no `schema` field): `converged`, `curve`,
/// `best_step`, `resumed_from`, `code_version`, `march`, `build_type` and `target_std` may be
/// missing. 2: every one of them is there. A record of a later schema is corrupt to this build.
inline constexpr int kRecordSchema = 2;

/// The fields of a record that tell how a run was made, not what it found: `seconds` (the time
/// it took), `resumed_from` (the step it resumed from a checkpoint, 0 for a fresh run) and
/// `schema` (how it was written down). Two records of one run may differ in them; every other
/// field is a result, or in the run's key.
inline const std::set<std::string> kBookkeeping{"seconds", "resumed_from", "schema"};

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
  /// Where the results file holds this run again with other results, and in which fields
  /// ("run KEY at FILE:LINE and at FILE:LINE differs: ..."); empty when its records agree. Such
  /// a run is recorded (a sweep does not run it again) but is no evidence either way.
  std::string conflict;
  [[nodiscard]] bool converged() const { return status == numeric::RunStatus::kConverged; }
};

/// The JSON-lines results file of a sweep. Each line is one run, written by one write() on an
/// O_APPEND descriptor and flushed to disk, so a crash leaves whole lines; a line that does not
/// parse (torn or edited), is nested deeper than limits::kNesting, is of a later schema than
/// kRecordSchema, or lacks a field its schema has or holds one of the wrong type or range (a
/// text for a figure, a negative count, `converged` other than the status says) is reported
/// with its file and line and skipped. A record marked diverged (its status, or a `diverged_at`
/// step) whose final NMSE is finite is reported and read as diverged. A failed append is cut
/// back to the last whole record and throws InputError with the system's reason.
class ResultStore {
 public:
  explicit ResultStore(std::filesystem::path file);
  /// The records on disk, first occurrence of each key; problems go to `warnings`, each with
  /// its file and line. A key recorded twice with different results is a warning, and its
  /// record carries the conflict (RunRecord::conflict).
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
