#ifndef INFOFLOW_EXPERIMENTS_CROSS_CHECK_HPP_
#define INFOFLOW_EXPERIMENTS_CROSS_CHECK_HPP_

/// \file
/// One profile's verdicts against another's (the shipped full results against a quick run).

#include "infoflow/experiments/verification.hpp"

namespace infoflow::experiments {

/// Sets each claim's cross_check where `other` (the same experiment under another profile)
/// has a claim of the same configurations with another verdict: the same group, or the group
/// and the T that all of this claim's runs have (a full profile that varies T, a quick one
/// that fixes it).
void cross_check(ExperimentResult& r, const ExperimentResult& other);

}  // namespace infoflow::experiments

#endif  // INFOFLOW_EXPERIMENTS_CROSS_CHECK_HPP_
