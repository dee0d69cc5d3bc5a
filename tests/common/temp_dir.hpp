#ifndef INFOFLOW_TESTS_COMMON_TEMP_DIR_HPP_
#define INFOFLOW_TESTS_COMMON_TEMP_DIR_HPP_

// A fresh temporary directory, removed afterwards (also when a test fails part-way).

#include <filesystem>
#include <fstream>
#include <string>

#include <stdlib.h>

namespace infoflow::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "infoflow-test-XXXXXX").string();
    dir_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(dir_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }
  /// Writes `text` to dir()/name and returns that path.
  std::filesystem::path write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }

 private:
  std::filesystem::path dir_;
};

}  // namespace infoflow::testing

#endif  // INFOFLOW_TESTS_COMMON_TEMP_DIR_HPP_
