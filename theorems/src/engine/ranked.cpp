// R2: a k-th largest (k >= 2) as a chain of k retrievals, each masked by the one before; identical
// chains are one.
#include <algorithm>

#include <fmt/format.h>

#include "infoflow/core/error.hpp"

#include "compiler.hpp"
#include "pipeline.hpp"
#include "score_tests.hpp"

namespace infoflow::theorems::detail {

using targets::Node;
using K = targets::Node::Kind;

namespace {

/// The highest rank of a k-th largest: R2 chains k masked maxima, a quantity each, and planning
/// grows with k^2; no architecture searched places more than a few dozen.
constexpr long kMaxRank = 1024;

/// Program::values for a k-th largest resolved by its chain's last step `last`: the step's
/// value, or the selection's body at its token; recorded where the score is the whole body.
void record_rank_value(Compilation& state, const Node& n, int last,
                       const std::vector<const Factor*>& used, const std::vector<Factor>& factors,
                       const std::string& index, const std::string& at);

Deps ranked(Compilation& state, const Node& n, const std::vector<std::string>& bound,
            std::vector<Factor> factors, const Deps& body_deps, long k, Comparison& c) {
  const bool selection = n.has_key();
  if (bound.size() != 1) {
    state.outside("'" + c.text +
                  "': a k-th largest over index tuples is not a rule of the framework "
                  "(Theorem 2 ranks single tokens)");
    return {};
  }
  const std::string& v = bound.front();
  // The terms come before the index constraints among the factors of a k-th largest, which
  // has no earlier messages: the objective lists them in that order.
  auto [message, needs, texts, constraints, used] = factors_reading(factors, v);
  texts.insert(texts.end(), constraints.begin(), constraints.end());
  message.erase(v);
  if (message.size() >= 2) {
    return blocked(state, c, static_cast<int>(message.size()) + 1,
                   "the k-th largest couples " + std::to_string(message.size() + 1) + " indices",
                   factors, bound);
  }
  needs.insert(body_deps.quantities.begin(), body_deps.quantities.end());
  const std::string at = message.empty() ? "" : *message.begin();
  const std::string objective = fmt::format("{}", fmt::join(texts, " + "));
  // Identical k-th largests (same rank, score up to renaming the indices, inputs) are one
  // chain, as identical retrievals are one action: kth(2, t) y + kth(2, s) y needs one.
  std::map<std::string, std::string> rename{{v, "#v"}};
  if (!at.empty()) rename.emplace(at, "#u");
  std::vector<std::string> keys;
  const bool one_term = scoring_terms(used) == 1;
  for (const Factor* f : used) keys.push_back(f->key(rename, one_term));
  std::sort(keys.begin(), keys.end());
  std::string chain_key = fmt::format("kth|{}|{}|{}|{}", k, at.empty() ? "g" : "t",
                                      selection ? "by" : "", fmt::join(keys, ";"));
  for (const int need : needs) chain_key += "|" + std::to_string(need);
  if (const auto same = state.merged_chains.find(chain_key); same != state.merged_chains.end()) {
    const Ranked& earlier = state.program.ranked[same->second];
    std::vector<std::string> names;
    for (const int step : earlier.steps)
      names.push_back(state.program.quantities[static_cast<std::size_t>(step)].name);
    c.order = at.empty() ? 1 : 2;
    c.elimination = fmt::format("{} -> {} (k = {} masked maxima, the chain of {})", v,
                                fmt::join(names, ", "), k, earlier.text);
    state.program.comparisons.push_back(c);
    record_rank_value(state, n, earlier.steps.back(), used, factors, v, at);
    Deps d = leftovers(factors, bound);
    d.quantities.insert(earlier.steps.back());
    if (!at.empty()) d.indices.insert(at);
    outer_indices_of_body(body_deps, bound, d);
    return d;
  }
  state.merged_chains.emplace(chain_key, state.program.ranked.size());
  Ranked r;
  r.rank = k;
  r.text = c.text;
  int previous = -1;
  std::vector<std::string> steps;
  for (long j = 1; j <= k; ++j) {
    Quantity q;
    q.holder = at.empty() ? Holder::kGlobal : Holder::kToken;
    q.mode = j == 1 ? Mode::kRetrieval : Mode::kRankStep;
    q.needs.assign(needs.begin(), needs.end());
    q.needs_ffn = !scores_from_encoded_tokens(used, v, at, selection);
    if (previous >= 0) q.needs.push_back(previous);
    // Step j of every chain with this score is one action, the first the maximum's (max(t) y
    // + kth(2, t) y + kth(3, t) y is one chain of three).
    std::string step_key = fmt::format("{}|{}|{}", j == 1 ? "ret|max" : fmt::format("rank|{}", j),
                                       at.empty() ? "g" : "t", fmt::join(keys, ";"));
    for (const int need : needs) step_key += "|" + std::to_string(need);
    const int id = state.add(q, step_key);
    Quantity& made = state.program.quantities[static_cast<std::size_t>(id)];
    if (made.what.empty()) {
      made.what =
          j == 1 ? fmt::format("{}{} = the token of the largest {} over {}", made.name,
                               at.empty() ? "" : "(" + at + ")", objective, v)
                 : fmt::format("{}{} = the token of the largest {} over {} below {}'s", made.name,
                               at.empty() ? "" : "(" + at + ")", objective, v,
                               state.program.quantities[static_cast<std::size_t>(previous)].name);
      if (made.needs_ffn) made.what += kScoreNeedsFfn;
      made.form = form_of(used, v, at, false);
      made.form.below = previous;
    }
    steps.push_back(made.name);
    r.steps.push_back(id);
    previous = id;
  }
  record_rank_value(state, n, previous, used, factors, v, at);
  state.program.ranked.push_back(r);
  c.order = at.empty() ? 1 : 2;
  c.elimination = fmt::format("{} -> {} (k = {} masked maxima)", v, fmt::join(steps, ", "), k);
  state.program.comparisons.push_back(c);
  Deps d = leftovers(factors, bound);
  d.quantities.insert(previous);
  if (!at.empty()) d.indices.insert(at);
  outer_indices_of_body(body_deps, bound, d);
  return d;
}

void record_rank_value(Compilation& state, const Node& n, int last,
                       const std::vector<const Factor*>& used, const std::vector<Factor>& factors,
                       const std::string& index, const std::string& at) {
  if (used.size() != factors.size()) return;
  const Quantity& q = state.program.quantities[static_cast<std::size_t>(last)];
  if (n.has_key()) {
    if (!at.empty()) return;
    state.program.values.emplace(n, selected_value(last, n.args[0], index));
    return;
  }
  const double ratio = ratio_to_form(q.form, used, false, scoring_terms(used) == 1);
  state.program.values.emplace(n, held(last, ratio));
}

std::optional<Deps> masked_chain(Compilation& state, TokenReduction& r) {
  const Node& n = r.node;
  if (n.op != targets::ReduceOp::kKth || Compilation::ranks_last(n)) return std::nullopt;
  const long k = state.reader.resolve(n.rank, n.column);
  if (k < 1) throw InputError(SourceLocation{"<formula>", 1, n.column}, "kth() counts from 1");
  if (k > kMaxRank) {
    throw InputError(SourceLocation{"<formula>", 1, n.column},
                     fmt::format("kth({}): the engine plans ranks up to {}", k, kMaxRank));
  }
  // Each constraint on the one ranked index (t != s, t < s) takes at least one token away.
  const long excluded =
      n.binders.size() == 1
          ? std::count_if(n.constraints.begin(), n.constraints.end(),
                          [&](const targets::IndexConstraint& ic) {
                            return ic.left == r.bound.front() || ic.right == r.bound.front();
                          })
          : 0;
  if (const auto tokens = state.bindings.find("T");
      tokens != state.bindings.end() && k > tokens->second - excluded) {
    throw InputError(SourceLocation{"<formula>", 1, n.column},
                     fmt::format("kth({}) over {} candidates: the rank exceeds them", k,
                                 tokens->second - excluded));
  }
  if (k >= 2) {
    Deps d = state.annotated(ranked(state, n, r.bound, r.factors, r.body_deps, k, r.comparison), n);
    // The plan holds k fixed as T grows; at a set T a rank past the middle is a rank from the
    // bottom (k = T is the minimum), which a reader comparing with training must be told.
    if (const auto tokens = state.bindings.find("T");
        tokens != state.bindings.end() && n.binders.size() == 1 &&
        !state.program.comparisons.empty() &&
        targets::same_expression(state.program.comparisons.back().reduction, n)) {
      const long candidates = tokens->second - excluded;
      if (2 * k > candidates + 1) {
        const long from_bottom = candidates - k + 1;
        state.program.comparisons.back().elimination += fmt::format(
            " (at the set T = {}, rank {} of {} is the {}; the plan is for k = {} fixed as T "
            "grows)",
            tokens->second, k, candidates,
            from_bottom == 1 ? std::string("minimum")
                             : fmt::format("{}{} smallest", from_bottom,
                                           from_bottom % 100 / 10 == 1 ? "th"
                                           : from_bottom % 10 == 1     ? "st"
                                           : from_bottom % 10 == 2     ? "nd"
                                           : from_bottom % 10 == 3     ? "rd"
                                                                       : "th"),
            k);
      }
    }
    return d;
  }
  return std::nullopt;  // kth(1, ...): the elimination's
}

}  // namespace

extern const Pass kRankedPass;  // registered in pipeline.cpp
const Pass kRankedPass{.rule = "R2",
                       .name = "masked chains",
                       .does =
                           "a k-th largest (k >= 2) as a chain of k retrievals, each masked by the "
                           "one before; identical chains are one",
                       .stage = Stage::kReduction,
                       .on_reduction = masked_chain};

}  // namespace infoflow::theorems::detail
