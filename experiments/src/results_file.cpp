#include "results_file.hpp"

#include <cerrno>
#include <system_error>

#include "infoflow/core/error.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace infoflow::experiments {

namespace fs = std::filesystem;

[[noreturn]] void io_failure(const std::string& what, const fs::path& file, int error) {
  throw InputError(SourceLocation{file.string(), 0, 0},
                   what + ": " + std::generic_category().message(error));
}

void create_parent(const fs::path& file) {
  if (!file.has_parent_path()) return;
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  if (ec) io_failure("cannot create the results folder", file.parent_path(), ec.value());
}

ResultsLock::ResultsLock(const fs::path& file, const std::string& busy) : file_(file) {
  while (true) {
    // O_NONBLOCK: a FIFO opens without a writer (the output is then written to it directly).
    fd_ = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    created_ = fd_ < 0 && errno == ENOENT;
    if (created_)
      fd_ = ::open(file.c_str(), O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NONBLOCK, 0644);
    if (fd_ < 0 && errno == EEXIST) continue;  // created by another writer just now
    if (fd_ < 0) io_failure("cannot open the results file", file, errno);
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      ::close(fd_);
      fd_ = -1;
      if (error == EWOULDBLOCK) throw InputError(SourceLocation{file.string(), 0, 0}, busy);
      io_failure("cannot lock the results file", file, error);
    }
    // The holder before us may have replaced or removed the file: then ours is no lock on it.
    if (at_path()) return;
    ::close(fd_);
    fd_ = -1;
  }
}

bool ResultsLock::at_path() const {
  struct stat held {};
  struct stat now {};
  return ::fstat(fd_, &held) == 0 && ::stat(file_.c_str(), &now) == 0 &&
         held.st_dev == now.st_dev && held.st_ino == now.st_ino;
}

ResultsLock::~ResultsLock() {
  struct stat held {};
  if (created_ && ::fstat(fd_, &held) == 0 && held.st_size == 0 && at_path()) ::unlink(file_.c_str());
  ::close(fd_);
}

}  // namespace infoflow::experiments
