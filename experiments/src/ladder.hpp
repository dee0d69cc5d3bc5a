#ifndef INFOFLOW_EXPERIMENTS_LADDER_HPP_
#define INFOFLOW_EXPERIMENTS_LADDER_HPP_

// The search for the parameters needed, M* (claim params_needed, docs/experiments.md): along a
// ladder of widths (the profile's list of the experiment's `arm`, E by default), the smallest
// rung whose trained best validation NMSE falls below kAccuracy, found by bisection, one seed
// at a time. The sweep asks it which run a search needs next; verification, where each ended.
// A search is a function of the runs already recorded, so a sweep killed at any point resumes
// it where it stood.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "infoflow/experiments/spec.hpp"

namespace infoflow::experiments {

/// The stated accuracy: a rung passes when its run's best validation NMSE is below this.
inline constexpr double kAccuracy = 0.1;

/// The key whose list is the ladder: the spec's `arm`, E if it names none.
std::string ladder_key(const ExperimentSpec& spec);

/// The runs that differ only in the ladder's key: one search, its rungs by rising width.
struct LadderLine {
  std::string name;  ///< the labels but the ladder's: "T = 8, k = 1, seed = 2"
  std::vector<const RunConfig*> rungs;
  /// The first `base` rungs are the profile's; the others widen it (`--budget`, wider()).
  std::size_t base = 0;
};

/// The searches of `runs` (a profile's, in its order: a line is where its first run is; runs
/// wider than the profile's ladder extend it). Throws InputError unless `key` is swept with at
/// least two distinct numbers.
std::vector<LadderLine> ladder_lines(const std::vector<RunConfig>& runs, const std::string& key,
                                     const ExperimentSpec& spec, const std::string& profile);

/// A recorded run as a search reads it.
struct Outcome {
  double nmse = 0;  ///< best validation NMSE; +inf for a diverged run
  bool converged = false;
};

/// Where a bisection stands.
struct Search {
  std::optional<std::size_t> next;  ///< the rung to run next (no record yet); none: settled
  std::size_t found = 0;            ///< settled: the first rung that passed; `rungs`: none did
  std::vector<std::size_t> failed;  ///< rungs visited that did not pass, rising
  std::vector<std::size_t> passed;  ///< rungs visited that passed, rising
};

/// Bisection over rungs 0..base-1 (a wider rung assumed to train no worse): the first rung
/// whose outcome passes, reading `outcome(i)` (none: not run yet) for the rungs it visits. If
/// none of them passes, the rungs base..rungs-1 that widen the ladder are tried in turn, so that
/// the runs recorded past the profile's ladder are always its first rungs.
Search bisect(std::size_t rungs, const std::function<std::optional<Outcome>(std::size_t)>& outcome,
              std::size_t base);

/// The run one rung past `run` on the ladder of `key`: twice its width (ffn_width,
/// readout_width, E or head_dim), its label and key updated. Throws InputError for another key.
RunConfig wider(RunConfig run, const std::string& key);

/// The most rungs a ladder is widened past the profile's widest (16 times its width).
inline constexpr int kMaxWidenings = 4;

}  // namespace infoflow::experiments

#endif  // INFOFLOW_EXPERIMENTS_LADDER_HPP_
