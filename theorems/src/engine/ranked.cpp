// R2: a k-th largest (k >= 2) as a chain of k retrievals, each masked by the one before; identical
// chains are one.
#include <fmt/format.h>

#include "compiler.hpp"
#include "score_tests.hpp"

namespace infoflow::theorems::detail {

using targets::Node;
using K = targets::Node::Kind;

Deps Compiler::ranked(const Node& n, const std::vector<std::string>& bound,
                      std::vector<Factor> factors, const Deps& body_deps, long k, Comparison& c) {
  const bool selection = n.has_key();
  if (bound.size() != 1) {
    outside("'" + c.text +
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
    return blocked(c, static_cast<int>(message.size()) + 1,
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
  if (const auto same = merged_chains_.find(chain_key); same != merged_chains_.end()) {
    const Ranked& earlier = p_.ranked[same->second];
    std::vector<std::string> names;
    for (const int step : earlier.steps)
      names.push_back(p_.quantities[static_cast<std::size_t>(step)].name);
    c.order = at.empty() ? 1 : 2;
    c.elimination = fmt::format("{} -> {} (k = {} masked maxima, the chain of {})", v,
                                fmt::join(names, ", "), k, earlier.text);
    p_.comparisons.push_back(c);
    record_rank_value(n, earlier.steps.back(), used, factors, v, at);
    Deps d = leftovers(factors, bound);
    d.quantities.insert(earlier.steps.back());
    if (!at.empty()) d.indices.insert(at);
    outer_indices_of_body(body_deps, bound, d);
    return d;
  }
  merged_chains_.emplace(chain_key, p_.ranked.size());
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
    const int id = add(q, step_key);
    Quantity& made = p_.quantities[static_cast<std::size_t>(id)];
    if (made.what.empty()) {
      made.what = j == 1 ? fmt::format("{}{} = the token of the largest {} over {}", made.name,
                                       at.empty() ? "" : "(" + at + ")", objective, v)
                         : fmt::format("{}{} = the token of the largest {} over {} below {}'s",
                                       made.name, at.empty() ? "" : "(" + at + ")", objective, v,
                                       p_.quantities[static_cast<std::size_t>(previous)].name);
      if (made.needs_ffn) made.what += kScoreNeedsFfn;
      made.form = form_of(used, v, at, false);
      made.form.below = previous;
    }
    steps.push_back(made.name);
    r.steps.push_back(id);
    previous = id;
  }
  record_rank_value(n, previous, used, factors, v, at);
  p_.ranked.push_back(r);
  c.order = at.empty() ? 1 : 2;
  c.elimination = fmt::format("{} -> {} (k = {} masked maxima)", v, fmt::join(steps, ", "), k);
  p_.comparisons.push_back(c);
  Deps d = leftovers(factors, bound);
  d.quantities.insert(previous);
  if (!at.empty()) d.indices.insert(at);
  outer_indices_of_body(body_deps, bound, d);
  return d;
}

void Compiler::record_rank_value(const Node& n, int last, const std::vector<const Factor*>& used,
                                 const std::vector<Factor>& factors, const std::string& index,
                                 const std::string& at) {
  if (used.size() != factors.size()) return;
  const Quantity& q = p_.quantities[static_cast<std::size_t>(last)];
  if (n.has_key()) {
    if (!at.empty()) return;
    p_.values.emplace(n, selected_value(last, n.args[0], index));
    return;
  }
  const double ratio = ratio_to_form(q.form, used, false, scoring_terms(used) == 1);
  p_.values.emplace(n, held(last, ratio));
}

}  // namespace infoflow::theorems::detail
