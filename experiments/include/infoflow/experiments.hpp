#ifndef INFOFLOW_EXPERIMENTS_HPP_
#define INFOFLOW_EXPERIMENTS_HPP_

/// \file
/// Umbrella header of infoflow::experiments: experiment specs and their sweeps, the results
/// store, and the verification of each claim against the engine's prediction.

#include "infoflow/experiments/allocation.hpp"
#include "infoflow/experiments/cross_check.hpp"
#include "infoflow/experiments/reported.hpp"
#include "infoflow/experiments/results.hpp"
#include "infoflow/experiments/settings_json.hpp"
#include "infoflow/experiments/spec.hpp"
#include "infoflow/experiments/sweep.hpp"
#include "infoflow/experiments/verification.hpp"

#endif  // INFOFLOW_EXPERIMENTS_HPP_
