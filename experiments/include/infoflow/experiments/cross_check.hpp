#ifndef INFOFLOW_EXPERIMENTS_CROSS_CHECK_HPP_
#define INFOFLOW_EXPERIMENTS_CROSS_CHECK_HPP_

/// \file
/// One profile's verdicts against another's (the shipped full results against a quick run),
/// and a verification with that context around it.

#include <filesystem>
#include <string>
#include <vector>

#include "infoflow/experiments/verification.hpp"

namespace infoflow::experiments {

/// Adds to each claim's cross_check where `other` (the same experiment under another profile)
/// has a claim of the same configurations with another verdict: the same group, or the group
/// and the T that all of this claim's runs have (a full profile that varies T, a quick one
/// that fixes it); a claim at another T (the paper's T = 64, the full profile's T = 8) is not
/// the same configurations.
void cross_check(ExperimentResult& r, const ExperimentResult& other);

/// Where a profile's results are shipped: results/PROFILE/NAME.jsonl beside the spec.
std::filesystem::path shipped_results(const ExperimentSpec& spec, const std::string& profile);

/// verify(), and beside it what the commands show a reader: the command that runs the missing
/// runs into `results_file`'s folder; the verdicts of every other profile's shipped results
/// (shipped_results(), when they exist and are not `results_file` itself) through
/// cross_check(); the paper's reported values, where the spec has some, with their ratio to
/// ours.
ExperimentResult verify_in_context(const ExperimentSpec& spec, const std::string& profile,
                                   const std::vector<RunRecord>& records,
                                   const std::filesystem::path& results_file,
                                   theorems::Engine& engine);

}  // namespace infoflow::experiments

#endif  // INFOFLOW_EXPERIMENTS_CROSS_CHECK_HPP_
