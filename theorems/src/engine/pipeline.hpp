#ifndef INFOFLOW_THEOREMS_ENGINE_PIPELINE_HPP_
#define INFOFLOW_THEOREMS_ENGINE_PIPELINE_HPP_

// The engine's pipeline (docs/infoflow_engine.md, "Pipeline"): every pass from the formula to the
// plan, in the one order pipeline.cpp's registry sets. A pass is one step of one rule of
// docs/theory.md, a function over the shared state of its stage, defined in its rule's file.
// Three stages, each run where its state lives:
// - once per target and reading: the passes over the whole formula (Compilation);
// - each token reduction the walk meets: the first pass that applies compiles it (Compilation and
//   the TokenReduction);
// - each architecture: the passes from the program to the plan (Planning).
// A pass's own ordered sub-list (C0's rewrites, the readings) stays in its registry; the
// listing (passes_text()) prints it under the pass. Internal to the engine.

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "infoflow/theorems/engine.hpp"
#include "infoflow/theorems/program.hpp"

#include "compiler.hpp"
#include "placement.hpp"

namespace infoflow::theorems::detail {

enum class Stage { kTarget, kReduction, kArchitecture };

/// The state of the architecture stage: one program planned on one architecture.
struct Planning {
  Engine& engine;
  const Program& program;
  const Architecture& architecture;
  long node_cap;
  PriceModel prices;       ///< set by the placement pass
  PlacementResult placed;  ///< the placement of every k-th largest as its chain
  Plan plan;
  bool done = false;  ///< the plan is final: the passes after are not run
};

struct Pass {
  const char* rule;  ///< its rule's id in docs/theory.md (section 7), or the section it states
  const char* name;  ///< unique among the passes
  const char* does;  ///< the rule it implements, in one line
  Stage stage;
  /// Exactly one, by stage. kTarget and kArchitecture stop the stage by setting `done`;
  /// kReduction returns the reduction's dependencies where the pass compiled it, nullopt where
  /// it does not apply (or, as a preparation, left it to the passes after it).
  void (*on_target)(Compilation&) = nullptr;
  std::optional<Deps> (*on_reduction)(Compilation&, TokenReduction&) = nullptr;
  void (*on_architecture)(Planning&) = nullptr;
  /// Its own ordered sub-list, for the listing: C0's rewrites, the readings.
  std::vector<std::string> (*steps)() = nullptr;
};

/// The registry: every pass, in the order the engine runs them.
std::span<const Pass* const> passes();

/// Compiles a formula with `passes` (the registry, or a test's copy of part of it).
Program compile_with(std::span<const Pass* const> passes, const targets::Formula& formula,
                     const targets::Bindings& bindings, long token_dim, bool split_products);

/// Runs the architecture stage of `passes` on `state` until one says the plan is final, or up to
/// `stop` (not run) where given.
void plan_with(std::span<const Pass* const> passes, Planning& state, const Pass* stop = nullptr);

/// The architecture stage's placement: the passes before it give the verdicts no head count
/// changes.
extern const Pass kPlacementPass;

}  // namespace infoflow::theorems::detail

#endif  // INFOFLOW_THEOREMS_ENGINE_PIPELINE_HPP_
