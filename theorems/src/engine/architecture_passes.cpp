// The passes of the architecture stage (pipeline.cpp sets their order): the verdicts no
// placement changes, the placement, its price, and Theorem 2's route.
#include <algorithm>

#include <fmt/format.h>

#include "pipeline.hpp"
#include "pricer.hpp"

namespace infoflow::theorems::detail {

namespace {

void outside_framework(Planning& s) {
  if (!s.program.outside) return;
  s.plan.verdict = Verdict::kOutsideFramework;
  s.plan.reason = *s.program.outside;
  s.done = true;
}

void not_computable(Planning& s) {
  if (s.program.order_dependent.empty() || s.architecture.encodes_positions()) return;
  s.plan.verdict = Verdict::kNotComputable;
  s.plan.reason = fmt::format(
      "without a positional encoding the input tokens are exchangeable, and the target is "
      "order-dependent: {}",
      fmt::join(s.program.order_dependent, "; "));
  s.done = true;
}

void positions_unencoded(Planning& s) {
  if (!s.program.reads_positions() || s.architecture.encodes_positions()) return;
  // E4 found the value unchanged by permutations, yet the plan reads positions: terms that
  // vanish or cancel (dot(x[1], x[2]) * 0), which the engine does not simplify. No rule
  // covers such a plan without positions: undecided, not a cost.
  s.plan.verdict = Verdict::kOutsideFramework;
  s.plan.reason =
      "the target's value does not change when its tokens are permuted, but its plan reads "
      "token positions (terms that vanish or cancel, which the engine does not simplify); "
      "without a positional encoding no rule covers that plan: read as undecided";
  s.done = true;
}

void blocked_comparison(Planning& s) {
  if (!s.program.blocked()) return;
  std::string why;
  for (const Comparison& c : s.program.comparisons) {
    if (c.blocked)
      why = fmt::format("'{}' is a comparison of order {}: {}", c.text, c.order, c.elimination);
  }
  s.plan = aggregation_plan(Pricer{s.engine, s.architecture}, s.architecture,
                            why + "; only global aggregation reaches it");
  s.plan.verdict = Verdict::kSuperPolynomial;
  s.done = true;
}

/// The best upper bound: a placement of every k-th largest as its chain of masked retrievals
/// (one k-th retrieval in one layer is priced by Theorem 2, a lower bound), else global
/// aggregation. A placement's price does not grow with T, aggregation's does.
void placement(Planning& s) {
  s.prices = Pricer{s.engine, s.architecture}.model();
  Program chains;
  if (!s.program.ranked.empty()) {
    chains = s.program;
    chains.ranked.clear();
  }
  s.placed = place(s.program.ranked.empty() ? s.program : chains, s.architecture, s.prices,
                           false, s.node_cap);
  if (s.placed.truncated) {  // the best found need not be the cheapest: no guess
    s.plan.verdict = Verdict::kUndecided;
    s.plan.reason = fmt::format(
        "search cap reached: the placement search on {} stopped at its cap "
        "of {} nodes before deciding",
        s.architecture.heads_text(), s.node_cap);
    s.plan.truncated = true;
    s.done = true;
  }
}

void pricing(Planning& s) {
  const Pricer pricer{s.engine, s.architecture};
  s.plan = s.placed.best
               ? plan_of(s.program, pricer, *s.placed.best)
               : aggregation_plan(pricer, s.architecture,
                                  fmt::format("no placement on {} gives every quantity a slot "
                                              "({} found none); global aggregation covers the "
                                              "target",
                                              s.architecture.heads_text(), s.placed.unplaced));
  set_verdict(s.plan);
  s.done = s.plan.verdict == Verdict::kEfficient || s.program.ranked.empty();
}

/// Where the chains find no slots, a k-th retrieval in one layer is another route. Theorem 2
/// says what it costs at least: where that is below the upper bound, the plan shows both (a
/// lower bound is never read as cheaper than an upper one). A route the search could not
/// decide within its cap is left out: the upper bound stands.
void kth_retrieval(Planning& s) {
  const PlacementResult ranked =
      place(s.program, s.architecture, s.prices, false, s.node_cap);
  if (ranked.truncated || !ranked.best ||
      std::find(ranked.best->theorem2.begin(), ranked.best->theorem2.end(), true) ==
          ranked.best->theorem2.end())
    return;
  Plan lower = plan_of(s.program, Pricer{s.engine, s.architecture}, *ranked.best);
  if (!cheaper(price_of(lower.exponent), price_of(s.plan.exponent))) return;
  set_verdict(lower);
  lower.reason = fmt::format(
      "no placement on {} fits the k-th largest's chain of masked retrievals, so it takes one "
      "k-th retrieval in one layer, which Theorem 2 bounds from below only",
      s.architecture.heads_text());
  lower.upper = std::make_shared<const Plan>(std::move(s.plan));
  s.plan = std::move(lower);
}

}  // namespace

extern const Pass kOutsidePass;  // registered in pipeline.cpp, as are the passes below
const Pass kOutsidePass{.rule = "S E3",
                        .name = "outside",
                        .does = "a program outside the framework has no rate",
                        .stage = Stage::kArchitecture,
                        .on_architecture = outside_framework};
extern const Pass kNotComputablePass;
const Pass kNotComputablePass{.rule = "E4",
                              .name = "not computable",
                              .does = "an order-dependent target without a positional encoding",
                              .stage = Stage::kArchitecture,
                              .on_architecture = not_computable};
extern const Pass kPositionsUnencodedPass;
const Pass kPositionsUnencodedPass{.rule = "R5",
                                   .name = "positions unencoded",
                                   .does =
                                       "a plan that reads positions without a positional encoding: "
                                       "no rule covers it",
                                   .stage = Stage::kArchitecture,
                                   .on_architecture = positions_unencoded};
extern const Pass kBlockedPass;
const Pass kBlockedPass{
    .rule = "R4",
    .name = "blocked comparison",
    .does =
        "a comparison of order >= 3 no elimination resolves: global aggregation, "
        "super-polynomial",
    .stage = Stage::kArchitecture,
    .on_architecture = blocked_comparison};
extern const Pass kPlacementPass;
const Pass kPlacementPass{.rule = "6 R7",
                          .name = "placement",
                          .does =
                              "every quantity in a (layer, token class, head) slot after what it "
                              "reads, a k-th largest as its chain (R2); exact, to a node cap",
                          .stage = Stage::kArchitecture,
                          .on_architecture = placement};
extern const Pass kPricingPass;
const Pass kPricingPass{.rule = "5.3 R1 R4 R5 R6",
                        .name = "pricing",
                        .does =
                            "each step priced by its catalogue entry, decodings by Theorem 3; the "
                            "plan's rate its costliest; no placement: R4",
                        .stage = Stage::kArchitecture,
                        .on_architecture = pricing};
extern const Pass kKthRetrievalPass;
const Pass kKthRetrievalPass{
    .rule = "R3",
    .name = "k-th retrieval",
    .does =
        "a k-th largest in one layer, Theorem 2's lower bound, where it is "
        "below the chains' price",
    .stage = Stage::kArchitecture,
    .on_architecture = kth_retrieval};

}  // namespace infoflow::theorems::detail
