#ifndef INFOFLOW_APP_TARGET_ARGUMENTS_HPP_
#define INFOFLOW_APP_TARGET_ARGUMENTS_HPP_

// Options shared by derive, plan and train for a target given as a formula or a file.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "infoflow/targets/target_file.hpp"

namespace infoflow::app {

struct TargetArguments {
  std::string source;             ///< a formula, or a target file
  std::string name;               ///< which target of the file (default: all, or the only one)
  std::vector<std::string> sets;  ///< NAME=VALUE
  long token_dim = 0;             ///< 0: the target's
  std::string positional;         ///< none (or off), learned or sinusoidal; empty: the target's
  bool file_only = false;         ///< the source must be a target file (train --target)

  /// The targets the arguments select, with --set and --d applied. Throws InputError.
  [[nodiscard]] std::vector<targets::TargetSpec> resolve(bool single) const;
};

/// --name, --set, --d, --pe on `cmd` (the source is added by each command).
void add_target_options(CLI::App* cmd, TargetArguments& args);

/// The architecture a target is planned on: --heads, --E, --head-dim (derive, plan, construct).
struct ArchitectureArguments {
  std::vector<long> heads;  // empty: none given
  long embedding = 16;
  long head_dim = 0;

  void add(CLI::App* cmd) {
    cmd->add_option("--heads", heads, "heads per layer, comma-separated, e.g. 2,2")->delimiter(',');
    cmd->add_option("--E", embedding, "embedding dimension")->capture_default_str();
    cmd->add_option("--head-dim", head_dim, "per-head dimension n (0: E / h)")
        ->capture_default_str();
  }
};

}  // namespace infoflow::app

#endif  // INFOFLOW_APP_TARGET_ARGUMENTS_HPP_
