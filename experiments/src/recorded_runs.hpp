#ifndef INFOFLOW_EXPERIMENTS_RECORDED_RUNS_HPP_
#define INFOFLOW_EXPERIMENTS_RECORDED_RUNS_HPP_

// Runs beyond a profile's that `--budget` trains (allocation.hpp), and verification counts:
// more seeds of a configuration, a run trained longer in place of one that stopped at its step
// budget, and rungs past a ladder's widest. No list of them is kept: a record is such a run when
// the configuration it would be has the record's key (the same configuration and code version).

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "infoflow/experiments/results.hpp"
#include "infoflow/experiments/spec.hpp"

namespace infoflow::experiments {

/// The most times a run is trained twice as long as its profile says (16 times the steps).
inline constexpr int kMaxDoublings = 4;

/// `runs` (a profile's) with, in place of each run, its longest recorded longer() version, and
/// after them, in the records' order, the runs of the same configurations with other seeds (each
/// likewise in its longest recorded version) and, when `ladder` names a ladder's key, the rungs
/// past the widest of a search (ladder.hpp's wider(), at most kMaxWidenings).
std::vector<RunConfig> with_recorded_runs(std::vector<RunConfig> runs,
                                          const std::vector<RunRecord>& records,
                                          const std::string& ladder = "");

/// For each configuration of the profile's `runs` in the group `labels` (in_group's sense),
/// `count` runs with the seeds after the largest it has in `recorded` (with_recorded_runs()):
/// what `count` more seeds cost. They are the profile's configuration, as long as it says.
std::vector<RunConfig> more_seeds(const std::vector<RunConfig>& runs,
                                  const std::vector<RunConfig>& recorded,
                                  const std::map<std::string, std::string>& labels,
                                  std::size_t count);

/// The run trained again, at most twice as long, until the plateau: twice the cap of a run
/// trained until the plateau (until_plateau); a fixed budget of S steps becomes training until
/// the plateau from S on, at most 2S. A fixed cosine anneals to its last step, so its end
/// almost never passes the plateau test however long it is; held at the peak until the test
/// holds, a run can. Its labels are the run's; its key is not.
RunConfig longer(RunConfig run);

/// The run as planned before any longer(): the profile's run of its configuration with its seed
/// (another seed than the profile's included); none for a configuration the profile lacks (a
/// rung past the ladder).
std::optional<RunConfig> as_planned(const std::vector<RunConfig>& profile, const RunConfig& run);

/// How many times `run` is longer() than `planned` (0 if it is not).
int doublings(const RunConfig& run, const RunConfig& planned);

}  // namespace infoflow::experiments

#endif  // INFOFLOW_EXPERIMENTS_RECORDED_RUNS_HPP_
