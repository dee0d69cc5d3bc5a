// E1's vertex rules and R1's |L|: an extremum of a product of independent groups at a vertex of
// the groups' extrema, and of |E| or E^2 as the larger of max E and -min E.
#include <algorithm>
#include <functional>
#include <memory>

#include <fmt/format.h>

#include "infoflow/targets/monotone.hpp"
#include "infoflow/targets/node_algebra.hpp"

#include "compiler.hpp"
#include "elimination_order.hpp"
#include "pipeline.hpp"
#include "score_tests.hpp"

namespace infoflow::theorems::detail {

using targets::Node;
using K = targets::Node::Kind;

namespace {

/// The slope of `g` in the subexpression `inner` (g affine in it, its numbers literal), if known.
std::optional<double> slope_in(const Node& g, const Node& inner) {  // NOLINT(misc-no-recursion)
  if (targets::same_expression(g, inner)) return 1.0;
  const std::function<bool(const Node&)> mentions = [&](const Node& m) {
    return targets::same_expression(m, inner) ||
           std::any_of(m.args.begin(), m.args.end(), mentions);
  };
  if (!mentions(g)) return 0.0;
  if (g.kind == K::kNeg) {
    const std::optional<double> a = slope_in(g.args[0], inner);
    return a ? std::optional<double>(-*a) : std::nullopt;
  }
  if (g.kind == K::kAdd || g.kind == K::kSub) {
    const std::optional<double> a = slope_in(g.args[0], inner);
    const std::optional<double> b = slope_in(g.args[1], inner);
    if (!a || !b) return std::nullopt;
    return g.kind == K::kAdd ? *a + *b : *a - *b;
  }
  if (g.kind == K::kMul || g.kind == K::kDiv) {
    const bool left = mentions(g.args[0]);
    const std::optional<double> factor = targets::literal_number(g.args[left ? 1 : 0]);
    const std::optional<double> a = slope_in(g.args[left ? 0 : 1], inner);
    if (!factor || !a || (g.kind == K::kDiv && (!left || *factor == 0))) return std::nullopt;
    return g.kind == K::kMul ? *a * *factor : *a / *factor;
  }
  return std::nullopt;
}

/// The score inside an affine map of it (an offset, a sign, a nonzero factor): |g(L)| and
/// g(L)^2 are largest where L is largest or smallest, whatever the affine g (`abs(dot(a, x[t]) +
/// 1)`, `abs(-dot(a, x[t]))`).
const Node& affine_argument(const Node& m) {
  const Node* at = &m;
  while (at->kind != K::kCall && at->kind != K::kPow) {
    const std::optional<targets::MonotoneStep> step = targets::monotone_step(*at, true);
    if (!step) break;
    at = &at->args[step->argument];
  }
  return *at;
}

/// Whether a term reads a quantity of the sequence: a reduction, or a token at a fixed position.
bool summarises(const Node& m) {  // NOLINT(misc-no-recursion)
  if (m.kind == K::kReduce) return true;
  if (m.kind == K::kRef && m.name == "x" && (m.position > 0 || !m.position_name.empty()))
    return true;
  return std::any_of(m.args.begin(), m.args.end(), [](const Node& a) { return summarises(a); });
}

struct ProductGroup {
  std::set<std::string> indices;
  std::vector<const Node*> members;  // the product's factors over these indices, in order
};

/// The factors of a product term grouped by the indices they share (f(r) g(s) h(t): three
/// groups; one when the factors join every index), in the order they are written. Factors over
/// no index (constants) are left out: their sign is read at the vertices.
std::vector<ProductGroup> product_groups(const Node& term) {
  std::vector<ProductGroup> groups;
  for (const Node* part : targets::product_parts(term)) {
    ProductGroup joined{targets::token_indices_read(*part), {}};
    if (joined.indices.empty()) continue;
    for (auto it = groups.begin(); it != groups.end();) {
      if (std::any_of(it->indices.begin(), it->indices.end(),
                      [&](const std::string& x) { return joined.indices.count(x) != 0; })) {
        joined.indices.insert(it->indices.begin(), it->indices.end());
        joined.members.insert(joined.members.end(), it->members.begin(), it->members.end());
        it = groups.erase(it);
      } else {
        ++it;
      }
    }
    joined.members.push_back(part);
    groups.push_back(std::move(joined));
  }
  return groups;
}

/// How many subtrees of `n` are `what`.
long occurrences(const Node& n, const Node& what) {  // NOLINT(misc-no-recursion)
  if (targets::same_expression(n, what)) return 1;
  long count = 0;
  for (const Node& a : n.args) count += occurrences(a, what);
  return count;
}

/// The value of the extremum `n` of a product at its vertices (E1): the body with each group's
/// product read at one of the group's `extrema`, the extremum of those over every choice. A
/// group's first factor is replaced by the extremum's value and its others by 1, so each factor
/// must be a subtree of the body once; nullopt where one is not, or an extremum records no value.
std::optional<Value> vertex_value(const Program& program, const Node& n,
                                  const std::vector<ProductGroup>& groups,
                                  const std::vector<std::vector<Node>>& extrema) {
  const Node& body = n.args[0];
  std::vector<std::vector<Value>> at;  // per group, its extrema's values
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (const Node* member : groups[g].members) {
      if (occurrences(body, *member) != 1) return std::nullopt;
    }
    at.emplace_back();
    for (const Node& e : extrema[g]) {
      const auto value = program.values.find(e);
      if (value == program.values.end()) return std::nullopt;
      at.back().push_back(value->second);
    }
  }
  // A product's factor 1 (a group's other factors) is left out: u * 1 is u.
  const std::function<Value(Value)> without_ones = [&](Value v) {
    for (Value& a : v.args) a = without_ones(std::move(a));
    if (!v.is(K::kMul)) return v;
    const auto one = [](const Value& a) { return a.is(K::kNumber) && a.operation()->number == 1; };
    if (one(v.args[1])) return std::move(v.args[0]);
    if (one(v.args[0])) return std::move(v.args[1]);
    return v;
  };
  std::vector<Value> vertices;
  std::vector<std::size_t> choice(groups.size(), 0);
  while (true) {
    Value v = lifted(body);
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const std::vector<const Node*>& members = groups[g].members;
      for (std::size_t m = 0; m < members.size(); ++m)
        v = replaced(v, lifted(*members[m]), m == 0 ? at[g][choice[g]] : number(1));
    }
    vertices.push_back(without_ones(std::move(v)));
    std::size_t g = 0;  // the next choice, the last group's extremum varying fastest
    for (g = groups.size(); g > 0; --g) {
      if (++choice[g - 1] < at[g - 1].size()) break;
      choice[g - 1] = 0;
    }
    if (g == 0) break;
  }
  if (vertices.size() == 1) return std::move(vertices.front());
  return Value{Value::Combined{n.op}, std::move(vertices)};
}

/// |E| as the larger of E's largest and -E's smallest values, squared for E^2: #max(largest,
/// -smallest) as Program::values writes it.
Value larger_magnitude(Value largest, Value smallest, bool square) {
  Value larger{Value::Combined{targets::ReduceOp::kMax},
               {std::move(largest), operation(K::kNeg, {std::move(smallest)})}};
  if (!square) return larger;
  return operation(K::kPow, {std::move(larger), number(2)});
}

Deps absolute_selection(Compilation& state, const Node& n, const Node& score, bool square,
                        const std::set<std::string>& scope, Comparison& c);

/// max over one token of |L|, L linear in the token (no key, no constraint): |y| = max(y, -y),
/// so two retrievals of linear scores, one each, and the readout's FFN takes the larger.
/// Attention forms both scores from the raw tokens, where |L| itself would wait for an FFN
/// (R1). A selection by |L| (or L^2), `max(t by abs(L)) V`, is V at the token of max L or at
/// that of min L, whichever |L| is larger: the selections by L and by -L and the two extrema
/// of L, which share their retrievals.
std::optional<Deps> absolute_maximum(Compilation& state, const Node& n,
                                     const std::vector<std::string>& bound,
                                     const std::vector<Factor>& factors, const Deps& body_deps,
                                     const std::set<std::string>& scope, Comparison& c) {
  if (n.op != targets::ReduceOp::kMax || bound.size() != 1 || !body_deps.quantities.empty() ||
      !n.constraints.empty())
    return std::nullopt;
  const Node& objective = n.has_key() ? n.args[1] : n.args[0];
  const std::string& v = bound.front();
  const Factor* term = nullptr;
  for (const Factor& f : factors) {
    if (f.indices.count(v) == 0) continue;
    if (term != nullptr || f.constraint != nullptr) return std::nullopt;
    term = &f;
  }
  // The whole body, so that no sign or factor the terms drop (max(t) -abs(L) is -min |L|) hides.
  if (term == nullptr || term->indices.size() != 1 || !term->quantities.empty() ||
      !targets::same_expression(objective, *term->term))
    return std::nullopt;
  // |L| or L^2 (= |L|^2): L the one argument.
  const Node& t = *term->term;
  const bool absolute = t.kind == K::kCall && t.name == "abs" && t.args.size() == 1;
  const bool square = t.kind == K::kPow && t.args[1].kind == K::kNumber && t.args[1].number == 2;
  if (!absolute && !square) return std::nullopt;
  const Node& score = affine_argument(t.args[0]);
  if (!linear_in_tokens(score, v)) return std::nullopt;
  const std::string inner = targets::to_text(score);
  if (n.has_key()) return absolute_selection(state, n, score, square, scope, c);
  // Keyed as the retrievals of max L and min L elsewhere (one action with them).
  const std::string plain = canonical(score, {{v, "#v"}});
  std::vector<std::string> names;
  std::vector<Value> at_extremes;  // g(L) at the score's largest and smallest values
  Deps d = leftovers(factors, bound);
  for (const char* sign : {"", "-"}) {
    const int id =
        state.add(Quantity{}, std::string("ret|max|g|") + (*sign ? "-" : "+") + "|" + plain);
    Quantity& made = state.program.quantities[static_cast<std::size_t>(id)];
    if (made.what.empty()) {
      made.what = fmt::format("{} = the token maximising {}{} over {}", made.name, sign, inner, v);
      made.form.known = true;
      made.form.index = v;
      FormTerm signed_score;
      signed_score.node = std::make_shared<const Node>(score);
      signed_score.coefficient = *sign ? -1 : 1;
      made.form.terms.push_back(std::move(signed_score));
    }
    names.push_back(made.name);
    d.quantities.insert(id);
    // The quantity's value is c L at its token (c its form's number, the sign here unless
    // another retrieval made it): L there is the value over c.
    const Form& form = made.form;
    if (form.known && form.terms.size() == 1 && form.terms.front().node &&
        targets::same_expression(*form.terms.front().node, score) &&
        form.terms.front().coefficient != 0) {
      const Value at = held(id, 1 / form.terms.front().coefficient);
      at_extremes.push_back(lifted(t.args[0], &score, &at));
    }
  }
  // |g(L)| over the tokens, g affine of slope a > 0, is largest at max L or at min L: the
  // larger of g(max L) and -g(min L), which are ordered (g(max L) >= g(min L)) so that one
  // ReLU takes it; with a < 0 the two swap. g(L)^2 is that, squared.
  const std::optional<double> slope = slope_in(t.args[0], score);
  if (at_extremes.size() == 2 && slope && *slope != 0) {
    if (*slope < 0) std::swap(at_extremes[0], at_extremes[1]);
    state.program.values.emplace(
        n, larger_magnitude(std::move(at_extremes[0]), std::move(at_extremes[1]), square));
  }
  c.order = 1;
  c.elimination =
      &score == &t.args[0]
          ? fmt::format("{} -> {}, {} (|y| = max(y, -y){}: two maxima of a linear score)", v,
                        names[0], names[1], square ? ", y^2 = |y|^2" : "")
          : fmt::format(
                "{} -> {}, {} ({} is largest where {} is largest or smallest: two "
                "maxima of a linear score)",
                v, names[0], names[1], targets::to_text(t), inner);
  state.program.comparisons.push_back(c);
  return d;
}

Deps absolute_selection(Compilation& state, const Node& n, const Node& score, bool square,
                        const std::set<std::string>& scope, Comparison& c) {
  Deps d;
  std::vector<std::string> parts;
  for (const targets::ReduceOp op : {targets::ReduceOp::kMax, targets::ReduceOp::kMin}) {
    Node selection = n;
    selection.op = op;
    selection.args = {n.args[0], score};
    Node extremum = n;
    extremum.op = op;
    extremum.args = {score};
    for (const Node* r : {&selection, &extremum}) {
      d.add(state.token_reduction(*r, scope));
      parts.push_back(targets::to_text(*r));
    }
  }
  c.order = 1;
  c.elimination = fmt::format(
      "the token of the largest |y|{} is that of max y or of min y: {}, the readout's FFN "
      "taking the one whose key is larger",
      square ? " (y^2 = |y|^2)" : "", fmt::join(parts, ", "));
  c.summary = true;
  state.program.comparisons.push_back(c);
  return d;
}

/// max |L| (or L^2) as max L and min L is the second reading: the first retrieves by |L|, a key
/// feature the token-wise encoder computes (docs/theory.md, section 3), on one head.
std::optional<Deps> absolute_maximum_pass(Compilation& state, TokenReduction& r) {
  if (!state.split_products) return std::nullopt;
  std::optional<Deps> split =
      absolute_maximum(state, r.node, r.bound, r.factors, r.body_deps, r.scope, r.comparison);
  if (!split) return std::nullopt;
  return state.annotated(std::move(*split), r.node);
}

}  // namespace

extern const Pass kAbsoluteMaximumPass;  // registered in pipeline.cpp
const Pass kAbsoluteMaximumPass{.rule = "R1",
                                .name = "|L| as max L, min L",
                                .does =
                                    "second reading: max |L| over one token is the larger of max L "
                                    "and -min L, two retrievals of linear scores",
                                .stage = Stage::kReduction,
                                .on_reduction = absolute_maximum_pass};

std::optional<Deps> separable_product(Compilation& state, const Node& n,
                                      const std::vector<std::string>& bound,
                                      const std::vector<Factor>& factors,
                                      const std::set<std::string>& scope, Comparison& c) {
  if (n.has_key() || !n.constraints.empty()) return std::nullopt;
  const Factor* term = nullptr;
  for (const Factor& f : factors) {
    if (std::none_of(bound.begin(), bound.end(),
                     [&](const std::string& b) { return f.indices.count(b) != 0; }))
      continue;
    if (term != nullptr || f.term == nullptr) return std::nullopt;
    term = &f;
  }
  if (term == nullptr || term->indices.size() != bound.size()) return std::nullopt;
  const std::vector<ProductGroup> groups = product_groups(*term->term);
  // Factors over none of the bound indices that vary with the sequence (a mean, a retrieved
  // value: max(t) (y_t * sum(s) z_s)) are a value the readout holds beside the groups'
  // extrema; its sign picks the vertex, so where the sign is unknown both extrema are
  // fetched (one layer of three heads, where reading the mean first takes two layers).
  // The factors were compiled with the term (factor_of()); read here from the tree alone.
  std::vector<const Node*> free_parts;
  std::vector<const Node*> constant_parts;
  for (const Node* part : targets::product_parts(*term->term)) {
    if (!targets::token_indices_read(*part).empty()) continue;
    (summarises(*part) ? free_parts : constant_parts).push_back(part);
  }
  if (groups.size() < 2 && free_parts.empty()) return std::nullopt;
  for (const ProductGroup& g : groups) {
    for (const Node* member : g.members) {
      if (summarises(*member)) return std::nullopt;
    }
  }
  // With one group, a free factor of a known sign (E5's draws: never negative, say) leaves one
  // extremum of the group to fetch, where the term's own sign and constants are known too (a
  // parameter's sign is a draw).
  std::optional<int> sign = groups.size() == 1 && term->sign == "+" && constant_parts.empty()
                                ? std::optional<int>(1)
                                : std::nullopt;
  for (const Node* part : free_parts) {
    const std::optional<int> s = sign ? state.closed_sign(*part) : std::nullopt;
    sign = s ? std::optional<int>(*sign * *s) : std::nullopt;
  }
  Deps d = leftovers(factors, bound);
  d.quantities.insert(term->quantities.begin(), term->quantities.end());  // the free factors'
  for (const std::string& i : term->indices) {
    if (std::find(bound.begin(), bound.end(), i) == bound.end()) d.indices.insert(i);
  }
  std::vector<std::string> parts_text;
  std::vector<std::vector<Node>> extrema;  // per group, its maximum and minimum (or the one read)
  int order = 1;
  for (const auto& [indices, members] : groups) {
    extrema.emplace_back();
    const Node product = targets::product_of(members);
    std::vector<targets::ReduceOp> ops{targets::ReduceOp::kMax, targets::ReduceOp::kMin};
    if (sign)
      ops = {(n.op == targets::ReduceOp::kMax) == (*sign > 0) ? targets::ReduceOp::kMax
                                                              : targets::ReduceOp::kMin};
    for (const targets::ReduceOp op : ops) {
      Node r = n;
      r.op = op;
      r.binders.clear();
      for (const targets::Binder& b : n.binders) {
        if (indices.count(b.name) != 0) r.binders.push_back(b);
      }
      r.args = {product};
      const std::size_t before = state.program.comparisons.size();
      d.add(state.token_reduction(r, scope));
      for (std::size_t i = before; i < state.program.comparisons.size(); ++i)
        order = std::max(order, state.program.comparisons[i].order);
      parts_text.push_back(targets::to_text(r));
      extrema.back().push_back(std::move(r));
    }
  }
  if (std::optional<Value> value = vertex_value(state.program, n, groups, extrema))
    state.program.values.emplace(n, std::move(*value));
  std::vector<std::string> free_text;
  for (const Node* part : free_parts) free_text.push_back(targets::to_text(*part));
  // The term's sign and numbers were taken off it (additive_terms()); the text shows them.
  const std::string scaled = term->signed_text() == term->text ? "" : ", in " + term->signed_text();
  c.order = order;
  c.elimination =
      groups.size() >= 2
          ? fmt::format(
                "its factors split the indices into independent groups, so its "
                "extremum is at a vertex: {} (a product of each group's maximum or "
                "minimum{}{})",
                fmt::join(parts_text, ", "),
                free_text.empty() ? ""
                                  : ", times " + fmt::format("{}", fmt::join(free_text, " * ")),
                scaled)
          : fmt::format(
                "{} varies with the sequence but not with the indices, so the extremum "
                "is at {}{}",
                fmt::join(free_text, " * "), fmt::join(parts_text, " or "),
                sign ? " (its sign never changes on random sequences)" : "");
  c.summary = true;
  state.program.comparisons.push_back(c);
  return d;
}

std::optional<Deps> absolute_split(Compilation& state, const Node& n,
                                   const std::vector<Factor>& factors,
                                   const std::set<std::string>& scope, Comparison& c) {
  if (n.op != targets::ReduceOp::kMax || n.has_key()) return std::nullopt;
  const auto scoring = std::count_if(factors.begin(), factors.end(),
                                     [](const Factor& f) { return f.constraint == nullptr; });
  if (scoring != 1) return std::nullopt;
  const Factor& only = *std::find_if(factors.begin(), factors.end(),
                                     [](const Factor& f) { return f.constraint == nullptr; });
  if (only.term == nullptr || only.sign != "+") return std::nullopt;
  const Node& t = *only.term;
  const bool absolute = t.kind == K::kCall && t.name == "abs" && t.args.size() == 1;
  const bool square = t.kind == K::kPow && t.args[1].kind == K::kNumber && t.args[1].number == 2;
  if (!absolute && !square) return std::nullopt;
  Deps d;
  std::vector<std::string> parts;
  std::vector<Node> extrema;
  for (const targets::ReduceOp op : {targets::ReduceOp::kMax, targets::ReduceOp::kMin}) {
    Node r = n;
    r.op = op;
    r.args = {t.args[0]};
    d.add(state.token_reduction(r, scope));
    parts.push_back(targets::to_text(r));
    extrema.push_back(std::move(r));
  }
  int order = 1;
  for (const Comparison& other : state.program.comparisons) {
    if (std::any_of(extrema.begin(), extrema.end(), [&](const Node& e) {
          return targets::same_expression(e, other.reduction);
        }))
      order = std::max(order, other.order);
  }
  c.order = order;
  c.elimination = fmt::format("{} is the larger of {} and -{}{}", absolute ? "|E|" : "E^2",
                              parts[0], parts[1], absolute ? "" : ", squared");
  c.summary = true;
  state.program.comparisons.push_back(c);
  const auto largest = state.program.values.find(extrema[0]);
  const auto smallest = state.program.values.find(extrema[1]);
  if (largest != state.program.values.end() && smallest != state.program.values.end())
    state.program.values.emplace(n, larger_magnitude(largest->second, smallest->second, square));
  return d;
}

bool blocked_only_by_products(const std::vector<Factor>& factors,
                              const std::vector<std::string>& bound) {
  std::vector<std::set<std::string>> relaxed;  // the factors' index sets, a group a factor
  bool split = false;
  for (const Factor& f : factors) {
    if (f.term != nullptr && f.quantities.empty() && f.indices.size() >= 2) {
      const std::vector<ProductGroup> groups = product_groups(*f.term);
      if (groups.size() >= 2) {
        split = true;
        for (const ProductGroup& g : groups) relaxed.push_back(g.indices);
        continue;
      }
    }
    relaxed.push_back(f.indices);
  }
  return split && best_order(relaxed, bound).widest < 2;
}

}  // namespace infoflow::theorems::detail
