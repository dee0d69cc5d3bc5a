#ifndef INFOFLOW_EXPERIMENTS_RECORDED_SEEDS_HPP_
#define INFOFLOW_EXPERIMENTS_RECORDED_SEEDS_HPP_

// Seeds beyond a profile's: `--budget` adds seeds to the configurations of a claim whose
// interval straddles a boundary, and verification counts them. No list of them is kept: a
// record is a run of a configuration with another seed when the configuration with that seed
// has the record's key (the same configuration and code version).

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "infoflow/experiments/results.hpp"
#include "infoflow/experiments/spec.hpp"

namespace infoflow::experiments {

/// `runs` (a profile's) and after them, in the records' order, the runs of the same
/// configurations with other seeds that `records` hold.
std::vector<RunConfig> with_recorded_seeds(std::vector<RunConfig> runs,
                                           const std::vector<RunRecord>& records);

/// For each configuration of `runs` in the group `labels` (in_group's sense), `count` runs with
/// the seeds after the largest it has: what `count` more seeds cost.
std::vector<RunConfig> more_seeds(const std::vector<RunConfig>& runs,
                                  const std::map<std::string, std::string>& labels,
                                  std::size_t count);

}  // namespace infoflow::experiments

#endif  // INFOFLOW_EXPERIMENTS_RECORDED_SEEDS_HPP_
