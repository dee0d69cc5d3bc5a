// E1 and E2: a reduction's token indices eliminated one at a time into retrievals, each message a
// global quantity (over no index) or a token quantity (over one); no admissible order is R4.
#include <algorithm>
#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "infoflow/targets/node_algebra.hpp"

#include "compiler.hpp"
#include "elimination_order.hpp"
#include "pipeline.hpp"
#include "score_tests.hpp"

namespace infoflow::theorems::detail {

using targets::Node;
using K = targets::Node::Kind;

namespace {

/// The index sets of `factors`, which the elimination-order search reads.
std::vector<std::set<std::string>> scopes_of(const std::vector<Factor>& factors) {
  std::vector<std::set<std::string>> out;
  out.reserve(factors.size());
  for (const Factor& f : factors) out.push_back(f.indices);
  return out;
}

/// Program::values for a closed extremum resolved by `last`: its value, plus the terms left
/// over that read no index (a constant offset); a selection's value is its body at the token.
void record_value(Compilation& state, const Node& n, const std::vector<Factor>& left, int last,
                  double ratio, const std::string& index);

/// The value of a selection over a pair, max(s, t by key) body, eliminated as s -> m(t), t -> g:
/// the body at (m(t*), t*), t* the token g chose. Its terms over t are read at t*, those over s
/// at the token m chose for t*, which t* holds: #select(g, terms over t + #select(m, terms over
/// s)). nullopt where a term reads both, or a parameter scales one; and where the key ties
/// every pair with its swap (dot(x[s], x[t]), s != t) and the body does not, so that which of
/// the two is chosen is the order of the tokens, not the key.
std::optional<Value> pair_selection_value(const Node& n, int inner, const std::string& inner_index,
                                          int outer) {
  const std::string& first = n.binders[0].name;
  const std::string& second = n.binders[1].name;
  const std::map<std::string, std::string> swap{{first, second}, {second, first}};
  const bool ordered = std::any_of(n.constraints.begin(), n.constraints.end(),
                                   [](const targets::IndexConstraint& c) { return c.strict_order; });
  if (!ordered && canonical(n.args[1], {}) == canonical(n.args[1], swap) &&
      canonical(n.args[0], {}) != canonical(n.args[0], swap))
    return std::nullopt;
  std::vector<Term> terms;
  std::deque<Node> made;
  additive_terms(n.args[0], Term{}, terms, made, true);
  std::vector<Value> read;
  for (const Term& t : terms) {
    if (t.zero) continue;
    if (!t.constants.empty()) return std::nullopt;
    const std::set<std::string> reads = targets::token_indices_read(*t.node);
    if (reads.size() > 1) return std::nullopt;
    Value term = lifted(*t.node);
    if (reads.count(inner_index) != 0)
      term = Value{Value::Selected{inner, inner_index}, {std::move(term)}};
    const double c = (t.negative ? -1 : 1) * t.magnitude;
    read.push_back(c == 1 ? std::move(term) : operation(K::kMul, {number(c), std::move(term)}));
  }
  const std::string& outer_index = first == inner_index ? second : first;
  return Value{Value::Selected{outer, outer_index}, {sum_of(std::move(read))}};
}

Deps extremum(Compilation& state, const Node& n, const std::vector<std::string>& bound,
              std::vector<Factor> factors, const Deps& body_deps,
              const std::set<std::string>& scope, Comparison& c) {
  const Elimination e = best_order(scopes_of(factors), bound);
  const char* op = n.op == targets::ReduceOp::kMin || Compilation::ranks_last(n) ? "min" : "max";
  if (state.split_products && e.widest < 2) {
    if (std::optional<Deps> split = separable_product(state, n, bound, factors, scope, c))
      return *split;
    if (std::optional<Deps> split = absolute_split(state, n, factors, scope, c)) return *split;
  }
  if (e.widest >= 2) {
    if (std::optional<Deps> split = separable_product(state, n, bound, factors, scope, c))
      return *split;
    if (std::optional<Deps> split = absolute_split(state, n, factors, scope, c)) return *split;
    if (blocked_only_by_products(factors, bound)) {
      state.outside(
          "'" + c.text +
          "': a product of factors over independent groups of indices, "
          "beside other terms, is what couples the indices; its extremum is at a vertex of "
          "the groups, which no rule of the framework combines with the other terms: read "
          "as undecided, not as a blocked comparison");
    }
    if (bound.size() > kExhaustiveIndices) {
      // Not every order was tried: that none is admissible is not shown.
      state.outside(
          fmt::format("'{}': over {} indices, neither the written elimination order nor "
                      "the greedy one is admissible (a factor over {} indices remains), "
                      "and the {}! orders are not all tried: undecided, not a blocked "
                      "comparison",
                      c.text, bound.size(), e.widest, bound.size()));
    }
    return blocked(state, c, static_cast<int>(e.widest) + 1,
                   fmt::format("no elimination order: eliminating any index leaves a factor "
                               "over {} indices",
                               e.widest),
                   factors, bound);
  }
  std::vector<std::string> steps;
  std::vector<std::pair<int, std::string>> made_at;  // each step's quantity and its holder index
  int last = -1;
  std::string last_at;
  double last_ratio = 1;
  std::string last_index;
  for (const std::string& v : e.order) {
    auto [message, needs, texts, constraints, used] = factors_reading(factors, v);
    // An index no term reads (its term was times 0) is free in a maximum's value: no fetch. A
    // selection still picks its token (by position, where its key ties).
    if (used.empty() && !n.has_key()) continue;
    message.erase(v);
    const std::string over =
        constraints.empty() ? v : fmt::format("{} ({})", v, fmt::join(constraints, ", "));
    const std::string at_name = message.empty() ? "" : *message.begin();
    std::map<std::string, std::string> rename{{v, "#v"}};
    if (!at_name.empty()) rename.emplace(at_name, "#u");
    std::vector<std::string> keys;
    const bool one_term = scoring_terms(used) == 1;  // y and 2 y: one token; y + 2 z: not y + z
    for (const Factor* f : used) keys.push_back(f->key(rename, one_term));
    // The value read at the retrieved token must be there: the body's quantities on v.
    if (body_deps.indices.count(v) != 0 || bound.size() == 1)
      needs.insert(body_deps.quantities.begin(), body_deps.quantities.end());
    const std::string& at = at_name;
    Quantity q;
    q.holder = at.empty() ? Holder::kGlobal : Holder::kToken;
    q.needs.assign(needs.begin(), needs.end());
    q.needs_ffn = !scores_from_encoded_tokens(used, v, at, n.has_key());
    const std::string objective = fmt::format("{}", fmt::join(texts, " + "));
    // The minimum of -y is at the token of the maximum of y: one action (max(t) y - min(t) (-y)
    // is 2 max(t) y). A minimum is keyed as the maximum of its negated terms and messages; its
    // own message is then the negated value of the quantity.
    const bool negated = std::string(op) == "min";
    if (negated) {
      for (std::string& k : keys) {
        if (k.front() == '+' || k.front() == '-') k.front() = k.front() == '-' ? '+' : '-';
      }
    }
    std::sort(keys.begin(), keys.end());
    std::string key = fmt::format("ret|max|{}|{}", at.empty() ? "g" : "t", fmt::join(keys, ";"));
    for (const int need : needs) key += "|" + std::to_string(need);
    const int id = state.add(q, key);
    Quantity& made = state.program.quantities[static_cast<std::size_t>(id)];
    if (made.what.empty()) {
      made.what = at.empty() ? fmt::format("{} = the token {}imising {} over {}", made.name, op,
                                           objective, over)
                             : fmt::format("{}({}) = for each token {}, the token {} {}imising {}",
                                           made.name, at, at, over, op, objective);
      if (made.needs_ffn) made.what += kScoreNeedsFfn;
      made.form = form_of(used, v, at, negated);
    }
    const double ratio = ratio_to_form(made.form, used, negated, one_term);
    const std::string label = at.empty() ? made.name : made.name + "(" + at + ")";
    steps.push_back(v + " -> " + label);
    made_at.emplace_back(id, at);
    std::vector<Factor> kept;
    for (Factor& f : factors) {
      if (f.indices.count(v) == 0) kept.push_back(std::move(f));
    }
    Factor m;
    m.indices = message;
    m.quantities = {id};
    m.text = label;
    m.message = id;
    m.message_at = at;
    m.ratio = ratio;
    // A score of one term was keyed up to its size; the message keeps the size (4 m(t) and
    // m(t) / 4 are two values for the next step).
    m.scale =
        std::string(negated ? "-" : "+") + (one_term && single_score(used)->magnitude != 1
                                                ? fmt::format("*{}", single_score(used)->magnitude)
                                                : "");
    kept.push_back(m);
    factors = std::move(kept);
    last = id;
    last_at = at;
    last_ratio = ratio;
    last_index = v;
  }
  c.order = static_cast<int>(e.widest) + 1;
  c.elimination = fmt::format("{}", fmt::join(steps, "; "));
  state.program.comparisons.push_back(c);
  if (last >= 0 && last_at.empty() && n.has_key() && made_at.size() == 2 &&
      made_at[0].second == last_index) {
    if (std::optional<Value> value = pair_selection_value(n, made_at[0].first, e.order[0], last))
      state.program.values.emplace(n, std::move(*value));
  } else if (last >= 0 && last_at.empty()) {
    record_value(state, n, factors, last, last_ratio, last_index);
  }
  // A reduction held at a token (its value a message of the enclosing one) is that message.
  if (last >= 0 && !last_at.empty() && !n.has_key() && factors.size() == 1)
    state.program.values.emplace(n, held(last, last_ratio));
  // What is left (terms over outer indices only, and the messages) makes the value.
  Deps d = leftovers(factors, bound);
  if (last >= 0) d.quantities.insert(last);
  if (!last_at.empty()) d.indices.insert(last_at);
  outer_indices_of_body(body_deps, bound, d);
  return d;
}

std::optional<Deps> elimination(Compilation& state, TokenReduction& r) {
  return state.annotated(
      extremum(state, r.node, r.bound, r.factors, r.body_deps, r.scope, r.comparison), r.node);
}

}  // namespace

extern const Pass kEliminationPass;  // registered in pipeline.cpp
const Pass kEliminationPass{.rule = "E1 E2",
                            .name = "elimination",
                            .does =
                                "the indices eliminated one at a time, each a retrieval at the "
                                "tokens that remain (order 2: E2); a product at its vertices where "
                                "blocked; no admissible order: R4",
                            .stage = Stage::kReduction,
                            .on_reduction = elimination};

Deps blocked(Compilation& state, Comparison& c, int order, std::string why,
             const std::vector<Factor>& factors, const std::vector<std::string>& bound) {
  c.blocked = true;
  c.order = order;
  c.elimination = std::move(why);
  state.program.comparisons.push_back(c);
  Quantity q;
  q.mode = Mode::kAggregation;
  q.order = order;
  q.what = "the whole sequence, for " + c.text;
  Deps d = leftovers(factors, bound);
  d.quantities.insert(state.add(q, ""));
  return d;
}

namespace {

void record_value(Compilation& state, const Node& n, const std::vector<Factor>& left, int last,
                  double ratio, const std::string& index) {
  std::vector<Value> terms;
  if (n.has_key()) {
    if (n.binders.size() != 1) return;
    state.program.values.emplace(n, selected_value(last, n.args[0], index));
    return;
  }
  terms.push_back(held(last, ratio));
  for (std::size_t i = 0; i < left.size(); ++i) {
    const Factor& f = left[i];
    if (i + 1 == left.size() && f.message == last) continue;  // the value itself
    if (!f.indices.empty() || f.constraint != nullptr) return;
    if (f.message >= 0) {  // a closed maximum eliminated before: a term of the value
      terms.push_back(held(f.message, f.ratio));
      continue;
    }
    const std::optional<FormTerm> t = form_term(f);
    if (!t) return;
    terms.push_back(operation(K::kMul, {number(t->coefficient), lifted(*t->node)}));
  }
  state.program.values.emplace(n, sum_of(std::move(terms)));
}

}  // namespace

Deps leftovers(const std::vector<Factor>& factors, const std::vector<std::string>& bound) {
  Deps d;
  for (const Factor& f : factors) {
    if (std::none_of(bound.begin(), bound.end(),
                     [&](const std::string& b) { return f.indices.count(b) != 0; })) {
      d.indices.insert(f.indices.begin(), f.indices.end());
      d.quantities.insert(f.quantities.begin(), f.quantities.end());
    }
  }
  return d;
}

Form form_of(const std::vector<const Factor*>& used, const std::string& v, const std::string& at,
             bool minimum) {
  Form form;
  form.index = v;
  form.at = at;
  form.minimum = minimum;
  form.known = true;
  for (const Factor* f : used) {
    if (f->constraint != nullptr) {
      form.constraints.push_back(*f->constraint);
    } else if (std::optional<FormTerm> t = form_term(*f)) {
      form.terms.push_back(std::move(*t));
    } else {
      form.known = false;
      form.unknown = "a parameter, not a number, scales the term " + f->text;
    }
  }
  return form;
}

double ratio_to_form(const Form& form, const std::vector<const Factor*>& used, bool minimum,
                     bool one_term) {
  const double sign = form.minimum == minimum ? 1 : -1;
  if (!one_term || form.terms.size() != 1) return sign;
  const Factor* mine = single_score(used);
  const std::optional<FormTerm> term = form_term(*mine);
  if (!term || term->coefficient == 0 || form.terms.front().coefficient == 0) return sign;
  return sign * std::abs(term->coefficient / form.terms.front().coefficient);
}

void outer_indices_of_body(const Deps& body_deps, const std::vector<std::string>& bound, Deps& d) {
  for (const std::string& i : body_deps.indices) {
    if (std::find(bound.begin(), bound.end(), i) == bound.end()) d.indices.insert(i);
  }
}

Value selected_value(int last, const Node& body, const std::string& index) {
  return Value{Value::Selected{last, index}, {lifted(body)}};
}

}  // namespace infoflow::theorems::detail
