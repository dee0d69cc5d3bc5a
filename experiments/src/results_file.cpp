#include "results_file.hpp"

#include <system_error>

#include "infoflow/core/error.hpp"

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

}  // namespace infoflow::experiments
