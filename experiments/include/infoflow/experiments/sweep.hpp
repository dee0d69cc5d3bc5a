#ifndef INFOFLOW_EXPERIMENTS_SWEEP_HPP_
#define INFOFLOW_EXPERIMENTS_SWEEP_HPP_

/// \file
/// Running a profile's grid: what the results file lacks, in parallel, resuming.

#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "infoflow/experiments/results.hpp"
#include "infoflow/experiments/spec.hpp"
#include "infoflow/numeric/config.hpp"

namespace infoflow::experiments {

struct SweepOptions {
  std::string profile = "quick";
  /// Run the runs whose index % shards == shard; for a kind that searches a ladder
  /// (params_needed), the searches whose index is.
  numeric::Index shard = 0;
  numeric::Index shards = 1;
  /// Only the runs whose labels take one of these values (label -> values; a label not named
  /// is free), e.g. a slice of a long profile to run first; empty: every run.
  std::map<std::string, std::set<std::string>> where;
  numeric::Index workers = 0;  ///< 0: one per core; each run uses one thread
  /// Steps between checkpoints of a run in progress (0: none). They are kept in
  /// RESULTS/checkpoints/NAME/KEY.ckpt, resumed from by the next sweep, and removed once the
  /// run is in the results file.
  numeric::Index checkpoint_every = 1000;
};

/// Where a sweep keeps the checkpoint of a run in progress.
std::filesystem::path checkpoint_path(const ResultStore& store, const RunConfig& run);

struct SweepProgress {
  numeric::Index done = 0;     ///< finished in this invocation
  numeric::Index total = 0;    ///< to run in this invocation
  numeric::Index skipped = 0;  ///< already in the results file
  double seconds = 0;
  double best_nmse = 0;
};

struct SweepSummary {
  /// In the profile (this shard); for searches along a ladder, the runs they visited.
  numeric::Index runs = 0;
  numeric::Index skipped = 0;    ///< found in the results file
  numeric::Index completed = 0;  ///< run now
  numeric::Index diverged = 0;   ///< run now and diverged (recorded as such)
  double seconds = 0;
  std::vector<std::string> warnings;
};

/// Runs what the results file lacks, in parallel, appending each finished run. For a kind that
/// searches a ladder (params_needed), only the runs the searches need: each search's next run
/// follows from its recorded ones, so an interrupted sweep resumes every search where it stood. Holds an
/// exclusive flock on the results file throughout; throws InputError if another sweep holds it.
SweepSummary run_sweep(const ExperimentSpec& spec, const ResultStore& store,
                       const SweepOptions& options,
                       const std::function<void(const SweepProgress&)>& progress = {});

/// run_sweep() on the runs `runs` (configurations of `spec`, e.g. a profile's with more seeds)
/// instead of the profile's; options.profile only names the profile in messages.
SweepSummary sweep_runs(const ExperimentSpec& spec, const ResultStore& store,
                        const std::vector<RunConfig>& runs, const SweepOptions& options,
                        const std::function<void(const SweepProgress&)>& progress = {});

/// "LABEL=VALUE" -> (LABEL, VALUE); throws InputError on another form.
std::pair<std::string, std::string> parse_where(const std::string& text);

/// "i/N" -> (i, N); throws InputError unless 0 <= i < N.
std::pair<numeric::Index, numeric::Index> parse_shard(const std::string& text);

}  // namespace infoflow::experiments

#endif  // INFOFLOW_EXPERIMENTS_SWEEP_HPP_
