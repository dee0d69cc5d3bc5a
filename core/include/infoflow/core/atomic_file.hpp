#ifndef INFOFLOW_CORE_ATOMIC_FILE_HPP_
#define INFOFLOW_CORE_ATOMIC_FILE_HPP_

/// \file
/// Whole-file writes that never leave a partial file: write a sibling temporary, flush it to
/// disk, then rename it over the target (rename is atomic within a file system).

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "infoflow/core/error.hpp"

namespace infoflow {

/// Writes `content` to `path` atomically. Throws Error (bad input), with the system's reason,
/// if the directory is not writable or the disk is full; on any failure the previous file, if
/// any, is left untouched.
inline void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  const auto fail = [](const std::string& what, int error) {
    throw Error("write_file_atomically(): " + what + ": " +
                    std::generic_category().message(error),
                ExitCode::kBadInput);
  };
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  std::string tmpl = (dir / ("." + path.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) fail("cannot create a temporary file in " + dir.string(), errno);
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t wrote = ::write(fd, content.data() + done, content.size() - done);
    if (wrote <= 0) {
      const int error = wrote < 0 ? errno : ENOSPC;
      ::close(fd);
      ::unlink(tmpl.c_str());
      fail("cannot write " + tmpl, error);
    }
    done += static_cast<std::size_t>(wrote);
  }
  ::fchmod(fd, 0644);
  const int synced = ::fsync(fd) == 0 ? 0 : errno;
  ::close(fd);
  if (synced != 0) {
    ::unlink(tmpl.c_str());
    fail("cannot write " + tmpl, synced);
  }
  if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(tmpl.c_str());
    fail("cannot move the output into " + path.string(), error);
  }
}

}  // namespace infoflow

#endif  // INFOFLOW_CORE_ATOMIC_FILE_HPP_
