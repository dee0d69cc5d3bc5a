#include "commands/progress_line.hpp"

#include <chrono>
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>

#include "infoflow/core/progress.hpp"

#include <unistd.h>

namespace infoflow::app {

bool progress_wanted() {
  return ::isatty(STDERR_FILENO) == 1 && std::getenv("CI") == nullptr;
}

ProgressLine::ProgressLine(std::string command) : command_(std::move(command)) {
  core::progress::set("");
  if (!progress_wanted()) return;
  double after = 5;
  if (const char* text = std::getenv("INFOFLOW_PROGRESS_AFTER")) {
    char* end = nullptr;
    const double value = std::strtod(text, &end);
    if (end != text && *end == '\0' && value >= 0) after = value;
  }
  watcher_ = std::thread([this, after] { watch(after); });
}

ProgressLine::~ProgressLine() {
  if (!watcher_.joinable()) return;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  stopped_.notify_all();
  watcher_.join();
}

void ProgressLine::watch(double after_seconds) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  if (stopped_.wait_for(lock, std::chrono::duration<double>(after_seconds),
                        [this] { return done_; }))
    return;
  do {
    const core::progress::Status s = core::progress::get();
    const auto seconds =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start)
            .count();
    std::string line = fmt::format("infoflow {}: {} s", command_, seconds);
    if (!s.stage.empty()) line += ": " + s.stage;
    if (s.total > 0) line += fmt::format(" {} of {}", s.done, s.total);
    std::cerr << "\r\033[K" << line << std::flush;
  } while (!stopped_.wait_for(lock, std::chrono::milliseconds(500), [this] { return done_; }));
  std::cerr << "\r\033[K" << std::flush;
}

}  // namespace infoflow::app
