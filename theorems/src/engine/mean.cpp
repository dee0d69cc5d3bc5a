// R6: a sum over tokens as uniform averages, the means of values that need the same quantities
// one action.
#include <algorithm>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "infoflow/targets/node_algebra.hpp"

#include "compiler.hpp"
#include "pipeline.hpp"
#include "score_tests.hpp"

namespace infoflow::theorems::detail {

using targets::Node;
using K = targets::Node::Kind;

namespace {

/// T times the mean of factor `f` over `v` as a value of mean quantity `id`: a new value of
/// its form, or a multiple of one it carries already (y and 2 y average one value).
std::optional<Value> averaged_value(Compilation& state, Quantity& made, int id, const Factor& f,
                                    const std::string& v);

/// The number of tokens, T, as a value.
Value tokens_value() {
  Node tokens;
  tokens.kind = K::kRef;
  tokens.name = "T";
  return lifted(tokens);
}

/// T times a term of a sum over tokens that reads none of them (sum(s) (y_s + max(t) z_t) holds
/// T max(t) z_t), where it reads no index at all and no parameter scales it.
std::optional<Value> constant_part(const Factor& f) {
  const std::optional<FormTerm> term = form_term(f);
  if (!term || !f.indices.empty()) return std::nullopt;
  const Value part = term->message >= 0
                         ? held(term->message, term->coefficient)
                         : operation(K::kMul, {number(term->coefficient), lifted(*term->node)});
  return operation(K::kMul, {tokens_value(), part});
}

/// A sum over tokens: the mean mode prices a sum of token-wise values; anything else is
/// outside the framework.
Deps mean(Compilation& state, const Node& n, const std::vector<std::string>& bound,
          const std::vector<Factor>& factors, bool summed, Comparison& c) {
  c.sum = true;
  c.order = 1;
  if (!n.constraints.empty()) {
    state.outside(
        "'" + c.text +
        "': a sum over constrained index tuples grows its active index set with T; no mode "
        "prices it");
    return {};
  }
  Deps d;
  std::vector<std::string> steps;
  std::vector<Value> value;  // T times each mean, for Program::values
  bool value_known = true;
  for (const Factor& f : factors) {
    std::vector<std::string> on;
    for (const std::string& b : bound) {
      if (f.indices.count(b) != 0) on.push_back(b);
    }
    const bool outer = f.indices.size() > on.size();
    if (on.size() >= 2 || (!on.empty() && outer)) {
      state.outside("'" + c.text + "': the term " + f.text +
                    " couples tokens inside a sum, whose active index set grows with T; no mode of "
                    "the framework prices it");
      return {};
    }
    if (on.empty()) {  // a constant of the sum: T times it
      d.quantities.insert(f.quantities.begin(), f.quantities.end());
      d.indices.insert(f.indices.begin(), f.indices.end());
      if (std::optional<Value> part = constant_part(f)) {
        value.push_back(std::move(*part));
      } else {
        value_known = false;
      }
      continue;
    }
    // One uniform head averages every token-wise value the tokens hold at its layer, as many
    // as its dimension n carries: the means of terms that need the same quantities (and an
    // FFN or not) are one action (sum(t) (y_t^2 + z_t^2) is one mean of two values, not a head
    // a term); the placement pools the means of one (layer, token class) on heads of n values
    // each (placement.cpp).
    Quantity q;
    q.mode = Mode::kMean;
    q.needs.assign(f.quantities.begin(), f.quantities.end());
    q.needs_at_tokens = true;
    q.needs_ffn = f.term == nullptr || !token_wise(*f.term, on.front());
    // A vector's mean is d values, one a coordinate, and a mean of its own, which the placement
    // may put in another slot than the scalars' (the means of x[s] and of sqnorm(x[t]) are
    // d + 1 values: one head of n = 4 at d = 4 once averaged all five, where (1,1) has a head
    // for each).
    const bool vector = f.term != nullptr && f.term->value == targets::ValueKind::kVector;
    const std::string term_key = (summed ? "sum:" : "") + f.key({{on.front(), "#v"}}, true);
    const int id = state.add(q, fmt::format("mean|{}|{}|{}", fmt::join(q.needs, ","),
                                            q.needs_ffn ? "ffn" : "", vector ? term_key : ""));
    Quantity& made = state.program.quantities[static_cast<std::size_t>(id)];
    const std::string term = f.signed_text();
    std::map<std::string, bool>& averaged = state.averaged[id];  // each averaged term: a vector?
    // 2 y's mean is y's; the means that are terms of the target's sum are one value, the mean
    // of their sum (sum(i = 1..20) sum(t) y_i^2 is one, where (sum(t) y_i)^2 are twenty).
    if (averaged.emplace(term_key, vector).second) {
      bool terms_of_the_sum = false;
      made.values = 0;
      made.vectors = 0;
      for (const auto& [key, is_vector] : averaged) {
        if (key.rfind("sum:", 0) == 0)
          terms_of_the_sum = true;
        else
          ++(is_vector ? made.vectors : made.values);
      }
      if (terms_of_the_sum) ++made.values;
      made.what += made.what.empty()
                       ? fmt::format("{} = the mean over {} of {}", made.name, on.front(), term)
                       : fmt::format(", and of {}", term);
    }
    const std::string step = on.front() + " -> " + made.name;
    if (std::find(steps.begin(), steps.end(), step) == steps.end()) steps.push_back(step);
    d.quantities.insert(id);
    if (std::optional<Value> part = averaged_value(state, made, id, f, on.front())) {
      value.push_back(std::move(*part));
    } else {
      value_known = false;
    }
  }
  c.elimination = fmt::format("{} (uniform averages)", fmt::join(steps, "; "));
  state.program.comparisons.push_back(c);
  if (value_known && !value.empty()) state.program.values.emplace(n, sum_of(std::move(value)));
  return d;
}

std::optional<Value> averaged_value(Compilation& state, Quantity& made, int id, const Factor& f,
                                    const std::string& v) {
  std::optional<FormTerm> term = form_term(f);
  if (!term) {
    made.form.unknown = "a parameter, not a number, scales the averaged term " + f.text;
    return std::nullopt;
  }
  if (made.form.terms.empty() && made.form.unknown.empty()) {
    made.form.known = true;
    made.form.index = v;
  }
  const std::string key = f.key({{v, "#v"}}, true);
  std::vector<std::pair<std::string, double>>& carried = state.mean_values[id];
  std::size_t component = 0;
  while (component < carried.size() && carried[component].first != key) ++component;
  double ratio = 1;
  if (component == carried.size()) {
    // In the form's own index name, so that its terms read one index.
    if (term->node && v != made.form.index)
      term->node = std::make_shared<const Node>(targets::renamed(*term->node, v, made.form.index));
    if (term->message >= 0 && term->message_at == v) term->message_at = made.form.index;
    carried.emplace_back(key, term->coefficient);
    made.form.terms.push_back(*term);
  } else {
    ratio = term->coefficient / carried[component].second;
  }
  return operation(K::kMul, {tokens_value(), held(id, ratio, static_cast<int>(component))});
}

std::optional<Deps> uniform_averages(Compilation& state, TokenReduction& r) {
  if (r.node.op != targets::ReduceOp::kSum) return std::nullopt;
  return state.annotated(mean(state, r.node, r.bound, r.factors, r.summed, r.comparison), r.node);
}

}  // namespace

extern const Pass kMeanPass;  // registered in pipeline.cpp
const Pass kMeanPass{.rule = "R6",
                     .name = "uniform averages",
                     .does =
                         "a sum over tokens as the means of token-wise values, one uniform head "
                         "for those that need the same quantities",
                     .stage = Stage::kReduction,
                     .on_reduction = uniform_averages};

}  // namespace infoflow::theorems::detail
