#ifndef INFOFLOW_CORE_PROGRESS_HPP_
#define INFOFLOW_CORE_PROGRESS_HPP_

/// \file
/// What a long computation is doing now (the engine's search, a construction), for a progress
/// line the command draws while it waits (derive, plan, construct). The computation says which
/// stage it is in; a watcher reads it. Observational only: nothing computed depends on it.

#include <mutex>
#include <string>
#include <utility>

namespace infoflow::core::progress {

struct Status {
  std::string stage;  ///< "architectures searched", "measuring the NMSE"; empty: none said
  long done = 0;
  long total = 0;  ///< 0: no count
};

namespace detail {
inline std::pair<std::mutex&, Status&> state() {
  static std::mutex mutex;
  static Status status;
  return {mutex, status};
}
}  // namespace detail

/// Says which stage the computation is in (and how far, where it counts).
inline void set(std::string stage, long done = 0, long total = 0) {
  auto [mutex, status] = detail::state();
  const std::lock_guard<std::mutex> lock(mutex);
  status = Status{std::move(stage), done, total};
}

inline Status get() {
  auto [mutex, status] = detail::state();
  const std::lock_guard<std::mutex> lock(mutex);
  return status;
}

}  // namespace infoflow::core::progress

#endif  // INFOFLOW_CORE_PROGRESS_HPP_
