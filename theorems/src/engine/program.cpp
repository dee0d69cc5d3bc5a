// The quantity compiler's entry (docs/infoflow_engine.md, "Quantities"): the canonical form
// (C0), then the compiler (compiler.hpp) on the target as its readings leave it, then E4's test of
// token order.
#include "infoflow/theorems/program.hpp"

#include <algorithm>
#include <set>

#include "infoflow/core/error.hpp"
#include "infoflow/theorems/canonical_forms.hpp"

#include "compiler.hpp"
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
void decide_order(const targets::Formula& formula, const targets::Bindings& bindings,
                  long token_dim, Program& p) {
  // Reductions over all tokens with no selection: no permutation changes their values.
  if (!formula.reads_positions() && !has_selection(formula.root())) return;
  const std::optional<bool> changes =
      detail::changes_when_tokens_permuted(formula, bindings, token_dim);
  if (!changes) return;
  if (!*changes) {
    p.order_dependent.clear();
  } else if (p.order_dependent.empty()) {
    p.order_dependent.push_back(
        "permuting the tokens changes its value: a selection ('by') whose key ties takes the "
        "first tuple in token order");
  }
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
  if (std::optional<std::string> why = detail::broken_hypothesis(formula, bindings, token_dim)) {
    Program p;
    p.outside = std::move(why);
    return p;
  }
  // Equal targets written differently compile alike (C0). Where the canonical form cannot be
  // compiled, the written one is, so that an error points into the formula as written.
  const CanonicalForm canonical = canonical_form(formula.root());
  if (!canonical.applied.empty()) {
    try {
      // The rewrites may have come back to the formula as written (as parsed: from_tree).
      const targets::Formula read = targets::Formula::from_tree(canonical.root);
      if (!targets::same_expression(read.root(), formula.root())) {
        Program p = detail::Compiler(read, bindings, token_dim, split_products).run();
        decide_order(read, bindings, token_dim, p);
        p.read_as = read.text();
        p.rewrites = canonical.applied;
        return p;
      }
    } catch (const InputError&) {
    }
  }
  Program p = detail::Compiler(formula, bindings, token_dim, split_products).run();
  decide_order(formula, bindings, token_dim, p);
  return p;
}

}  // namespace infoflow::theorems
