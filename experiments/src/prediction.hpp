#ifndef INFOFLOW_EXPERIMENTS_PREDICTION_HPP_
#define INFOFLOW_EXPERIMENTS_PREDICTION_HPP_

// What the InfoFlow engine predicts for a run's configuration.

#include <string>
#include <utility>

#include "infoflow/experiments/spec.hpp"
#include "infoflow/targets/evaluator.hpp"
#include "infoflow/theorems/engine.hpp"

namespace infoflow::experiments {

/// A run's target as a formula with its integers (a built-in task's own formula).
std::pair<std::string, targets::Bindings> formula_of(const RunConfig& run);

/// The engine's plan for a run's configuration.
theorems::Plan predict(const RunConfig& run, theorems::Engine& engine);

/// The plan's exponent of 1/eps at the run's T; NaN where it is not a number.
double exponent_at(const theorems::Plan& p, long tokens);

}  // namespace infoflow::experiments

#endif  // INFOFLOW_EXPERIMENTS_PREDICTION_HPP_
