#ifndef INFOFLOW_THEOREMS_HPP_
#define INFOFLOW_THEOREMS_HPP_

/// \file
/// Umbrella header of infoflow::theorems: the catalogue and its consistency check.

#include "infoflow/theorems/catalogue.hpp"
#include "infoflow/theorems/check.hpp"

#endif  // INFOFLOW_THEOREMS_HPP_
