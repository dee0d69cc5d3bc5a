#ifndef INFOFLOW_APP_TARGET_ARGUMENTS_HPP_
#define INFOFLOW_APP_TARGET_ARGUMENTS_HPP_

// The options of a target and of an architecture (derive, plan, train, construct), bound to the
// workflow layer's requests (session/target_request.hpp), which resolve and check them.

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "infoflow/session/target_request.hpp"

namespace infoflow::app {

/// --name, --set, --d, --pe on `cmd` (the source is added by each command).
void add_target_options(CLI::App* cmd, session::TargetRequest& request);

/// The architecture a target is planned on: --heads, --E, --head-dim (derive, plan, construct).
struct ArchitectureArguments {
  std::optional<std::string> heads;  // as written, "2,2"
  long embedding = session::ArchitectureRequest{}.embedding;
  long head_dim = session::ArchitectureRequest{}.head_dim;

  void add(CLI::App* cmd);
  [[nodiscard]] session::ArchitectureRequest request() const;
};

}  // namespace infoflow::app

#endif  // INFOFLOW_APP_TARGET_ARGUMENTS_HPP_
