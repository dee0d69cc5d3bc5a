#ifndef INFOFLOW_EXPERIMENTS_RESULTS_FILE_HPP_
#define INFOFLOW_EXPERIMENTS_RESULTS_FILE_HPP_

// A results file's I/O failures, as InputError with the system's reason, and its lock: shared
// by the store (results.cpp), the sweep (sweep.cpp) and merge, which all write it.

#include <filesystem>
#include <string>

namespace infoflow::experiments {

/// "what file: the system's reason", for an I/O call that failed with `error`.
[[noreturn]] void io_failure(const std::string& what, const std::filesystem::path& file, int error);

/// Creates the folder `file` goes in, if it has one.
void create_parent(const std::filesystem::path& file);

/// An exclusive advisory lock (flock) on a results file, held by whoever writes it: a sweep for
/// its whole run, merge -o while it replaces it. A second writer is refused (InputError, with
/// `busy` as the message) instead of running everything again or replacing the file under the
/// first. The lock is on the file at the path when it is taken: a file replaced meanwhile (by a
/// merge's rename) is locked afresh.
class ResultsLock {
 public:
  ResultsLock(const std::filesystem::path& file, const std::string& busy);
  ResultsLock(const ResultsLock&) = delete;
  ResultsLock& operator=(const ResultsLock&) = delete;
  /// Releases the lock; a file the lock created and nobody wrote is removed first, so that a
  /// writer that failed leaves no file behind.
  ~ResultsLock();

 private:
  /// Whether the locked file is still the one at the path.
  [[nodiscard]] bool at_path() const;
  std::filesystem::path file_;
  int fd_ = -1;
  bool created_ = false;
};

}  // namespace infoflow::experiments

#endif  // INFOFLOW_EXPERIMENTS_RESULTS_FILE_HPP_
