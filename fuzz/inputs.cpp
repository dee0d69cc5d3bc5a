#include "inputs.hpp"

#include <exception>
#include <filesystem>
#include <fstream>
#include <system_error>

#include <unistd.h>

#include "infoflow/core/error.hpp"
#include "infoflow/experiments/results.hpp"
#include "infoflow/experiments/spec.hpp"
#include "infoflow/symbolic/expression.hpp"
#include "infoflow/symbolic/rate.hpp"
#include "infoflow/targets/formula.hpp"
#include "infoflow/targets/target_file.hpp"
#include "infoflow/theorems/catalogue.hpp"

namespace infoflow::fuzz {

namespace fs = std::filesystem;

namespace {

/// A private folder of this process for the inputs that are files, removed at exit.
const fs::path& scratch() {
  struct Folder {
    fs::path path = fs::temp_directory_path() / ("infoflow-fuzz-" + std::to_string(::getpid()));
    Folder() { fs::create_directories(path); }
    ~Folder() {
      std::error_code ignored;
      fs::remove_all(path, ignored);
    }
  };
  static const Folder folder;
  return folder.path;
}

fs::path write(const std::string& name, std::string_view data) {
  const fs::path file = scratch() / name;
  std::ofstream(file, std::ios::binary).write(data.data(), static_cast<std::streamsize>(data.size()));
  return file;
}

}  // namespace

void rate(std::string_view data) {
  const symbolic::Rate r = symbolic::Rate::parse(data, SourceLocation{"rate", 1, 1});
  (void)r.print();
  (void)symbolic::parse_relations(data, SourceLocation{"relation", 1, 1});
}

void formula(std::string_view data) {
  const targets::Formula f = targets::Formula::parse(data, SourceLocation{"formula", 1, 1});
  (void)targets::to_text(f.root());
}

void catalogue(std::string_view data) {
  const fs::path file = write("paper.toml", data);
  (void)theorems::Catalogue::load_files(
      {fs::path(INFOFLOW_CATALOGUE_DIR) / "tasks.toml", file});
}

void targets(std::string_view data) {
  (void)targets::load_targets(write("targets.toml", data));
}

void experiment(std::string_view data) {
  (void)experiments::ExperimentSpec::load(write("spec.toml", data));
}

void results(std::string_view data) {
  const fs::path file = write("results.jsonl", data);
  (void)experiments::ResultStore(file).read();
  (void)experiments::merge_results({file, file}, scratch() / "merged.jsonl");
}

const std::vector<std::pair<std::string, Input>>& kinds() {
  static const std::vector<std::pair<std::string, Input>> all{
      {"rate", rate},     {"formula", formula},       {"catalogue", catalogue},
      {"targets", targets}, {"experiment", experiment}, {"results", results}};
  return all;
}

std::string failure(Input input, std::string_view data) {
  try {
    input(data);
  } catch (const Error& e) {
    if (e.code() == ExitCode::kBadInput) return {};
    return "exit " + std::to_string(static_cast<int>(e.code())) + ": " + e.what();
  } catch (const std::exception& e) {
    return std::string("exit 3 (internal error): ") + e.what();
  }
  return {};
}

}  // namespace infoflow::fuzz
