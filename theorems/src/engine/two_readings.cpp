// The engine's two readings of a target (E1): the first reads a product of independent factors
// at its vertices only where elimination is blocked; the second reads every such product there,
// |E| (or E^2) as the larger of max E and -min E, and a range written outside a maximum over
// tokens. The second finds efficient plans the first does not (max(s, t) (dot(a, x[s]) *
// dot(b, x[t])) on (4): four retrievals, where the first's query-key product needs (1,1)), and
// costs more where the first is efficient. Two passes (pipeline.cpp sets their place): one
// compiles the second reading where it can differ and keeps it where it does; one plans it
// where the first reading's plan is not efficient.
#include <memory>
#include <tuple>

#include "infoflow/targets/node_algebra.hpp"

#include "pipeline.hpp"

namespace infoflow::theorems::detail {

namespace {

/// Whether the placement and pricing read the two programs alike: the same quantities (how each
/// is obtained, where it lives, what it needs, what it carries), outputs, chains of masked
/// retrievals and interchangeable copies, and the same verdicts before any placement (outside,
/// order-dependent, blocked). Then their plans have the same verdict on every architecture
/// (names and words aside), and the second reading adds nothing. A field the placement or
/// pricing comes to read belongs here too.
bool planned_alike(const Program& a, const Program& b) {
  const auto planned = [](const Quantity& q) {
    return std::tie(q.holder, q.mode, q.needs, q.needs_at_tokens, q.needs_ffn, q.positions,
                    q.values, q.vectors, q.order);
  };
  const auto chain = [](const Ranked& r) { return std::tie(r.steps, r.rank); };
  if (a.quantities.size() != b.quantities.size() || a.ranked.size() != b.ranked.size()) return false;
  for (std::size_t i = 0; i < a.quantities.size(); ++i) {
    if (planned(a.quantities[i]) != planned(b.quantities[i])) return false;
  }
  for (std::size_t i = 0; i < a.ranked.size(); ++i) {
    if (chain(a.ranked[i]) != chain(b.ranked[i])) return false;
  }
  return a.outputs == b.outputs && a.interchangeable == b.interchangeable &&
         a.blocked() == b.blocked() && a.outside.has_value() == b.outside.has_value() &&
         a.order_dependent.empty() == b.order_dependent.empty();
}

/// A product (its vertices), an absolute value or even power (max |E| = max(max E, -min E)), or
/// a range (a maximum over one inside a maximum over tokens, written outside): the second
/// reading, kept where its program differs from the first's.
void second_reading(Readings& s) {
  if (!targets::has_product_abs_power_or_range(s.formula.root())) return;
  auto split = std::make_shared<const Program>(
      compile_with(s.passes, s.formula, s.bindings, s.token_dim, true));
  if (!planned_alike(*split, *s.first)) s.second = std::move(split);
}

/// The second reading where the first finds no efficient plan, taken where it finds one:
/// max(s, t) (dot(a, x[s]) * dot(b, x[t])) is a rank-one query-key product on (1,1) and four
/// retrievals on (4); max(s, t) abs(y_s - y_t) a pair's score on (1,1,1) and max y - min y on
/// (2).
void reading_choice(Planning& s) {
  if (!s.second || s.plan.verdict == Verdict::kEfficient) return;
  Planning other(s.passes, s.engine, s.second, s.architecture, s.node_cap);
  plan_with(other);
  if (other.plan.verdict != Verdict::kEfficient) return;
  other.plan.dominant += " (with E1's second reading: products of independent factors at their "
                         "vertices, |E| as the larger of max E and -min E, a range written "
                         "outside a maximum over tokens: " +
                         s.second->elimination_text() + ")";
  s.plan = std::move(other.plan);
}

}  // namespace

extern const Pass kSecondReadingPass;  // registered in pipeline.cpp, as is the pass below
const Pass kSecondReadingPass{
    .rule = "E1",
    .name = "second reading",
    .does =
        "a product, |E|, an even power or a range compiled again: every product at its vertices, "
        "|E| as max E and -min E; kept where the planner reads it otherwise",
    .stage = Stage::kReadings,
    .on_readings = second_reading};
extern const Pass kReadingChoicePass;
const Pass kReadingChoicePass{
    .rule = "E1",
    .name = "reading choice",
    .does = "where the first reading's plan is not efficient, the second's, taken if efficient",
    .stage = Stage::kReadingChoice,
    .on_architecture = reading_choice};

}  // namespace infoflow::theorems::detail
