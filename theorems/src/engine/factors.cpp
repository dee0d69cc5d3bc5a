// E3: a token reduction's factors, which every rule after it reads: the objective's additive
// terms, each with what it reads, and the index constraints, which couple the indices they name.
#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "infoflow/core/error.hpp"
#include "infoflow/targets/node_algebra.hpp"

#include "compiler.hpp"
#include "pipeline.hpp"

namespace infoflow::theorems::detail {

namespace {

using targets::Node;

/// Is `objective` unchanged by every permutation of `indices` (adjacent swaps generate them)?
bool symmetric(const Node& objective, const std::vector<std::string>& indices) {
  const std::string base = canonical(objective, {});
  for (std::size_t i = 0; i + 1 < indices.size(); ++i) {
    const std::map<std::string, std::string> swap{{indices[i], indices[i + 1]},
                                                  {indices[i + 1], indices[i]}};
    if (canonical(objective, swap) != base) return false;
  }
  return true;
}

/// The fewest tokens on which reduction `n` has an index tuple: its token indices, and the
/// outer ones its constraints name, on tokens that each constraint keeps apart (an order
/// chains: t1 < t2 < t3 needs three, s != t and t != u two). The least number of colours of
/// that graph, by trying them in turn (a reduction binds a few indices).
long fewest_tokens(const Node& n) {
  std::vector<std::string> names;
  const auto id = [&](const std::string& name) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) return static_cast<std::size_t>(it - names.begin());
    names.push_back(name);
    return names.size() - 1;
  };
  for (const targets::Binder& b : n.binders) {
    if (!b.has_range) id(b.name);
  }
  for (const targets::IndexConstraint& c : n.constraints) {
    id(c.left);
    id(c.right);
  }
  const std::size_t v = names.size();
  std::vector<std::vector<bool>> apart(v, std::vector<bool>(v, false));
  std::vector<std::vector<bool>> before(v, std::vector<bool>(v, false));
  for (const targets::IndexConstraint& c : n.constraints) {
    const std::size_t a = id(c.left);
    const std::size_t b = id(c.right);
    apart[a][b] = apart[b][a] = true;
    if (c.strict_order) before[a][b] = true;
  }
  for (std::size_t k = 0; k < v; ++k) {
    for (std::size_t i = 0; i < v; ++i) {
      for (std::size_t j = 0; j < v; ++j) {
        if (before[i][k] && before[k][j]) before[i][j] = true;
      }
    }
  }
  for (std::size_t i = 0; i < v; ++i) {
    for (std::size_t j = 0; j < v; ++j) {
      if (before[i][j]) apart[i][j] = apart[j][i] = true;
    }
  }
  std::vector<long> colour(v, -1);
  const std::function<bool(std::size_t, long)> colourable = [&](std::size_t i, long colours) {
    if (i == v) return true;
    for (long k = 0; k < colours; ++k) {
      bool free = true;
      for (std::size_t j = 0; j < i; ++j) free = free && !(apart[i][j] && colour[j] == k);
      if (!free) continue;
      colour[i] = k;
      if (colourable(i + 1, colours)) return true;
    }
    return false;
  };
  long colours = 1;
  while (!colourable(0, colours)) ++colours;
  return colours;
}

/// The factors the rules after it read: the objective's additive terms, each with what it reads,
/// and the index constraints, which couple the indices they name (E3); an order no symmetry
/// undoes is noted for E4. A preparation: it compiles nothing itself.
std::optional<Deps> read_factors(Compilation& state, TokenReduction& r) {
  const Node& n = r.node;
  for (const targets::Binder& b : n.binders) r.bound.push_back(b.name);
  std::set<std::string> inner = r.scope;
  inner.insert(r.bound.begin(), r.bound.end());
  const Node& body = n.args[0];
  const Node& objective = n.has_key() ? n.args[1] : body;
  std::vector<Term> terms;
  additive_terms(objective, Term{}, terms, state.made, !state.split_products);
  // A term times the number 0 couples nothing (max(s, t) (y_t + 0 * z_s) is max y); where
  // every term is one, E5 has found the constant already.
  if (std::any_of(terms.begin(), terms.end(), [](const Term& t) { return !t.zero; }))
    std::erase_if(terms, [](const Term& t) { return t.zero; });
  for (const Term& t : terms) r.factors.push_back(state.factor_of(t, inner));
  if (n.has_key()) r.body_deps = state.expr(body, inner);
  std::vector<std::string> ordered;
  for (const targets::IndexConstraint& c : n.constraints) {
    Factor f;
    f.indices = {c.left, c.right};
    f.text = c.left + (c.strict_order ? " < " : " != ") + c.right;
    f.constraint = &c;
    r.factors.push_back(f);
    if (c.strict_order) {
      for (const std::string& i : {c.left, c.right}) {
        if (std::find(ordered.begin(), ordered.end(), i) == ordered.end()) ordered.push_back(i);
      }
    }
  }
  // A symmetric body makes s < t the same as s != t only when this reduction binds both: with
  // t bound further out, the tokens s ranges over depend on t's position.
  const bool binds_ordered = std::all_of(ordered.begin(), ordered.end(), [&](const std::string& i) {
    return std::find(r.bound.begin(), r.bound.end(), i) != r.bound.end();
  });
  if (!ordered.empty() && !(binds_ordered && symmetric(objective, ordered) &&
                            (!n.has_key() || symmetric(body, ordered)))) {
    state.note_order("'" + targets::to_text(n) + "' orders its indices (" +
                     fmt::format("{}", fmt::join(ordered, " < ")) + ") and " +
                     (binds_ordered ? "its body is not symmetric in them"
                                    : "binds only some of them (the range depends on a position)"));
  }
  if (const auto tokens = state.bindings.find("T");
      tokens != state.bindings.end() && tokens->second < fewest_tokens(n)) {
    throw InputError(SourceLocation{"<formula>", 1, n.column},
                     fmt::format("'{}' has no index tuple for T = {}: it needs {} distinct "
                                 "tokens",
                                 targets::to_text(n), tokens->second, fewest_tokens(n)));
  }
  r.comparison.text = targets::to_text(n);
  r.comparison.reduction = n;
  return std::nullopt;
}

}  // namespace

extern const Pass kFactorsPass;  // registered in pipeline.cpp
const Pass kFactorsPass{.rule = "E3",
                        .name = "factors",
                        .does =
                            "the objective's terms and the index constraints, each a factor over "
                            "the indices it couples; an order no symmetry undoes is noted (E4)",
                        .stage = Stage::kReduction,
                        .on_reduction = read_factors};

}  // namespace infoflow::theorems::detail
