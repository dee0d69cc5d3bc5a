// The quantity compiler's entry (docs/infoflow_engine.md, "Quantities"): the registry's passes
// (pipeline.cpp) on the formula; and the passes over the whole formula that are not the walk's:
// the hypotheses, the canonical form (C0), definedness, E4's test of token order.
#include "infoflow/theorems/program.hpp"

#include <algorithm>
#include <set>

#include "infoflow/core/error.hpp"
#include "infoflow/theorems/canonical_forms.hpp"

#include "compiler.hpp"
#include "pipeline.hpp"
#include "scope.hpp"
#include "values.hpp"

namespace infoflow::theorems {

namespace {

using targets::Node;

bool has_selection(const Node& n) {
  if (n.has_key()) return true;
  return std::any_of(n.args.begin(), n.args.end(), [](const Node& a) { return has_selection(a); });
}

/// E4: the constructs noted while compiling may read token order; the target's values decide
/// whether they do (a symmetric body under s < t, whatever its syntax, does not), and find what
/// no construct shows: a selection (`by`) whose key ties takes the first tuple in token order.
/// Where the formula cannot be evaluated, the constructs stand.
void decide_order(detail::Compilation& state) {
  const targets::Formula& formula = state.formula();
  Program& p = state.program;
  // Reductions over all tokens with no selection: no permutation changes their values.
  if (!formula.reads_positions() && !has_selection(formula.root())) return;
  const std::optional<bool> changes =
      detail::changes_when_tokens_permuted(formula, state.bindings, state.token_dim);
  if (!changes) return;
  if (!*changes) {
    p.order_dependent.clear();
  } else if (p.order_dependent.empty()) {
    p.order_dependent.push_back(
        "permuting the tokens changes its value: a selection ('by') whose key ties takes the "
        "first tuple in token order");
  }
}

void check_scope(detail::Compilation& state) {
  if (std::optional<std::string> why =
          detail::broken_hypothesis(state.written, state.bindings, state.token_dim)) {
    state.program.outside = std::move(why);
    state.done = true;
  }
}

/// Equal targets written differently compile alike (C0). Where the canonical form cannot be
/// compiled, the written one is (compile_with()), so that an error points into the formula as
/// written.
void canonicalise(detail::Compilation& state) {
  if (state.keep_written) return;
  const CanonicalForm canonical = canonical_form(state.written.root());
  if (canonical.applied.empty()) return;
  try {
    // The rewrites may have come back to the formula as written (as parsed: from_tree).
    targets::Formula read = targets::Formula::from_tree(canonical.root);
    if (targets::same_expression(read.root(), state.written.root())) return;
    state.program.read_as = read.text();
    state.program.rewrites = canonical.applied;
    state.canonical = std::move(read);
  } catch (const InputError&) {
    state.keep_written = true;
  }
}

/// A target undefined on some sequences has no rate to derive, and R1's reading of a monotone
/// function (max(t) log(y) as log(max(t) y)) would hide where it is undefined.
void check_defined(detail::Compilation& state) {
  if (detail::undefined_somewhere(state.formula(), state.bindings, state.token_dim)) {
    throw InputError(SourceLocation{"<formula>", 1, 1},
                     "the target is not a finite number on some random sequences (a log or "
                     "sqrt of a negative value, a division by zero, an overflow): it must be "
                     "defined on every sequence");
  }
}

std::vector<std::string> rewrite_ids() {
  std::vector<std::string> out;
  for (const CanonicalRewrite& r : canonical_rewrites()) out.push_back(r.id);
  return out;
}

}  // namespace

std::string to_text(Mode mode) {
  switch (mode) {
    case Mode::kRetrieval:
      return "max-position retrieval";
    case Mode::kRankStep:
      return "masked retrieval";
    case Mode::kPositions:
      return "specific-position aggregation";
    case Mode::kRelative:
      return "relative-position fetch";
    case Mode::kMean:
      return "uniform aggregation";
    case Mode::kAggregation:
      return "global aggregation";
  }
  return "";
}

bool Program::blocked() const {
  return std::any_of(quantities.begin(), quantities.end(),
                     [](const Quantity& q) { return q.mode == Mode::kAggregation; });
}

long Program::dimension() const {
  std::set<targets::Node, targets::ExpressionOrder> distinct;
  for (const Comparison& c : comparisons) {
    if (c.counts()) distinct.insert(c.reduction);
  }
  return static_cast<long>(distinct.size());
}

bool Program::reads_positions() const {
  return std::any_of(quantities.begin(), quantities.end(), [](const Quantity& q) {
    return q.mode == Mode::kPositions || q.mode == Mode::kRelative;
  });
}

std::string Program::elimination_text() const {
  std::string out;
  for (const Comparison& c : comparisons) out += (out.empty() ? "" : "; ") + c.elimination;
  return out;
}

Program compile(const targets::Formula& formula, const targets::Bindings& bindings, long token_dim,
                bool split_products) {
  return detail::compile_with(detail::passes(), formula, bindings, token_dim, split_products);
}

namespace detail {

extern const Pass kScopePass;  // registered in pipeline.cpp, as are the passes below
const Pass kScopePass{.rule = "S",
                      .name = "scope",
                      .does =
                          "the hypotheses every rate assumes: a value Lipschitz in the tokens on "
                          "their range, else outside the framework",
                      .stage = Stage::kTarget,
                      .on_target = check_scope};
extern const Pass kCanonicalFormsPass;
const Pass kCanonicalFormsPass{.rule = "C0",
                               .name = "canonical forms",
                               .does =
                                   "equal targets written differently compile alike: each node "
                                   "rewritten to a fixed point of the rewrites, operands first",
                               .stage = Stage::kTarget,
                               .on_target = canonicalise,
                               .steps = rewrite_ids};
extern const Pass kDefinedPass;
const Pass kDefinedPass{.rule = "S",
                        .name = "defined",
                        .does =
                            "a target that is not a finite number on some random sequence is bad "
                            "input",
                        .stage = Stage::kTarget,
                        .on_target = check_defined};
extern const Pass kTokenOrderPass;
const Pass kTokenOrderPass{.rule = "E4",
                           .name = "token order",
                           .does =
                               "the constructs that read token order, kept where permuting the "
                               "tokens changes the target's value",
                           .stage = Stage::kTarget,
                           .on_target = decide_order};

}  // namespace detail

}  // namespace infoflow::theorems
