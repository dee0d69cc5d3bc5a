#ifndef INFOFLOW_SYMBOLIC_HPP_
#define INFOFLOW_SYMBOLIC_HPP_

/// \file
/// Umbrella header of infoflow::symbolic: symbols, formulas, rates, signs and comparisons.

#include "infoflow/symbolic/canonical.hpp"
#include "infoflow/symbolic/compare.hpp"
#include "infoflow/symbolic/expression.hpp"
#include "infoflow/symbolic/rate.hpp"
#include "infoflow/symbolic/sign.hpp"
#include "infoflow/symbolic/symbols.hpp"

#endif  // INFOFLOW_SYMBOLIC_HPP_
