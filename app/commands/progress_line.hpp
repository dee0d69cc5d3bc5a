#ifndef INFOFLOW_APP_PROGRESS_LINE_HPP_
#define INFOFLOW_APP_PROGRESS_LINE_HPP_

// A line on standard error, redrawn in place, that says what a long command is doing (the
// stage core/progress.hpp holds) and for how long; train's, and derive's, plan's and
// construct's from 5 s on.

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace infoflow::app {

/// Only on a terminal, outside CI: a log or a pipe gets no redrawn lines.
bool progress_wanted();

/// From 5 s on (INFOFLOW_PROGRESS_AFTER seconds, where set), while it lives, a watcher redraws
/// "infoflow derive: 12 s: architectures searched 2041 of 4680" twice a second; the line is
/// cleared when it ends, before the command prints its output.
class ProgressLine {
 public:
  explicit ProgressLine(std::string command);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

 private:
  void watch(double after_seconds);

  std::string command_;
  std::mutex mutex_;
  std::condition_variable stopped_;
  bool done_ = false;
  std::thread watcher_;
};

}  // namespace infoflow::app

#endif  // INFOFLOW_APP_PROGRESS_LINE_HPP_
