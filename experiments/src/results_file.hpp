#ifndef INFOFLOW_EXPERIMENTS_RESULTS_FILE_HPP_
#define INFOFLOW_EXPERIMENTS_RESULTS_FILE_HPP_

// Failures of I/O on a results file, as InputError with the system's reason: shared by the
// store (results.cpp) and the sweep's lock on it (sweep.cpp).

#include <filesystem>
#include <string>

namespace infoflow::experiments {

/// "what file: the system's reason", for an I/O call that failed with `error`.
[[noreturn]] void io_failure(const std::string& what, const std::filesystem::path& file, int error);

/// Creates the folder `file` goes in, if it has one.
void create_parent(const std::filesystem::path& file);

}  // namespace infoflow::experiments

#endif  // INFOFLOW_EXPERIMENTS_RESULTS_FILE_HPP_
