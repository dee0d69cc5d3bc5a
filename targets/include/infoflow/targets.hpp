#ifndef INFOFLOW_TARGETS_HPP_
#define INFOFLOW_TARGETS_HPP_

/// \file
/// Umbrella header of the target language: formulas, their evaluation, target files.

#include "infoflow/targets/evaluator.hpp"
#include "infoflow/targets/formula.hpp"
#include "infoflow/targets/target_file.hpp"

#endif  // INFOFLOW_TARGETS_HPP_
