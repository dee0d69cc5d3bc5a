#include "inputs.hpp"

#include <ctime>
#include <exception>
#include <filesystem>
#include <fstream>
#include <system_error>

#include <unistd.h>

#include "infoflow/core/error.hpp"
#include "infoflow/experiments/results.hpp"
#include "infoflow/experiments/spec.hpp"
#include "infoflow/symbolic/compare.hpp"
#include "infoflow/symbolic/expression.hpp"
#include "infoflow/symbolic/rate.hpp"
#include "infoflow/targets/formula.hpp"
#include "infoflow/targets/target_file.hpp"
#include "infoflow/theorems/catalogue.hpp"
#include "infoflow/theorems/engine.hpp"

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
  // As `compare TEXT 'eps^(-1)'` reads it (its value is needed there: 0^(k-1) parsed and then
  // threw), and as the relations of --assume and a catalogue's hypotheses: each reader sees
  // every text, whether or not the other refuses it.
  static symbolic::SignOracle oracle(200);
  static const symbolic::Rate reference = symbolic::Rate::parse("eps^(-1)");
  try {
    const symbolic::Rate r = symbolic::Rate::parse(data, SourceLocation{"rate", 1, 1});
    (void)r.print();
    (void)symbolic::compare_as_eps_to_zero(r, reference, symbolic::Domain{}, oracle);
    (void)symbolic::compare_as_T_to_infinity(r, reference, symbolic::Domain{}, oracle);
  } catch (const InputError&) {  // not a rate: perhaps a relation
  }
  symbolic::Domain domain;
  for (const symbolic::Relation& r :
       symbolic::parse_relations(data, SourceLocation{"relation", 1, 1})) {
    domain.require(r);
  }
  (void)oracle.satisfiable(domain);
}

void formula(std::string_view data) {
  const targets::Formula f = targets::Formula::parse(data, SourceLocation{"formula", 1, 1});
  (void)targets::to_text(f.root());
  // What derive --heads 1 does with it, its named integers at 2: the plan and the search for the
  // smallest efficient architecture, whose time the budget bounds.
  targets::TargetSpec spec;
  spec.name = "formula";
  spec.formula = f;
  spec.positional = f.reads_positions();
  for (const std::string& name : targets::unset_integers(spec)) spec.set[name] = 2;
  static const theorems::Catalogue shipped =
      theorems::Catalogue::load_directory(INFOFLOW_CATALOGUE_DIR, {});
  theorems::Engine engine(shipped);
  const theorems::Target target = theorems::to_target(spec);
  const theorems::Architecture one_head = theorems::architecture_for(spec, 16, 0, {1});
  (void)engine.plan(target, one_head);
  (void)engine.search(target, one_head);
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

bool timed(Input input) {
  return input == formula;
}

double seconds_since(std::clock_t start) {
  return static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
}

std::string failure(Input input, std::string_view data) {
  try {
    input(data);
  } catch (const Error& e) {
    if (e.code() != ExitCode::kBadInput)
      return "exit " + std::to_string(static_cast<int>(e.code())) + ": " + e.what();
  } catch (const std::exception& e) {
    return std::string("exit 3 (internal error): ") + e.what();
  }
  return {};
}

}  // namespace infoflow::fuzz
