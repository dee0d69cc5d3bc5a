#ifndef INFOFLOW_THEOREMS_ENGINE_PIPELINE_HPP_
#define INFOFLOW_THEOREMS_ENGINE_PIPELINE_HPP_

// The engine's pipeline (docs/infoflow_engine.md, "Pipeline"): every pass from the formula to the
// plan, in the one order pipeline.cpp's registry sets. A pass is one step of one rule of
// docs/theory.md, a function over the shared state of its stage, defined in its rule's file.
// Five stages, each run where its state lives:
// - once per target and reading: the passes over the whole formula (Compilation);
// - each token reduction the walk meets: the first pass that applies compiles it (Compilation and
//   the TokenReduction);
// - once per target, after its first reading: whether a second reading is compiled (Readings);
// - each architecture: the passes from the program to the plan (Planning);
// - each architecture, once the first reading's plan is final: which reading's plan is taken
//   (Planning).
// A pass's own ordered sub-list (C0's rewrites, the readings) stays in its registry; the
// listing (passes_text()) prints it under the pass. Internal to the engine.

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "infoflow/theorems/engine.hpp"
#include "infoflow/theorems/program.hpp"

#include "compiler.hpp"
#include "placement.hpp"

namespace infoflow::theorems::detail {

enum class Stage { kTarget, kReduction, kReadings, kArchitecture, kReadingChoice };

/// The state of the readings stage: a target's readings, the first compiled before the stage.
struct Readings {
  std::span<const Pass* const> passes;  ///< what runs: a second reading is compiled with them
  const targets::Formula& formula;
  const targets::Bindings& bindings;
  long token_dim;
  std::shared_ptr<const Program> first;
  std::shared_ptr<const Program> second;  ///< where a pass compiled one and kept it
};

/// The state of the architecture stage and of the reading choice: one program planned on one
/// architecture.
struct Planning {
  Planning(std::span<const Pass* const> passes, Engine& engine,
           std::shared_ptr<const Program> reading, const Architecture& architecture, long node_cap,
           std::shared_ptr<const Program> second = nullptr);

  std::span<const Pass* const> passes;  ///< what runs: a second reading is planned with them
  Engine& engine;
  std::shared_ptr<const Program> reading;  ///< the program planned, which the plan records
  const Program& program;                  ///< *reading
  const Architecture& architecture;
  long node_cap;
  /// The target's second reading, planned where this one's plan is not efficient (null: none,
  /// or this is the second).
  std::shared_ptr<const Program> second;
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
  /// Exactly one, by stage (kReadingChoice: on_architecture). kTarget and kArchitecture stop
  /// the stage by setting `done`; kReduction returns the reduction's dependencies where the pass
  /// compiled it, nullopt where it does not apply (or, as a preparation, left it to the passes
  /// after it).
  void (*on_target)(Compilation&) = nullptr;
  std::optional<Deps> (*on_reduction)(Compilation&, TokenReduction&) = nullptr;
  void (*on_readings)(Readings&) = nullptr;
  void (*on_architecture)(Planning&) = nullptr;
  /// Its own ordered sub-list, for the listing: C0's rewrites, the readings.
  std::vector<std::string> (*steps)() = nullptr;
};

/// The registry: every pass, in the order the engine runs them.
std::span<const Pass* const> passes();

/// Compiles a formula with `passes` (the registry, or a test's copy of part of it): one reading.
Program compile_with(std::span<const Pass* const> passes, const targets::Formula& formula,
                     const targets::Bindings& bindings, long token_dim, bool split_products);

/// A target's readings with `passes`: the first reading compiled, then the readings stage.
Readings compile_readings(std::span<const Pass* const> passes, const targets::Formula& formula,
                          const targets::Bindings& bindings, long token_dim);

/// Runs the architecture stage of `state.passes` on `state` until one says the plan is final,
/// records the program planned, then runs the reading choice; or runs the architecture stage up
/// to `stop` (not run), and nothing after, where given.
void plan_with(Planning& state, const Pass* stop = nullptr);

/// The architecture stage's placement: the passes before it give the verdicts no head count
/// changes.
extern const Pass kPlacementPass;

}  // namespace infoflow::theorems::detail

#endif  // INFOFLOW_THEOREMS_ENGINE_PIPELINE_HPP_
