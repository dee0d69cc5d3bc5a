// The pass "set up" (registry.cpp): the plan's sizes, the target's evaluator and data, the
// quantities by name, the positions read, and the target's value resolved into the quantities'
// values, with what the readout needs of them.
#include <algorithm>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "infoflow/core/progress.hpp"
#include "infoflow/numeric/tasks.hpp"
#include "infoflow/targets/node_algebra.hpp"

#include "passes.hpp"

namespace infoflow::construct::detail {

using targets::Node;
using theorems::FormTerm;
using theorems::Mode;
using theorems::Value;

namespace {

/// A sum over ranges of its own (sum(p = 1..T0) x[p], E0) as the sum of its copies; with
/// `extrema`, a maximum or minimum as the Combined maximum or minimum of them.
std::optional<Value> unrolled(const Lowering& st, const Node& n, bool extrema = false) {
  const bool extremum = n.op == targets::ReduceOp::kMax || n.op == targets::ReduceOp::kMin;
  if (!(n.op == targets::ReduceOp::kSum || (extrema && extremum)) || n.has_key() ||
      !n.constraints.empty())
    return std::nullopt;
  std::vector<targets::IndexRange> ranges;
  for (const targets::Binder& b : n.binders) {
    if (!b.has_range) return std::nullopt;
    auto bound = [&](const targets::Bound& x) -> std::optional<long> {
      if (x.name.empty()) return x.value;
      if (x.name == "T") return st.tokens;
      const auto it = st.spec.set.find(x.name);
      return it == st.spec.set.end() ? std::nullopt : std::optional<long>(it->second);
    };
    const std::optional<long> low = bound(b.low);
    const std::optional<long> high = bound(b.high);
    if (!low || !high) return std::nullopt;
    ranges.push_back({b.name, *low, *high});
  }
  const std::vector<Node> copies = targets::copies_over(n.args[0], ranges);
  std::vector<Value> lifted;
  lifted.reserve(copies.size());
  for (const Node& c : copies) lifted.push_back(theorems::lifted(c));
  if (extremum) {
    if (lifted.empty()) return std::nullopt;
    return Value{Value::Combined{n.op}, std::move(lifted)};
  }
  return theorems::sum_of(std::move(lifted));  // an empty sum is the number 0
}

/// The selections read inside a selection's value: fetched at the tokens that make them.
void note_inner_selections(Lowering& st, const Value& v) {  // NOLINT(misc-no-recursion)
  if (const auto* s = std::get_if<Value::Selected>(&v.what)) {
    st.selected.insert(s->quantity);
    st.selections[s->quantity] = &v;
    st.selected_at_tokens.insert(s->quantity);
  }
  for (const Value& a : v.args) note_inner_selections(st, a);
}

/// What the output reads: the selections it fetches, the values the readout needs.
void note_selections(Lowering& st, const Value& v) {  // NOLINT(misc-no-recursion)
  if (const auto* s = std::get_if<Value::Selected>(&v.what)) {
    st.selected.insert(s->quantity);
    st.selections[s->quantity] = &v;
    note_inner_selections(st, v.args[0]);
    return;
  }
  if (const auto* h = std::get_if<Value::Held>(&v.what); h != nullptr && h->component < 0)
    st.needed_at_readout.insert(h->quantity);
  for (const Value& a : v.args) note_selections(st, a);
}

/// The 1-based position a token read by position names (x[3], x[T], x[T-1]).
long position_of(const Lowering& st, const Node& ref) {
  long p = ref.position;
  if (p == 0) {
    const auto named = st.spec.set.find(ref.position_name);
    if (ref.position_name != "T" && named == st.spec.set.end()) {
      throw Failure(Shortfall::kConstructor, "",
                    fmt::format("the position {} has no value (--set {}=...)",
                                targets::to_text(ref), ref.position_name));
    }
    p = ref.position_name == "T" ? st.tokens : named->second;
  }
  p += ref.offset;
  if (p < 1 || p > st.tokens) {
    throw Failure(Shortfall::kPlan, "",
                  fmt::format("{} is position {}, outside 1..T = 1..{}", targets::to_text(ref), p,
                              st.tokens));
  }
  return p;
}

}  // namespace

/// The network the plan asks for: the plan's heads, E and n, the target's T and d, the widths.
numeric::ModelConfig asked_config(const Lowering& st) {
  numeric::ModelConfig config;
  core::Architecture& shape = config;
  shape = st.plan.architecture;
  const auto tokens = st.spec.set.find("T");
  config.tokens = tokens == st.spec.set.end() ? core::defaults::kTokens : tokens->second;
  config.token_dim = st.spec.token_dim;
  config.ffn_width = st.options.ffn_width;
  config.readout_width =
      st.options.readout_width > 0 ? st.options.readout_width : st.options.ffn_width;
  config.activation = numeric::Activation::kRelu;
  // The linear encoder, a special case of the class: x and the flags are written into the
  // stream as they are, and the plans compute what they need after it (stream_layout() asks for the
  // MLP encoder where layer 1 reads a nonlinear token-wise feature).
  config.encoder = numeric::Encoder::kLinear;
  // Learned positions: the constructor writes indicators and one-hot codes into the table.
  config.positional = core::encoding_for(st.plan.architecture.encodes_positions());
  config.attention_scale = 1;  // beta is in the queries
  return config;
}

Value resolved(const Lowering& st, const Value& v) {  // NOLINT(misc-no-recursion)
  if (const auto* reduction = std::get_if<Value::Reduction>(&v.what)) {
    const Node& n = reduction->node;
    const auto value = st.program.values.find(n);
    if (value == st.program.values.end()) {
      if (const std::optional<Value> copies = unrolled(st, n)) return resolved(st, *copies);
      throw Failure(Shortfall::kConstructor, "",
                    fmt::format("the engine's reading records no value for '{}' "
                                "(a rule the constructor has no compilation for)",
                                targets::to_text(n)));
    }
    return resolved(st, value->second);
  }
  Value out = v;
  for (Value& a : out.args) a = resolved(st, a);
  return out;
}

/// The target's value as an expression in the quantities' values (Program::values).
Value resolved(const Lowering& st, const Node& n) {
  return resolved(st, theorems::lifted(n));
}

/// `v` with each reduction over ranges of its own unrolled, as far as they are.
Value ranges_unrolled(const Lowering& st, const Value& v) {  // NOLINT(misc-no-recursion)
  if (const auto* reduction = std::get_if<Value::Reduction>(&v.what)) {
    if (const std::optional<Value> copies = unrolled(st, reduction->node, true))
      return ranges_unrolled(st, *copies);
    return v;
  }
  Value out = v;
  for (Value& a : out.args) a = ranges_unrolled(st, a);
  return out;
}

void set_up(Lowering& st) {
  core::progress::set("reading the plan");
  if (st.plan.verdict != theorems::Verdict::kEfficient) {
    throw Failure(Shortfall::kPlan, "",
                  fmt::format("the engine's plan on {} is not efficient ({}{}): "
                              "nothing to construct",
                              st.plan.architecture.heads_text(), theorems::to_text(st.plan.verdict),
                              st.plan.reason.empty() ? "" : ": " + st.plan.reason));
  }
  if (!st.program.constants.empty() && st.program.quantities.empty()) {
    throw Failure(
        Shortfall::kConstructor, "",
        "the target is a constant (" + st.program.constants.front() + "): no action to compile");
  }
  const numeric::ModelConfig asked = asked_config(st);
  st.tokens = asked.tokens;
  st.d = asked.token_dim;
  if (st.d + 2 > st.plan.architecture.embedding) {
    throw Failure(Shortfall::kEmbedding, "",
                  fmt::format("the stream holds the token's d = {} coordinates and "
                              "two flags: E = {} is too small (E >= {})",
                              st.d, st.plan.architecture.embedding, st.d + 2));
  }
  st.evaluator = std::make_unique<targets::Evaluator>(st.spec.formula, st.spec.set, st.d,
                                                      st.options.task_seed);
  st.task = numeric::make_formula_task(
      st.spec.name, *st.evaluator,
      numeric::InputDistribution{st.spec.variance, st.spec.min_norm, st.spec.max_norm});
  for (std::size_t i = 0; i < st.program.quantities.size(); ++i) {
    st.by_name[st.program.quantities[i].name] = static_cast<int>(i);
    if (st.program.quantities[i].mode == Mode::kPositions) {
      for (const FormTerm& t : st.program.quantities[i].form.terms)
        st.positions[*t.node] = position_of(st, *t.node);
    }
  }
  // The output first: which values the readout needs, and the fetches its selections read.
  st.output = resolved(st, st.program.root);
  note_selections(st, st.output);
}

}  // namespace infoflow::construct::detail
