#ifndef INFOFLOW_TESTS_COMMON_TEMP_CATALOGUE_HPP_
#define INFOFLOW_TESTS_COMMON_TEMP_CATALOGUE_HPP_

// A scratch copy of the shipped catalogue in a fresh temporary directory, removed afterwards,
// so tests can break or edit one file and see what the tool makes of it.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace infoflow::testing {

class TempCatalogue {
 public:
  TempCatalogue() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "infoflow-test-XXXXXX").string();
    dir_ = ::mkdtemp(tmpl.data());
    for (const auto& item : std::filesystem::directory_iterator(INFOFLOW_CATALOGUE_DIR)) {
      std::filesystem::copy_file(item.path(), dir_ / item.path().filename());
    }
  }
  ~TempCatalogue() { std::filesystem::remove_all(dir_); }
  TempCatalogue(const TempCatalogue&) = delete;
  TempCatalogue& operator=(const TempCatalogue&) = delete;

  [[nodiscard]] const std::filesystem::path& dir() const { return dir_; }

  [[nodiscard]] std::string read(const std::string& name) const {
    std::ifstream in(dir_ / name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  void write(const std::string& name, const std::string& content) const {
    std::ofstream(dir_ / name) << content;
  }
  /// Replaces the first occurrence of `from` in file `name`; returns false if absent.
  bool replace(const std::string& name, const std::string& from, const std::string& to) const {
    std::string text = read(name);
    const auto at = text.find(from);
    if (at == std::string::npos) return false;
    text.replace(at, from.size(), to);
    write(name, text);
    return true;
  }

 private:
  std::filesystem::path dir_;
};

}  // namespace infoflow::testing

#endif  // INFOFLOW_TESTS_COMMON_TEMP_CATALOGUE_HPP_
