#ifndef INFOFLOW_CORE_ATOMIC_FILE_HPP_
#define INFOFLOW_CORE_ATOMIC_FILE_HPP_

/// \file
/// Whole-file writes that never leave a partial file: write a sibling temporary, flush it to
/// disk, then rename it over the target (rename is atomic within a file system).

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

/// Writes `content` to `path` atomically. Throws Error (bad input) if the directory is not
/// writable; on any failure the previous file, if any, is left untouched.
inline void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  std::string tmpl = (dir / ("." + path.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) {
    throw Error("write_file_atomically(): cannot create a temporary file in " + dir.string(),
                ExitCode::kBadInput);
  }
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t wrote = ::write(fd, content.data() + done, content.size() - done);
    if (wrote <= 0) {
      ::close(fd);
      ::unlink(tmpl.c_str());
      throw Error("write_file_atomically(): write to " + tmpl + " failed", ExitCode::kBadInput);
    }
    done += static_cast<std::size_t>(wrote);
  }
  ::fchmod(fd, 0644);
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!synced || std::rename(tmpl.c_str(), path.c_str()) != 0) {
    ::unlink(tmpl.c_str());
    throw Error("write_file_atomically(): cannot move the output into " + path.string(),
                ExitCode::kBadInput);
  }
}

}  // namespace infoflow

#endif  // INFOFLOW_CORE_ATOMIC_FILE_HPP_
