#ifndef INFOFLOW_SESSION_HPP_
#define INFOFLOW_SESSION_HPP_

/// \file
/// Umbrella header of the workflow layer: what the `infoflow` command and the Python module
/// both call, so that neither front end holds logic the other lacks.

#include "infoflow/session/check.hpp"
#include "infoflow/session/compare.hpp"
#include "infoflow/session/construct.hpp"
#include "infoflow/session/derive.hpp"
#include "infoflow/session/plan.hpp"
#include "infoflow/session/sweep.hpp"
#include "infoflow/session/target_request.hpp"
#include "infoflow/session/train.hpp"
#include "infoflow/session/verify.hpp"

#endif  // INFOFLOW_SESSION_HPP_
