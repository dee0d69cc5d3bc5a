#ifndef INFOFLOW_THEOREMS_HPP_
#define INFOFLOW_THEOREMS_HPP_

/// \file
/// Umbrella header of infoflow::theorems: the catalogue, its consistency check, the InfoFlow engine.

#include "infoflow/theorems/catalogue.hpp"
#include "infoflow/theorems/check.hpp"
#include "infoflow/theorems/engine.hpp"

#endif  // INFOFLOW_THEOREMS_HPP_
