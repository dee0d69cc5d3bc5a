#include "commands/target_arguments.hpp"

#include "infoflow/core/limits.hpp"

namespace infoflow::app {

void add_target_options(CLI::App* cmd, session::TargetRequest& a) {
  cmd->add_option("--name", a.name,
                  "which target of the file (default: every one); for a formula, its name "
                  "(default: formula)");
  cmd->add_option("--set", a.sets,
                  "a value of the formula's integers, e.g. --set D=3 (repeatable)");
  cmd->add_option("--d", a.token_dim, "token dimension (default: the target's, 4 for a formula)")
      ->check(CLI::Range(std::int64_t{1}, limits::kTokenDim));
  cmd->add_option("--pe", a.positional,
                  "positional encoding: none (or off), learned or sinusoidal, as for train "
                  "(default: the target's; a formula that reads positions gets one)");
}

void ArchitectureArguments::add(CLI::App* cmd) {
  cmd->add_option("--heads", heads, "heads per layer, comma-separated, e.g. 2,2")->delimiter(',');
  cmd->add_option("--E", embedding, "embedding dimension")->capture_default_str();
  cmd->add_option("--head-dim", head_dim, "per-head dimension n (0: E / h)")->capture_default_str();
}

session::ArchitectureRequest ArchitectureArguments::request() const {
  session::ArchitectureRequest r;
  if (!heads.empty()) r.heads = heads;
  r.embedding = embedding;
  r.head_dim = head_dim;
  return r;
}

}  // namespace infoflow::app
