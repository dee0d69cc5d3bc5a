#ifndef INFOFLOW_SESSION_SWEEP_HPP_
#define INFOFLOW_SESSION_SWEEP_HPP_

/// \file
/// sweep: the experiments and options of a sweep, checked before any run starts.

#include <filesystem>
#include <string>
#include <vector>

#include "infoflow/experiments/results.hpp"
#include "infoflow/experiments/spec.hpp"
#include "infoflow/experiments/sweep.hpp"

namespace infoflow::session {

struct SweepRequest {
  std::vector<std::string> experiments;  ///< files or shipped names; empty: every shipped one
  std::string profile = "quick";
  std::string results = "results";  ///< the folder of results files, NAME.jsonl each
  std::string shard = "0/1";
  std::vector<std::string> where;  ///< LABEL=VALUE
  long workers = 0;                ///< 0: one per core
  long checkpoint_every = experiments::SweepOptions{}.checkpoint_every;
};

inline constexpr long kMaxWorkers = 1024;
/// Throws InputError unless 0 <= workers <= kMaxWorkers (a sweep's, a budget's).
void check_workers(long workers);

struct PreparedSweep {
  std::vector<experiments::ExperimentSpec> specs;  ///< each has the profile
  experiments::SweepOptions options;
  std::filesystem::path results;

  [[nodiscard]] experiments::ResultStore store(const experiments::ExperimentSpec& spec) const;
};

/// Throws InputError for a bad option, an unknown experiment or one without the profile.
PreparedSweep prepare_sweep(const SweepRequest& request,
                            const std::filesystem::path& experiments_directory);

}  // namespace infoflow::session

#endif  // INFOFLOW_SESSION_SWEEP_HPP_
