#ifndef INFOFLOW_CORE_ERROR_HPP_
#define INFOFLOW_CORE_ERROR_HPP_

/// \file
/// The error hierarchy of infoflow. Every error carries the exit code the command line returns
/// for it (documented in docs/commands.md), and, where there is one, the place in a file.

#include <cstddef>
#include <stdexcept>
#include <string>

namespace infoflow {

/// Exit codes of the `infoflow` command.
enum class ExitCode : int {
  kOk = 0,
  kFindings = 1,     ///< the command ran and found errors in its input's content (check)
  kBadInput = 2,     ///< malformed input: nothing was computed, nothing was written
  kInternal = 3,     ///< a bug or an unexpected library failure
};

/// A place in a source text; line and column count from 1, 0 means unknown.
struct SourceLocation {
  std::string file;
  std::size_t line = 0;
  std::size_t column = 0;

  [[nodiscard]] std::string to_string() const {
    std::string out = file.empty() ? std::string("<input>") : file;
    // append() rather than operator+: GCC 12 warns falsely (-Wrestrict) on the latter.
    if (line > 0) out.append(":").append(std::to_string(line));
    if (column > 0) out.append(":").append(std::to_string(column));
    return out;
  }
};

/// Root of our errors.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what, ExitCode code = ExitCode::kInternal)
      : std::runtime_error(what), code_(code) {}
  [[nodiscard]] ExitCode code() const noexcept { return code_; }

 private:
  ExitCode code_;
};

/// Bad input from the user: a file, an expression or an option. The message is prefixed with the
/// location, as compilers do: `file:line:column: error: message`.
class InputError : public Error {
 public:
  InputError(const SourceLocation& where, const std::string& message)
      : Error(format(where, message), ExitCode::kBadInput), where_(where), message_(message) {}
  explicit InputError(const std::string& message)
      : Error(message, ExitCode::kBadInput), message_(message) {}

  [[nodiscard]] const SourceLocation& where() const noexcept { return where_; }
  /// The message without the location prefix.
  [[nodiscard]] const std::string& message() const noexcept { return message_; }

 private:
  static std::string format(const SourceLocation& where, const std::string& message) {
    return where.to_string() + ": error: " + message;
  }
  SourceLocation where_;
  std::string message_;
};

}  // namespace infoflow

#endif  // INFOFLOW_CORE_ERROR_HPP_
