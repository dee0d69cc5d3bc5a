// The plan of a placement, or of the fallback (global aggregation): each step priced by its
// catalogue entry, the information sets after each layer and their decodings, the plan's rate.
#include <algorithm>
#include <array>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "information_sets.hpp"
#include "pricer.hpp"

namespace infoflow::theorems::detail {

namespace {

Action action_of(const Quantity& q, bool theorem2) {
  if (theorem2) return Action::kKthRetrieval;
  switch (q.mode) {
    case Mode::kRetrieval:
      return Action::kMaxRetrieval;
    case Mode::kRankStep:
      return Action::kMaskedRetrieval;
    case Mode::kPositions:
      return Action::kPositionAggregation;
    case Mode::kRelative:
      return Action::kRelativeFetch;
    case Mode::kMean:
      return Action::kUniformAggregation;
    case Mode::kAggregation:
      return Action::kGlobalAggregation;
  }
  return Action::kMaxRetrieval;
}

/// How an information set refers to what a quantity's action fetches.
std::string fetched(const Quantity& q) {
  switch (q.mode) {
    case Mode::kPositions:
      return q.what.substr(q.what.find('{'));
    case Mode::kRelative:
      return "t" + q.name.substr(1);
    case Mode::kMean:
      return "mean " + q.name;
    default:
      return q.holder == Holder::kToken ? q.name + "(t)" : q.name;
  }
}

/// The plan's rate: its costliest step or decoding; where a step is priced by a lower bound,
/// the costliest such step alone (the others' prices bound from above, so they say nothing of
/// how much the plan needs at least).
void finish(Plan& p, const GiNaC::ex& floor) {
  p.floor = floor;
  p.exponent = 0;
  p.kind = std::any_of(p.steps.begin(), p.steps.end(),
                       [](const PlanStep& s) { return s.kind == Kind::kLower; })
               ? Kind::kLower
               : Kind::kUpper;
  bool first = true;
  std::set<std::string> entries;
  auto take = [&](const GiNaC::ex& exponent, const GiNaC::ex& general, const std::string& floored,
                  std::string what) {
    p.exponent = exponent;
    p.general_exponent = general;
    p.general_condition = floored;
    p.dominant = std::move(what);
    first = false;
  };
  for (const PlanStep& s : p.steps) {
    entries.insert(s.entry);
    if (s.kind != p.kind) continue;
    if (first || cheaper(price_of(p.exponent), price_of(s.exponent))) {
      take(
          s.exponent, s.general, s.floored_while,
          fmt::format("layer {} {} at the {}: {} ({}{})", s.layer, heads_text(s), to_text(s.where),
                      to_text(s.action), s.entry, s.kind == Kind::kLower ? ", a lower bound" : ""));
    }
  }
  for (const Decoding& d : p.decodings) {
    entries.insert(d.entry);
    if (p.kind == Kind::kUpper && cheaper(price_of(p.exponent), price_of(d.exponent))) {
      take(d.exponent, d.general, d.floored_while,
           fmt::format("decoding {} positions at the {} after layer {} ({})",
                       symbolic::canonical(d.size), to_text(d.where), d.layer, d.entry));
    }
  }
  p.entries.assign(entries.begin(), entries.end());
  // Nothing to compute: every reduction of the target is a constant (E5).
  if (p.steps.empty() && p.decodings.empty()) p.dominant = "none: the target is a constant (E5)";
}

Decoding decoding(const Pricer& pricer, long layer, TokenClass where, const GiNaC::ex& size) {
  const auto [general, floored] = pricer.decode_general(size);
  return Decoding{layer,
                  where,
                  size,
                  pricer.engine.costs().decoding,
                  pricer.decode(size),
                  general,
                  floored,
                  pricer.decode_law()};
}

}  // namespace

void set_verdict(Plan& p) {
  p.verdict = price_of(p.exponent).slope == 0 ? Verdict::kEfficient : Verdict::kExponentialInT;
  if (p.verdict == Verdict::kEfficient) p.reason.clear();
}

Plan aggregation_plan(const Pricer& pricer, const Architecture& a, std::string reason) {
  Plan p;
  p.architecture = a;
  const GiNaC::ex T = sym("T");
  const Decoding all = decoding(pricer, a.layers(), TokenClass::kReadout, T);
  p.steps.push_back(PlanStep{1, 1, TokenClass::kReadout, Action::kGlobalAggregation, "",
                             "every position {1, ..., T}", all.entry, all.exponent, all.general,
                             all.floored_while});
  p.sets.push_back(LayerSets{0, {"t"}, 1, {}, 0});
  for (long l = 1; l <= a.layers(); ++l) {
    p.sets.push_back(LayerSets{l, {l == 1 ? "t" : "I(t," + std::to_string(l - 1) + ")"}, 1,
                               {"{1, ..., T}"}, T});
  }
  p.decodings.push_back(all);
  p.reason = std::move(reason);
  finish(p, pricer.floor());
  return p;
}

Plan plan_of(const Program& program, const Pricer& pricer, const Placement& placement) {
  const Architecture& a = pricer.a;
  const CostModel& costs = pricer.engine.costs();
  Plan p;
  p.architecture = a;
  const long layers = a.layers();
  // R6, as the placement counts it: means at one (layer, class) share uniform heads, n averaged
  // values a head. They are numbered first, heads 1, 2, ... in program order, so that the heads
  // a mean spans are consecutive: a mean starts on the last mean head while it has free values,
  // else on the next, and spans the heads it opens past that one. Other steps follow them.
  std::vector<std::array<long, 2>> heads(static_cast<std::size_t>(layers + 1), {0, 0});
  std::vector<std::array<long, 2>> pooled(static_cast<std::size_t>(layers + 1), {0, 0});
  std::vector<std::pair<long, long>> mean_heads(program.quantities.size());  // (first, count)
  for (std::size_t i = 0; i < program.quantities.size(); ++i) {
    const auto& slot = placement.slots[i];
    const Quantity& q = program.quantities[i];
    const long values = q.averaged(a.token_dim);
    if (!slot || q.mode != Mode::kMean || values <= 0) continue;
    const auto layer = static_cast<std::size_t>(slot->layer);
    const std::size_t at = slot->readout ? 1 : 0;
    const long n = a.head_dim_of(slot->layer - 1);
    const long pool = pooled[layer][at];
    const bool room = pool % n != 0;  // the last mean head has free values
    const long opened = mean_heads_opened(pool, values, n);
    mean_heads[i] = {room ? heads[layer][at] : heads[layer][at] + 1,
                     std::max<long>(1, opened + (room ? 1 : 0))};
    heads[layer][at] += opened;
    pooled[layer][at] = pool + values;
  }
  std::vector<std::vector<std::string>> token_parts(static_cast<std::size_t>(layers + 1));
  std::vector<std::vector<std::string>> readout_parts(static_cast<std::size_t>(layers + 1));
  std::vector<std::string> carried;  // globals every token holds, for the carry's text
  for (std::size_t i = 0; i < program.quantities.size(); ++i) {
    const auto& slot = placement.slots[i];
    if (!slot) continue;
    const Quantity& q = program.quantities[i];
    const bool theorem2 = placement.theorem2[i];
    PlanStep s;
    s.layer = slot->layer;
    s.where = slot->readout ? TokenClass::kReadout : TokenClass::kInputs;
    const auto layer = static_cast<std::size_t>(s.layer);
    const std::size_t at = slot->readout ? 1 : 0;
    if (q.mode == Mode::kMean && q.averaged(a.token_dim) > 0) {
      std::tie(s.head, s.heads) = mean_heads[i];
    } else {
      s.head = ++heads[layer][at];
    }
    s.action = action_of(q, theorem2);
    s.quantity = q.name;
    s.what = q.what;
    if (theorem2) {
      long rank = 2;
      for (const Ranked& r : program.ranked) {
        if (r.steps.back() == static_cast<int>(i)) rank = r.rank;
      }
      s.entry = costs.kth;
      s.exponent = pricer.kth(s.layer, rank);
      s.general = pricer.kth_general(rank);
      s.what = fmt::format("the token of rank {} in one layer: {}", rank, q.what);
    } else if (q.mode == Mode::kPositions) {
      const Decoding gathered = decoding(pricer, s.layer, s.where, q.positions);
      s.entry = costs.decoding;
      s.exponent = gathered.exponent;
      s.general = gathered.general;
      s.floored_while = gathered.floored_while;
    } else if (q.mode == Mode::kMean) {
      s.entry = costs.mean;
      s.exponent = s.general = pricer.mean();
    } else {
      s.entry = costs.efficient;
      s.exponent = s.general = pricer.floor();
    }
    s.kind = pricer.kind_of(s.entry);
    if (!slot->readout && q.holder == Holder::kGlobal) carried.push_back(q.name);
    auto& parts = slot->readout ? readout_parts : token_parts;
    const std::string got = fetched(q);
    parts[static_cast<std::size_t>(s.layer)].push_back(
        s.layer == 1 || q.mode == Mode::kMean ? got : "I(" + got + "," + std::to_string(s.layer - 1) + ")");
    p.steps.push_back(s);
  }
  if (placement.carry) {
    const long l = *placement.carry;
    PlanStep s{l, ++heads[static_cast<std::size_t>(l)][1], TokenClass::kReadout, Action::kCarry, "",
               fmt::format("fetches any token, which holds {}", fmt::join(carried, ", ")),
               costs.efficient, pricer.floor(), pricer.floor(), ""};
    readout_parts[static_cast<std::size_t>(l)].push_back("I(any token," + std::to_string(l - 1) + ")");
    p.steps.push_back(s);
  }
  std::stable_sort(p.steps.begin(), p.steps.end(), [](const PlanStep& x, const PlanStep& y) {
    return std::tie(x.layer, x.where, x.head) < std::tie(y.layer, y.where, y.head);
  });
  const Sizes sizes = information_set_sizes(program, placement, layers);
  p.sets.push_back(LayerSets{0, {"t"}, 1, {}, 0});
  for (long l = 1; l <= layers; ++l) {
    const auto li = static_cast<std::size_t>(l);
    LayerSets s{l, {l == 1 ? "t" : "I(t," + std::to_string(l - 1) + ")"}, sizes.token[li], {},
                sizes.readout[li]};
    for (const std::string& part : token_parts[li]) s.token.push_back(part);
    if (l > 1 && sizes.readout[li - 1] > 0) s.readout.push_back("I(T+1," + std::to_string(l - 1) + ")");
    for (const std::string& part : readout_parts[li]) s.readout.push_back(part);
    p.sets.push_back(s);
    if (!token_parts[li].empty())
      p.decodings.push_back(decoding(pricer, l, TokenClass::kInputs, sizes.token[li]));
  }
  const long final_size = sizes.readout.back();
  if (final_size > 0) p.decodings.push_back(decoding(pricer, layers, TokenClass::kReadout, final_size));
  finish(p, pricer.floor());
  return p;
}

}  // namespace infoflow::theorems::detail
