#ifndef INFOFLOW_EXPERIMENTS_CONSTRUCTED_HPP_
#define INFOFLOW_EXPERIMENTS_CONSTRUCTED_HPP_

/// \file
/// Constructions beside training (docs/experiments.md, "Constructed beside trained"). For each
/// configuration of an experiment that the engine calls efficient, the engine's plan is
/// compiled into the weights of the runs' architecture at their FFN width (construct/) and
/// measured on fresh inputs. A construction shows that a network of that architecture computes
/// the target to the measured NMSE; where it is below training's median, the difference is an
/// optimisation gap. Claims about lower bounds rest on training alone: a construction cannot
/// show that no network exists.

#include "infoflow/construct/construction.hpp"
#include "infoflow/experiments/verification.hpp"
#include "infoflow/theorems/engine.hpp"

namespace infoflow::experiments {

/// Fills result.constructed, and each claim's `constructed` and `evidence`. `options` gives
/// beta, the samples and seeds; the FFN width and the task seed are each configuration's.
void add_constructions(ExperimentResult& result, theorems::Engine& engine,
                       const construct::ConstructOptions& options = {});

}  // namespace infoflow::experiments

#endif  // INFOFLOW_EXPERIMENTS_CONSTRUCTED_HPP_
