#include "commands/target_arguments.hpp"

#include "infoflow/targets/target_file.hpp"

namespace infoflow::app {

void add_target_options(CLI::App* cmd, session::TargetRequest& a) {
  cmd->add_option("--name", a.name,
                  "which target of the file (default: every one); for a formula, its name "
                  "(default: formula)");
  // One value an occurrence: a list would also take a `--` that follows it, and the formula
  // after that (`--set T=8 -- '-max(t) ...'`) would be read as an option.
  cmd->add_option("--set", a.sets,
                  "a value of the formula's integers, e.g. --set D=3 (repeatable)")
      ->allow_extra_args(false);
  // Checked by the request (TargetRequest::check), as Python's d is.
  cmd->add_option_function<long>(
         "--d", [&a](long d) { a.token_dim = d; },
         "token dimension (default: the target's, 4 for a formula)")
      ->type_name("INT");
  cmd->add_option("--pe", a.positional,
                  "positional encoding: none (or off), learned or sinusoidal, as for train "
                  "(default: the target's; a formula that reads positions gets one)");
}

void ArchitectureArguments::add(CLI::App* cmd) {
  cmd->add_option_function<std::string>(
         "--heads", [this](const std::string& h) { heads = h; },
         "heads per layer, comma-separated, e.g. 2,2")
      ->type_name("H,H,...");
  cmd->add_option("--E", embedding, "embedding dimension")->capture_default_str();
  cmd->add_option("--head-dim", head_dim, "per-head dimension n (0: E / h)")->capture_default_str();
}

session::ArchitectureRequest ArchitectureArguments::request() const {
  session::ArchitectureRequest r;
  // One parser for heads, as train's --heads and Python's heads (a list is read as its text).
  if (heads) r.heads = targets::parse_heads(*heads, SourceLocation{"--heads", 0, 0});
  r.embedding = embedding;
  r.head_dim = head_dim;
  return r;
}

}  // namespace infoflow::app
