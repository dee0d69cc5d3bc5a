// infoflow: the command line. Thin subcommands over the libraries; see docs/commands.md.
//
// Exit codes: 0 success; 1 the check found errors; 2 bad input (nothing written);
// 3 internal error.

#include <iostream>
#include <new>

#include <CLI/CLI.hpp>

#include "commands/commands.hpp"
#include "infoflow/core/atomic_file.hpp"
#include "infoflow/core/error.hpp"

namespace infoflow::app {

void emit(const std::string& content, const std::string& path) {
  if (path.empty()) {
    std::cout << content;
    return;
  }
  write_file_atomically(path, content);
}

}  // namespace infoflow::app

int main(int argc, char** argv) {
  using infoflow::ExitCode;
  CLI::App app{"infoflow: approximation bounds for Transformers, checked and compared"};
  app.require_subcommand(1);
  infoflow::app::Context ctx;
  app.add_option("--add", ctx.added,
                 "a catalogue file read beside the directory's, e.g. derived bounds written by "
                 "derive --format toml (repeatable)");
  app.add_option("--catalogue", ctx.catalogue_dir, "catalogue directory (default: the shipped one)")
      ->check(CLI::ExistingDirectory);
  infoflow::app::add_symbols(app, ctx);
  infoflow::app::add_list(app, ctx);
  infoflow::app::add_show(app, ctx);
  infoflow::app::add_compare(app, ctx);
  infoflow::app::add_check(app, ctx);
  infoflow::app::add_certify(app, ctx);
  infoflow::app::add_table(app, ctx);
  infoflow::app::add_derive(app, ctx);
  infoflow::app::add_plan(app, ctx);
  infoflow::app::add_train(app, ctx);
  infoflow::app::add_sweep(app, ctx);
  infoflow::app::add_merge(app, ctx);
  infoflow::app::add_verify(app, ctx);
  infoflow::app::add_report(app, ctx);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : static_cast<int>(ExitCode::kBadInput);
  } catch (const infoflow::Error& e) {
    std::cerr << "infoflow: " << e.what() << "\n";
    return static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    // Sizes are checked against the machine's memory before any work; what still runs out is
    // a request too large for what is free now, not a bug.
    std::cerr << "infoflow: error: out of memory: the request is too large for the memory free "
                 "on this machine (see docs/commands.md, Limits)\n";
    return static_cast<int>(ExitCode::kBadInput);
  } catch (const std::exception& e) {
    std::cerr << "infoflow: internal error: " << e.what() << "\n";
    return static_cast<int>(ExitCode::kInternal);
  }
  return ctx.exit_code;
}
