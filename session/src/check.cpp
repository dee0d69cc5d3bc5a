#include "infoflow/session/check.hpp"

#include "infoflow/core/limits.hpp"

namespace infoflow::session {

theorems::CheckOptions check_options(long timeout_ms) {
  limits::check_in_range(timeout_ms, 1, limits::kSolverTimeoutMs, "the solver timeout in ms");
  theorems::CheckOptions options;
  options.solver_timeout_ms = static_cast<unsigned>(timeout_ms);
  return options;
}

}  // namespace infoflow::session
