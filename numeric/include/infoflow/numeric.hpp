#ifndef INFOFLOW_NUMERIC_HPP_
#define INFOFLOW_NUMERIC_HPP_

/// \file
/// Umbrella header of the numeric core: the Eigen Transformer, its training and the tasks.

#include "infoflow/numeric/build.hpp"
#include "infoflow/numeric/checkpoint.hpp"
#include "infoflow/numeric/config.hpp"
#include "infoflow/numeric/fit.hpp"
#include "infoflow/numeric/inspect.hpp"
#include "infoflow/numeric/memory.hpp"
#include "infoflow/numeric/optimizer.hpp"
#include "infoflow/numeric/random.hpp"
#include "infoflow/numeric/run_settings.hpp"
#include "infoflow/numeric/tasks.hpp"
#include "infoflow/numeric/train.hpp"
#include "infoflow/numeric/transformer.hpp"

#endif  // INFOFLOW_NUMERIC_HPP_
