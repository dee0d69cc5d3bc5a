#ifndef INFOFLOW_SESSION_CHECK_HPP_
#define INFOFLOW_SESSION_CHECK_HPP_

/// \file
/// check: the options of the catalogue's consistency check, as both front ends take them.

#include "infoflow/theorems/check.hpp"

namespace infoflow::session {

/// check's --timeout-ms (Python's timeout_ms): 1 to limits::kSolverTimeoutMs milliseconds per
/// solver query. Throws InputError.
theorems::CheckOptions check_options(long timeout_ms);

}  // namespace infoflow::session

#endif  // INFOFLOW_SESSION_CHECK_HPP_
