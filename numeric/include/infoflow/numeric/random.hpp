#ifndef INFOFLOW_NUMERIC_RANDOM_HPP_
#define INFOFLOW_NUMERIC_RANDOM_HPP_

/// \file
/// The numeric core's random numbers are the project's (core/random.hpp), shared with the
/// target language so that a formula and a built-in task draw the same parameters.

#include "infoflow/core/random.hpp"

namespace infoflow::numeric {
using infoflow::derive_seed;
using infoflow::Rng;
using infoflow::splitmix64;
}  // namespace infoflow::numeric

#endif  // INFOFLOW_NUMERIC_RANDOM_HPP_
