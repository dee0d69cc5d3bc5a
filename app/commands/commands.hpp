#ifndef INFOFLOW_APP_COMMANDS_HPP_
#define INFOFLOW_APP_COMMANDS_HPP_

// The subcommands of `infoflow`. Each add_* registers one subcommand whose callback does the
// work; errors propagate as infoflow::Error and main() maps them to exit codes.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "infoflow/report/catalogue_report.hpp"
#include "infoflow/theorems/catalogue.hpp"

namespace infoflow::app {

/// Options every subcommand shares, and the exit code a callback sets.
struct Context {
  std::filesystem::path catalogue_dir = theorems::default_catalogue_directory();
  std::vector<std::filesystem::path> added;  ///< catalogue files beside the directory's
  int exit_code = 0;

  [[nodiscard]] theorems::Catalogue load() const {
    return theorems::Catalogue::load_directory(catalogue_dir, added);
  }
};

/// Writes `content` to `path` atomically, or to standard output when `path` is empty.
void emit(const std::string& content, const std::string& path);

/// `--format F` with F one of `forms` (text, latex, json, toml: the same word for the same form
/// in every subcommand); `*format` starts as the first form. With `json_alias`, `--json` is kept
/// as a deprecated spelling of `--format json` (scripts written before `--format` still work).
void add_format_option(CLI::App* cmd, std::string& format, const std::vector<std::string>& forms,
                       bool json_alias = false);

/// Refuses, when the options are read (before any work), a file that cannot be written as an
/// output (core/atomic_file.hpp: check_output_path): a directory, a folder that is a file.
CLI::Validator output_file();

/// `-o,--output FILE`: where the output goes instead of standard output (emit), checked by
/// output_file().
void add_output_option(CLI::App* cmd, std::string& output);

/// --standalone, --label-prefix P and --columns 1|2: the options of every LaTeX output.
struct LatexArguments {
  report::LatexOptions options;
  bool standalone = false;

  void add_to(CLI::App* cmd);
  /// Throws InputError when they are given for another form than LaTeX (`latex` false), or the
  /// prefix cannot be part of a label.
  void check(bool latex) const;
  /// The body as asked: as it is, or a complete document (two-column with --columns 2).
  [[nodiscard]] std::string finish(const std::string& body,
                                   const theorems::Catalogue& catalogue) const;
};

void add_symbols(CLI::App& app, Context& ctx);
void add_list(CLI::App& app, Context& ctx);
void add_show(CLI::App& app, Context& ctx);
void add_compare(CLI::App& app, Context& ctx);
void add_check(CLI::App& app, Context& ctx);
void add_table(CLI::App& app, Context& ctx);
void add_train(CLI::App& app, Context& ctx);
void add_derive(CLI::App& app, Context& ctx);
void add_plan(CLI::App& app, Context& ctx);
void add_passes(CLI::App& app, Context& ctx);
void add_construct(CLI::App& app, Context& ctx);
void add_sweep(CLI::App& app, Context& ctx);
void add_merge(CLI::App& app, Context& ctx);
void add_verify(CLI::App& app, Context& ctx);
void add_report(CLI::App& app, Context& ctx);
void add_certify(CLI::App& app, Context& ctx);

}  // namespace infoflow::app

#endif  // INFOFLOW_APP_COMMANDS_HPP_
