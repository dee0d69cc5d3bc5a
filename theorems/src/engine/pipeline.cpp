// The registry: every pass of the engine in the one order it runs them, and the runners of the
// three stages. A new pass: its function and its Pass in its rule's file, its line here and its
// place in kPasses.
#include "pipeline.hpp"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "infoflow/core/error.hpp"

namespace infoflow::theorems {

namespace detail {

extern const Pass kScopePass;
extern const Pass kCanonicalFormsPass;
extern const Pass kDefinedPass;
extern const Pass kReadingsPass;
extern const Pass kConstantTargetPass;
extern const Pass kWalkPass;
extern const Pass kIdleConstraintsPass;
extern const Pass kConstantReductionPass;
extern const Pass kFactorsPass;
extern const Pass kMeanPass;
extern const Pass kRankedPass;
extern const Pass kAbsoluteMaximumPass;
extern const Pass kEliminationPass;
extern const Pass kComparisonsPass;
extern const Pass kTokenOrderPass;
extern const Pass kSecondReadingPass;
extern const Pass kOutsidePass;
extern const Pass kNotComputablePass;
extern const Pass kPositionsUnencodedPass;
extern const Pass kBlockedPass;
extern const Pass kPlacementPass;
extern const Pass kPricingPass;
extern const Pass kKthRetrievalPass;
extern const Pass kReadingChoicePass;

namespace {

// The scope is read on the formula as written; C0's form is what every pass after it reads. The
// readings need the operands canonical, the walk the readings' tree. A token reduction goes to
// the first reduction pass that compiles it: constraints and constants before anything is made,
// then the factors every rule reads, a sum (R6) and a k-th largest (R2) before the extrema, |L|'s
// two retrievals (second reading) before the elimination, which takes whatever is left. The
// comparison tree is counted once the walk is done, and E4 decides on the whole formula. The
// second reading is compiled once the first is, to be compared with it. Per architecture: the
// verdicts no placement changes first, then the placement and its price, and Theorem 2's route
// last, where the chains found no efficient plan; the second reading is planned once the first's
// plan is final, where it is not efficient.
const Pass* const kPasses[] = {
    &kScopePass,               // S, on the formula as written
    &kCanonicalFormsPass,      // C0
    &kDefinedPass,             // S
    &kReadingsPass,            // readings/registry.cpp's order
    &kConstantTargetPass,      // E5
    &kWalkPass,                // E0; each token reduction to the passes below
    &kIdleConstraintsPass,     // E3 (each token reduction, the first that compiles it)
    &kConstantReductionPass,   // E5
    &kFactorsPass,             // E3, a preparation
    &kMeanPass,                // R6
    &kRankedPass,              // R2
    &kAbsoluteMaximumPass,     // R1, second reading
    &kEliminationPass,         // E1, E2; whatever is left
    &kComparisonsPass,         // once the walk is done
    &kTokenOrderPass,          // E4
    &kSecondReadingPass,       // E1, once per target
    &kOutsidePass,             // each architecture
    &kNotComputablePass,       // E4
    &kPositionsUnencodedPass,  // R5
    &kBlockedPass,             // R4
    &kPlacementPass,           // section 6
    &kPricingPass,             // section 5.3
    &kKthRetrievalPass,        // R3
    &kReadingChoicePass,       // E1, once the first reading's plan is final
};

void run_target_stage(Compilation& state) {
  for (const Pass* pass : state.passes) {
    if (pass->stage != Stage::kTarget) continue;
    pass->on_target(state);
    if (state.done) return;
  }
}

const char* stage_text(Stage stage) {
  switch (stage) {
    case Stage::kTarget:
      return "once per target and reading";
    case Stage::kReduction:
      return "each token reduction the walk meets: the first pass that compiles it";
    case Stage::kReadings:
      return "once per target, after its first reading";
    case Stage::kArchitecture:
      return "each architecture: until a pass makes the plan final";
    case Stage::kReadingChoice:
      return "each architecture, once the first reading's plan is final";
  }
  return "";
}

/// `items` after `lead`, separated by "; ", in lines of at most kWidth characters indented
/// under the pass's name.
std::string wrapped(const std::string& lead, const std::vector<std::string>& items) {
  constexpr std::size_t kIndent = 21;
  constexpr std::size_t kWidth = 100;
  std::string out;
  std::string line = std::string(kIndent, ' ') + lead;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string item = items[i] + (i + 1 < items.size() ? ";" : "");
    if (line.size() + 1 + item.size() > kWidth && line.size() > kIndent + lead.size()) {
      out += line + "\n";
      line = std::string(kIndent + lead.size(), ' ');
    } else if (line.size() > kIndent + lead.size()) {
      line += " ";
    }
    line += item;
  }
  return out + line + "\n";
}

}  // namespace

std::span<const Pass* const> passes() {
  return kPasses;
}

Program compile_with(std::span<const Pass* const> passes, const targets::Formula& formula,
                     const targets::Bindings& bindings, long token_dim, bool split_products) {
  Compilation state(passes, formula, bindings, token_dim, split_products);
  try {
    run_target_stage(state);
  } catch (const InputError&) {
    if (!state.canonical) throw;
    // C0's form could not be compiled: the formula as written is, so that an error points into
    // it.
    Compilation written(passes, formula, bindings, token_dim, split_products);
    written.keep_written = true;
    run_target_stage(written);
    return std::move(written.program);
  }
  return std::move(state.program);
}

Readings compile_readings(std::span<const Pass* const> passes, const targets::Formula& formula,
                          const targets::Bindings& bindings, long token_dim) {
  Readings state{passes, formula, bindings, token_dim,
                 std::make_shared<const Program>(
                     compile_with(passes, formula, bindings, token_dim, false)),
                 nullptr};
  for (const Pass* pass : passes) {
    if (pass->stage == Stage::kReadings) pass->on_readings(state);
  }
  return state;
}

Planning::Planning(std::span<const Pass* const> passes_, Engine& engine_,
                   std::shared_ptr<const Program> reading_, const Architecture& architecture_,
                   long node_cap_, std::shared_ptr<const Program> second_)
    : passes(passes_),
      engine(engine_),
      reading(std::move(reading_)),
      program(*reading),
      architecture(architecture_),
      node_cap(node_cap_),
      second(std::move(second_)) {
  plan.architecture = architecture;
}

void plan_with(Planning& state, const Pass* stop) {
  for (const Pass* pass : state.passes) {
    if (pass == stop) return;
    if (pass->stage != Stage::kArchitecture) continue;
    pass->on_architecture(state);
    if (state.done) break;
  }
  if (stop != nullptr) return;
  state.plan.program = state.reading;
  for (const Pass* pass : state.passes) {
    if (pass->stage == Stage::kReadingChoice) pass->on_architecture(state);
  }
}

}  // namespace detail

std::string passes_text() {
  std::string out =
      "The engine's passes in the order it runs them (theorems/src/engine/pipeline.cpp). Rules:\n"
      "docs/theory.md, section 7; S the scope (docs/infoflow_engine.md); 5.3, 5.4, 6 sections of\n"
      "docs/theory.md.\n";
  std::optional<detail::Stage> stage;
  int number = 0;
  for (const detail::Pass* pass : detail::passes()) {
    if (pass->stage != stage) {
      stage = pass->stage;
      out += fmt::format("\n{}:\n", detail::stage_text(pass->stage));
    }
    out += fmt::format("{:3}. {:<15} {:<20} {}\n", ++number, pass->rule, pass->name, pass->does);
    if (pass->steps != nullptr) out += detail::wrapped("in order: ", pass->steps());
  }
  return out;
}

}  // namespace infoflow::theorems
