#ifndef INFOFLOW_CORE_READ_FILE_HPP_
#define INFOFLOW_CORE_READ_FILE_HPP_

/// \file
/// The one way a file named by the user is read: whole, bounded, and refused with exit 2 (with
/// the path) when it is missing, a directory, unreadable or longer than its limit
/// (core/limits.hpp). A FIFO, a pipe or a device is read as a file is, up to the limit, so that an
/// endless one (a /dev/zero) ends in a refusal instead of filling the memory.

#include <cerrno>
#include <cstdint>
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

inline std::string byte_count_text(std::uint64_t bytes) {
  if (bytes % (std::uint64_t{1} << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  if (bytes % (std::uint64_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

/// The content, or nothing when `path` does not exist and `missing_is_empty`.
inline std::optional<std::string> read_bounded(const std::filesystem::path& path,
                                               std::uint64_t limit, std::string_view what,
                                               bool missing_is_empty) {
  const SourceLocation where{path.string(), 0, 0};
  const auto fail = [&](const std::string& message) { throw InputError(where, message); };
  // A FIFO blocks here until a writer opens it, as `cat` does.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    const int error = errno;
    if (error == ENOENT && missing_is_empty) return std::nullopt;
    if (error == ENOENT) fail("no such " + std::string(what));
    fail("cannot read the " + std::string(what) + ": " + std::generic_category().message(error));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    fail("cannot read the " + std::string(what) + ": " + std::generic_category().message(errno));
  }
  if (S_ISDIR(st.st_mode)) fail("is a directory (the " + std::string(what) + " must be a file)");
  const std::string too_long = "longer than " + byte_count_text(limit) + ", the limit on one " +
                               std::string(what) + " (docs/commands.md, Limits)";
  std::string out;
  if (S_ISREG(st.st_mode)) {
    if (static_cast<std::uint64_t>(st.st_size) > limit) fail(too_long);
    out.reserve(static_cast<std::size_t>(st.st_size));
  }
  char buffer[1 << 16];
  while (true) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      fail("cannot read the " + std::string(what) + ": " + std::generic_category().message(errno));
    }
    if (out.size() + static_cast<std::uint64_t>(got) > limit) fail(too_long);
    out.append(buffer, static_cast<std::size_t>(got));
  }
  return out;
}

}  // namespace detail

/// The whole of `path`, at most `limit` bytes; `what` names it in the messages ("no such target
/// file", "is a directory (the target file must be a file)"). Throws InputError.
inline std::string read_input_file(const std::filesystem::path& path, std::uint64_t limit,
                                   std::string_view what) {
  return *detail::read_bounded(path, limit, what, false);
}

/// As read_input_file, but nothing (not an error) when `path` does not exist.
inline std::optional<std::string> read_input_file_if_present(const std::filesystem::path& path,
                                                             std::uint64_t limit,
                                                             std::string_view what) {
  return detail::read_bounded(path, limit, what, true);
}

}  // namespace infoflow

#endif  // INFOFLOW_CORE_READ_FILE_HPP_
