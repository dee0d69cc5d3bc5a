#ifndef INFOFLOW_CORE_ATOMIC_FILE_HPP_
#define INFOFLOW_CORE_ATOMIC_FILE_HPP_

/// \file
/// Whole-file outputs (-o, --checkpoint) that never leave a partial file and never replace what
/// is not a file. A regular file, or a missing one, is written as a sibling temporary, flushed to
/// disk and renamed over the target (rename is atomic within a file system); a symbolic link is
/// followed and its target replaced so, in the target's folder, and the link kept. Anything else
/// that is not a directory (a device, a FIFO, a pipe, a terminal, /dev/stdout) is written to
/// directly, as a shell's `>` does; a directory is refused. Missing folders are made.

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "infoflow/core/error.hpp"

namespace infoflow {

namespace detail {

[[noreturn]] inline void output_failure(const std::filesystem::path& path,
                                        const std::string& what, int error) {
  throw InputError(SourceLocation{path.string(), 0, 0},
                   what + ": " + std::generic_category().message(error));
}

/// "out/" names a folder, whether or not it exists.
inline void require_file_name(const std::filesystem::path& path) {
  if (!path.has_filename()) {
    throw InputError(SourceLocation{path.string(), 0, 0},
                     "names a folder (it ends with '/'): give a file to write");
  }
}

/// `path` with the symbolic links of its last component followed (a link's relative target is
/// read from the link's folder); `path` itself when it is no link.
inline std::filesystem::path follow_links(std::filesystem::path path) {
  for (int hops = 0; hops < 40; ++hops) {  // the kernel's own bound (ELOOP)
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
    std::error_code ec;
    const std::filesystem::path target = std::filesystem::read_symlink(path, ec);
    if (ec) output_failure(path, "cannot read the link", ec.value());
    path = target.is_absolute() ? target : path.parent_path() / target;
  }
  output_failure(path, "cannot write", ELOOP);
}

/// The regular file `path` is, named with its links followed; nothing when the links cannot be
/// followed by name (a /proc/self/fd link names an open file, not a place: it is written through).
inline std::optional<std::filesystem::path> regular_file_behind(const std::filesystem::path& path,
                                                                const struct stat& seen) {
  std::filesystem::path target = follow_links(path);
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0 && st.st_dev == seen.st_dev && st.st_ino == seen.st_ino)
    return target;
  return std::nullopt;
}

/// The nearest folder on the way to the missing file `path`: where its missing folders are made.
/// Throws InputError when that is not a folder.
inline std::filesystem::path nearest_folder(const std::filesystem::path& path) {
  std::filesystem::path dir = path.parent_path();
  struct stat st {};
  while (!dir.empty() && ::stat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT && errno != ENOTDIR) output_failure(dir, "cannot make the folder", errno);
    dir = dir.parent_path();
  }
  if (dir.empty()) dir = ".";
  if (::stat(dir.c_str(), &st) != 0) output_failure(dir, "cannot make the folder", errno);
  if (!S_ISDIR(st.st_mode)) {
    throw InputError(SourceLocation{dir.string(), 0, 0},
                     "is not a folder: nothing can be made in it");
  }
  return dir;
}

inline void write_all(int fd, std::string_view content, const std::filesystem::path& path) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t wrote = ::write(fd, content.data() + done, content.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      const int error = wrote < 0 ? errno : ENOSPC;
      ::close(fd);
      output_failure(path, "cannot write", error);
    }
    done += static_cast<std::size_t>(wrote);
  }
}

/// A device, a FIFO, a pipe or a terminal: written as it is, nothing made or removed.
inline void write_directly(const std::filesystem::path& path, std::string_view content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) output_failure(path, "cannot write", errno);
  write_all(fd, content, path);
  ::close(fd);
}

/// A temporary beside `target`, flushed, then renamed over it. `mode`: the permissions to keep.
inline void replace_atomically(const std::filesystem::path& target, std::string_view content,
                               mode_t mode) {
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  // A name of 255 bytes is allowed; its temporary's must fit too.
  const std::string stem = target.filename().string().substr(0, 200);
  std::string tmpl = (dir / ("." + stem + ".XXXXXX")).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) output_failure(dir, "cannot create a temporary file in this folder", errno);
  const std::filesystem::path temporary = tmpl;
  try {
    write_all(fd, content, temporary);
  } catch (...) {
    ::unlink(tmpl.c_str());
    throw;
  }
  ::fchmod(fd, mode);
  const int synced = ::fsync(fd) == 0 ? 0 : errno;
  ::close(fd);
  if (synced != 0) {
    ::unlink(tmpl.c_str());
    output_failure(temporary, "cannot write", synced);
  }
  if (std::rename(tmpl.c_str(), target.c_str()) != 0) {
    const int error = errno;
    ::unlink(tmpl.c_str());
    output_failure(target, "cannot move the output into place", error);
  }
}

}  // namespace detail

/// Refuses, before any work, an output path that write_file_atomically would refuse: a
/// directory, a folder on the way that is a file, a place that cannot be written. Makes nothing.
/// Throws InputError naming the path.
inline void check_output_path(const std::filesystem::path& path) {
  using detail::output_failure;
  detail::require_file_name(path);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      throw InputError(SourceLocation{path.string(), 0, 0}, "is a directory: give a file to write");
    }
    const std::optional<std::filesystem::path> file =
        S_ISREG(st.st_mode) ? detail::regular_file_behind(path, st) : std::nullopt;
    if (!file) {  // written directly
      if (::access(path.c_str(), W_OK) != 0) output_failure(path, "cannot write", errno);
      return;
    }
    const std::filesystem::path dir = file->has_parent_path() ? file->parent_path() : ".";
    if (::access(dir.c_str(), W_OK) != 0) output_failure(dir, "cannot write in this folder", errno);
    return;
  }
  if (errno != ENOENT && errno != ENOTDIR) output_failure(path, "cannot write", errno);
  const std::filesystem::path dir = detail::nearest_folder(detail::follow_links(path));
  if (::access(dir.c_str(), W_OK) != 0) output_failure(dir, "cannot write in this folder", errno);
}

/// Writes `content` to `path` as this file's comment says: atomically where `path` is, or leads
/// by links to, a regular file or nothing (making its missing folders); directly to a device, a
/// FIFO, a pipe or a terminal. Throws InputError (bad input: exit 2) with the system's reason for
/// a directory, a folder that cannot be made or written, or a full disk; on any failure the
/// previous file, if any, is left untouched.
inline void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  detail::require_file_name(path);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      throw InputError(SourceLocation{path.string(), 0, 0}, "is a directory: give a file to write");
    }
    const std::optional<std::filesystem::path> file =
        S_ISREG(st.st_mode) ? detail::regular_file_behind(path, st) : std::nullopt;
    if (!file) return detail::write_directly(path, content);
    return detail::replace_atomically(*file, content, st.st_mode & 07777);
  }
  if (errno != ENOENT && errno != ENOTDIR) detail::output_failure(path, "cannot write", errno);
  // Nothing there, or a link to nothing: the file is made where the link points.
  const std::filesystem::path target = detail::follow_links(path);
  (void)detail::nearest_folder(target);
  if (target.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(target.parent_path(), ec);
    if (ec) detail::output_failure(target.parent_path(), "cannot make the folder", ec.value());
  }
  detail::replace_atomically(target, content, 0644);
}

}  // namespace infoflow

#endif  // INFOFLOW_CORE_ATOMIC_FILE_HPP_
