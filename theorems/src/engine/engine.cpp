// The engine: prices from the catalogue, the plan of the cheapest placement (or the fallback),
// verdicts, the search over architectures.
#include "infoflow/theorems/engine.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "infoflow/core/progress.hpp"
#include "infoflow/symbolic/canonical.hpp"
#include "infoflow/symbolic/symbols.hpp"
#include "infoflow/targets/node_algebra.hpp"
#include "infoflow/targets/target_file.hpp"

#include "information_sets.hpp"
#include "pipeline.hpp"
#include "placement.hpp"

namespace infoflow::theorems {

namespace {

const GiNaC::possymbol& sym(const char* name) {
  return symbolic::SymbolRegistry::standard().at(name).symbol;
}

double number(const GiNaC::ex& e, const std::string& what) {
  const GiNaC::ex v = e.evalf();
  if (!GiNaC::is_a<GiNaC::numeric>(v)) {
    throw InputError("the InfoFlow engine needs " + what + " as a number once d, E and n have values, not " +
                     symbolic::canonical(e));
  }
  return GiNaC::ex_to<GiNaC::numeric>(v).to_double();
}

/// An exponent's order as T -> infinity, for exact comparisons of the chosen plan's steps.
detail::Price price_of(const GiNaC::ex& a) {
  const GiNaC::ex e = a.expand();
  return {number(e.coeff(sym("T"), 1), "a slope in T"), number(e.coeff(sym("T"), 0), "an exponent")};
}

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

}  // namespace

// ---- architecture and names --------------------------------------------------------------

std::string to_text(Verdict v) {
  switch (v) {
    case Verdict::kEfficient:
      return "efficient";
    case Verdict::kExponentialInT:
      return "exponential in T";
    case Verdict::kSuperPolynomial:
      return "super-polynomial";
    case Verdict::kNotComputable:
      return "not computable";
    case Verdict::kOutsideFramework:
      return "outside the framework";
    case Verdict::kUndecided:
      return "undecided";
  }
  return "";
}

std::string to_text(TokenClass where) {
  return where == TokenClass::kReadout ? "readout" : "tokens";
}

std::string to_text(Action a) {
  switch (a) {
    case Action::kMaxRetrieval:
      return "max-position retrieval";
    case Action::kMaskedRetrieval:
      return "masked retrieval";
    case Action::kKthRetrieval:
      return "k-th retrieval";
    case Action::kGlobalAggregation:
      return "global aggregation";
    case Action::kPositionAggregation:
      return "specific-position aggregation";
    case Action::kRelativeFetch:
      return "relative-position fetch";
    case Action::kUniformAggregation:
      return "uniform aggregation";
    case Action::kCarry:
      return "carry";
  }
  return "";
}

std::string heads_text(const PlanStep& s) {
  if (s.heads <= 1) return fmt::format("head {}", s.head);
  return fmt::format("heads {}-{}", s.head, s.head + s.heads - 1);
}

std::string rule_of(Action a) {
  switch (a) {
    case Action::kMaxRetrieval:
      return "R1 max-position retrieval";
    case Action::kMaskedRetrieval:
      return "R2 k-th largest as masked retrievals";
    case Action::kKthRetrieval:
      return "R3 k-th retrieval in one layer";
    case Action::kGlobalAggregation:
      return "R4 global aggregation";
    case Action::kPositionAggregation:
      return "R5 positions";
    case Action::kRelativeFetch:
      return "R5 positions";
    case Action::kUniformAggregation:
      return "R6 uniform aggregation";
    case Action::kCarry:
      return "R7 carrying";
  }
  return "";
}

Target::Target(std::string name_, targets::Formula formula_, targets::Bindings bindings_,
               std::string family_, bool is_family_, long token_dim_)
    : name(std::move(name_)),
      formula(std::move(formula_)),
      bindings(std::move(bindings_)),
      family(std::move(family_)),
      is_family(is_family_),
      token_dim(token_dim_) {
  core::progress::set("compiling target " + name + " (its values on random sequences)");
  try {
    program = std::make_shared<const Program>(compile(formula, bindings, token_dim));
    // A product (its vertices), an absolute value or even power (max |E| = max(max E,
    // -min E)), or a range (a maximum over one inside a maximum over tokens, written outside).
    if (targets::has_product_abs_power_or_range(formula.root())) {
      auto split = std::make_shared<const Program>(compile(formula, bindings, token_dim, true));
      if (split->elimination_text() != program->elimination_text()) alternative = std::move(split);
    }
  } catch (const InputError& e) {
    throw InputError("target " + name + ": " + e.message() +
                     (e.where().column > 0 ? fmt::format(" (column {})", e.where().column) : ""));
  }
}

symbolic::Rate Plan::rate() const {
  return symbolic::Rate::from_ex(GiNaC::pow(sym("eps"), -exponent));
}

symbolic::Rate Plan::general_rate() const {
  return symbolic::Rate::from_ex(GiNaC::pow(sym("eps"), -general_exponent));
}

GiNaC::ex size_at(const GiNaC::ex& size, long tokens) {
  const GiNaC::ex at = size.subs(sym("T") == tokens);
  if (GiNaC::is_a<GiNaC::numeric>(at) && GiNaC::ex_to<GiNaC::numeric>(at) > tokens) return tokens;
  return at;
}

GiNaC::ex Decoding::exponent_at(long tokens) const {
  return law.subs(sym("T0") == size_at(size, tokens)).subs(sym("T") == tokens);
}

GiNaC::ex Plan::exponent_at(long tokens) const {
  if (steps.empty() && decodings.empty()) return exponent.subs(sym("T") == tokens);
  std::vector<GiNaC::ex> items;
  for (const PlanStep& s : steps) {
    if (kind != Kind::kLower || s.kind == Kind::kLower) items.push_back(s.exponent);
  }
  if (kind != Kind::kLower) {  // decodings and the floor are upper-bound prices
    for (const Decoding& d : decodings) items.push_back(d.exponent_at(tokens));
    if (!decodings.empty()) items.push_back(floor);
  }
  GiNaC::numeric most;
  bool first = true;
  for (const GiNaC::ex& e : items) {
    const GiNaC::ex value = e.subs(sym("T") == tokens);
    if (!GiNaC::is_a<GiNaC::numeric>(value)) return exponent.subs(sym("T") == tokens);
    const GiNaC::numeric& v = GiNaC::ex_to<GiNaC::numeric>(value);
    if (first || v > most) most = v;
    first = false;
  }
  return most;
}

symbolic::Rate Plan::rate_at(long tokens) const {
  return symbolic::Rate::from_ex(GiNaC::pow(sym("eps"), -exponent_at(tokens)));
}

bool Plan::priced() const {
  return verdict != Verdict::kNotComputable && verdict != Verdict::kOutsideFramework &&
         verdict != Verdict::kUndecided;
}

// ---- engine --------------------------------------------------------------------------------

Engine::Engine(const Catalogue& catalogue, CostModel costs, long node_cap)
    : catalogue_(catalogue), costs_(std::move(costs)), node_cap_(node_cap) {
  for (const std::string& id : {costs_.efficient, costs_.decoding, costs_.kth, costs_.mean}) {
    if (catalogue_.find(id) == nullptr) {
      throw InputError("the InfoFlow engine prices its steps by catalogue entry '" + id +
                       "', which this catalogue lacks");
    }
  }
}

GiNaC::ex Engine::exponent_of(const std::string& entry, const GiNaC::exmap& values) {
  std::string key = entry;
  for (const auto& [s, v] : values)
    key += "|" + symbolic::canonical(s) + "=" + symbolic::canonical(v);
  const auto hit = cache_.find(key);
  if (hit != cache_.end()) return hit->second;
  const GiNaC::ex a = catalogue_.find(entry)->rate.eps_exponent().subs(values).expand();
  cache_.emplace(key, a);
  return a;
}

namespace {

/// What the plan builder needs from the engine: exact exponents of the priced steps.
struct Pricer {
  Engine& engine;
  const Architecture& a;

  [[nodiscard]] GiNaC::ex floor() const { return engine.exponent_of(engine.costs().efficient, {}); }
  /// Theorem 3's exponent in T0, with d and E given.
  [[nodiscard]] GiNaC::ex decode_law() const {
    return engine.exponent_of(engine.costs().decoding,
                              {{sym("d"), a.token_dim}, {sym("E"), a.embedding}});
  }
  [[nodiscard]] GiNaC::ex decode(const GiNaC::ex& size) const {
    const GiNaC::ex e = decode_law().subs(sym("T0") == size).expand();
    return detail::cheaper(price_of(e), price_of(floor())) ? floor() : e;
  }
  [[nodiscard]] Kind kind_of(const std::string& entry) const {
    return engine.catalogue().find(entry)->kind == Kind::kLower ? Kind::kLower : Kind::kUpper;
  }
  /// Decoding with d and E symbolic: Theorem 3's exponent, or the floor and when it holds.
  [[nodiscard]] std::pair<GiNaC::ex, std::string> decode_general(const GiNaC::ex& size) const {
    const GiNaC::ex general = engine.exponent_of(engine.costs().decoding, {{sym("T0"), size}});
    if (decode(size) == floor() && general != floor()) {
      return {floor(), symbolic::canonical(general) + " <= " + symbolic::canonical(floor())};
    }
    return {general, ""};
  }
  [[nodiscard]] GiNaC::ex kth(long layer, long rank) const {
    return engine.exponent_of(engine.costs().kth,
                              {{sym("k"), rank}, {sym("n"), a.head_dim_of(layer - 1)}});
  }
  [[nodiscard]] GiNaC::ex kth_general(long rank) const {
    return engine.exponent_of(engine.costs().kth, {{sym("k"), rank}});
  }
  [[nodiscard]] GiNaC::ex mean() const { return engine.exponent_of(engine.costs().mean, {}); }

  [[nodiscard]] detail::PriceModel model() const {
    detail::PriceModel m;
    m.floor = price_of(floor());
    const GiNaC::ex d = engine.exponent_of(
        engine.costs().decoding, {{sym("d"), a.token_dim}, {sym("E"), a.embedding}});
    m.decode_per_token = number(d.coeff(sym("T0"), 1), "Theorem 3's slope in T0");
    m.decode_constant = number(d.coeff(sym("T0"), 0), "Theorem 3's constant");
    m.mean = price_of(mean());
    for (long l = 1; l <= a.layers(); ++l) {
      const GiNaC::ex k = engine.exponent_of(engine.costs().kth, {{sym("n"), a.head_dim_of(l - 1)}});
      m.kth_per_layer.push_back(
          {number(k.coeff(sym("T"), 1), "Theorem 2's slope"),
           number(k.coeff(sym("T"), 0).coeff(sym("k"), 0), "Theorem 2's constant")});
      m.kth_rank.push_back(number(k.coeff(sym("T"), 0).coeff(sym("k"), 1), "Theorem 2's rank term"));
    }
    return m;
  }
};

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
    if (first || detail::cheaper(price_of(p.exponent), price_of(s.exponent))) {
      take(
          s.exponent, s.general, s.floored_while,
          fmt::format("layer {} {} at the {}: {} ({}{})", s.layer, heads_text(s), to_text(s.where),
                      to_text(s.action), s.entry, s.kind == Kind::kLower ? ", a lower bound" : ""));
    }
  }
  for (const Decoding& d : p.decodings) {
    entries.insert(d.entry);
    if (p.kind == Kind::kUpper && detail::cheaper(price_of(p.exponent), price_of(d.exponent))) {
      take(d.exponent, d.general, d.floored_while,
           fmt::format("decoding {} positions at the {} after layer {} ({})",
                       symbolic::canonical(d.size), to_text(d.where), d.layer, d.entry));
    }
  }
  p.entries.assign(entries.begin(), entries.end());
  // Nothing to compute: every reduction of the target is a constant (E5).
  if (p.steps.empty() && p.decodings.empty()) p.dominant = "none: the target is a constant (E5)";
}

/// Efficient where the exponent does not grow with T (a lower bound that grows says no plan of
/// its kind is efficient).
void set_verdict(Plan& p) {
  p.verdict = price_of(p.exponent).slope == 0 ? Verdict::kEfficient : Verdict::kExponentialInT;
  if (p.verdict == Verdict::kEfficient) p.reason.clear();
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

/// The plan of one global aggregation at the readout in layer 1: the readout then holds every
/// input, so it computes anything, at the cost of decoding T tokens.
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

Plan plan_of(const Program& program, const Pricer& pricer, const detail::Placement& placement) {
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
    const long opened = detail::mean_heads_opened(pool, values, n);
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
  const detail::Sizes sizes = detail::information_set_sizes(program, placement, layers);
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

// ---- the passes of the architecture stage (pipeline.cpp sets their order) -------------------

using detail::Planning;

void outside_framework(Planning& s) {
  if (!s.program.outside) return;
  s.plan.verdict = Verdict::kOutsideFramework;
  s.plan.reason = *s.program.outside;
  s.done = true;
}

void not_computable(Planning& s) {
  if (s.program.order_dependent.empty() || s.architecture.encodes_positions()) return;
  s.plan.verdict = Verdict::kNotComputable;
  s.plan.reason = fmt::format(
      "without a positional encoding the input tokens are exchangeable, and the target is "
      "order-dependent: {}",
      fmt::join(s.program.order_dependent, "; "));
  s.done = true;
}

void positions_unencoded(Planning& s) {
  if (!s.program.reads_positions() || s.architecture.encodes_positions()) return;
  // E4 found the value unchanged by permutations, yet the plan reads positions: terms that
  // vanish or cancel (dot(x[1], x[2]) * 0), which the engine does not simplify. No rule
  // covers such a plan without positions: undecided, not a cost.
  s.plan.verdict = Verdict::kOutsideFramework;
  s.plan.reason =
      "the target's value does not change when its tokens are permuted, but its plan reads "
      "token positions (terms that vanish or cancel, which the engine does not simplify); "
      "without a positional encoding no rule covers that plan: read as undecided";
  s.done = true;
}

void blocked_comparison(Planning& s) {
  if (!s.program.blocked()) return;
  std::string why;
  for (const Comparison& c : s.program.comparisons) {
    if (c.blocked)
      why = fmt::format("'{}' is a comparison of order {}: {}", c.text, c.order, c.elimination);
  }
  s.plan = aggregation_plan(Pricer{s.engine, s.architecture}, s.architecture,
                            why + "; only global aggregation reaches it");
  s.plan.verdict = Verdict::kSuperPolynomial;
  s.done = true;
}

/// The best upper bound: a placement of every k-th largest as its chain of masked retrievals
/// (one k-th retrieval in one layer is priced by Theorem 2, a lower bound), else global
/// aggregation. A placement's price does not grow with T, aggregation's does.
void placement(Planning& s) {
  s.prices = Pricer{s.engine, s.architecture}.model();
  Program chains;
  if (!s.program.ranked.empty()) {
    chains = s.program;
    chains.ranked.clear();
  }
  s.placed = detail::place(s.program.ranked.empty() ? s.program : chains, s.architecture, s.prices,
                           false, s.node_cap);
  if (s.placed.truncated) {  // the best found need not be the cheapest: no guess
    s.plan.verdict = Verdict::kUndecided;
    s.plan.reason = fmt::format(
        "search cap reached: the placement search on {} stopped at its cap "
        "of {} nodes before deciding",
        s.architecture.heads_text(), s.node_cap);
    s.plan.truncated = true;
    s.done = true;
  }
}

void pricing(Planning& s) {
  const Pricer pricer{s.engine, s.architecture};
  s.plan = s.placed.best
               ? plan_of(s.program, pricer, *s.placed.best)
               : aggregation_plan(pricer, s.architecture,
                                  fmt::format("no placement on {} gives every quantity a slot "
                                              "({} found none); global aggregation covers the "
                                              "target",
                                              s.architecture.heads_text(), s.placed.unplaced));
  set_verdict(s.plan);
  s.done = s.plan.verdict == Verdict::kEfficient || s.program.ranked.empty();
}

/// Where the chains find no slots, a k-th retrieval in one layer is another route. Theorem 2
/// says what it costs at least: where that is below the upper bound, the plan shows both (a
/// lower bound is never read as cheaper than an upper one). A route the search could not
/// decide within its cap is left out: the upper bound stands.
void kth_retrieval(Planning& s) {
  const detail::PlacementResult ranked =
      detail::place(s.program, s.architecture, s.prices, false, s.node_cap);
  if (ranked.truncated || !ranked.best ||
      std::find(ranked.best->theorem2.begin(), ranked.best->theorem2.end(), true) ==
          ranked.best->theorem2.end())
    return;
  Plan lower = plan_of(s.program, Pricer{s.engine, s.architecture}, *ranked.best);
  if (!detail::cheaper(price_of(lower.exponent), price_of(s.plan.exponent))) return;
  set_verdict(lower);
  lower.reason = fmt::format(
      "no placement on {} fits the k-th largest's chain of masked retrievals, so it takes one "
      "k-th retrieval in one layer, which Theorem 2 bounds from below only",
      s.architecture.heads_text());
  lower.upper = std::make_shared<const Plan>(std::move(s.plan));
  s.plan = std::move(lower);
}

}  // namespace

namespace detail {

extern const Pass kOutsidePass;  // registered in pipeline.cpp, as are the passes below
const Pass kOutsidePass{.rule = "S E3",
                        .name = "outside",
                        .does = "a program outside the framework has no rate",
                        .stage = Stage::kArchitecture,
                        .on_architecture = outside_framework};
extern const Pass kNotComputablePass;
const Pass kNotComputablePass{.rule = "E4",
                              .name = "not computable",
                              .does = "an order-dependent target without a positional encoding",
                              .stage = Stage::kArchitecture,
                              .on_architecture = not_computable};
extern const Pass kPositionsUnencodedPass;
const Pass kPositionsUnencodedPass{.rule = "R5",
                                   .name = "positions unencoded",
                                   .does =
                                       "a plan that reads positions without a positional encoding: "
                                       "no rule covers it",
                                   .stage = Stage::kArchitecture,
                                   .on_architecture = positions_unencoded};
extern const Pass kBlockedPass;
const Pass kBlockedPass{
    .rule = "R4",
    .name = "blocked comparison",
    .does =
        "a comparison of order >= 3 no elimination resolves: global aggregation, "
        "super-polynomial",
    .stage = Stage::kArchitecture,
    .on_architecture = blocked_comparison};
extern const Pass kPlacementPass;
const Pass kPlacementPass{.rule = "6 R7",
                          .name = "placement",
                          .does =
                              "every quantity in a (layer, token class, head) slot after what it "
                              "reads, a k-th largest as its chain (R2); exact, to a node cap",
                          .stage = Stage::kArchitecture,
                          .on_architecture = placement};
extern const Pass kPricingPass;
const Pass kPricingPass{.rule = "5.3 R1 R4 R5 R6",
                        .name = "pricing",
                        .does =
                            "each step priced by its catalogue entry, decodings by Theorem 3; the "
                            "plan's rate its costliest; no placement: R4",
                        .stage = Stage::kArchitecture,
                        .on_architecture = pricing};
extern const Pass kKthRetrievalPass;
const Pass kKthRetrievalPass{
    .rule = "R3",
    .name = "k-th retrieval",
    .does =
        "a k-th largest in one layer, Theorem 2's lower bound, where it is "
        "below the chains' price",
    .stage = Stage::kArchitecture,
    .on_architecture = kth_retrieval};

}  // namespace detail

Plan Engine::plan(const Target& target, const Architecture& arch) {
  arch.validate();
  Plan best = plan_program(*target.program, arch);
  best.program = target.program;
  // The alternative reading (products of independent factors split at their vertices, |E| as
  // the larger of max E and -min E, E1) where the first finds no efficient plan: max(s, t)
  // (dot(a, x[s]) * dot(b, x[t])) is a rank-one query-key product on (1,1) and four retrievals
  // on (4); max(s, t) abs(y_s - y_t) a pair's score on (1,1,1) and max y - min y on (2).
  if (target.alternative && best.verdict != Verdict::kEfficient) {
    Plan other = plan_program(*target.alternative, arch);
    other.program = target.alternative;
    if (other.verdict == Verdict::kEfficient) {
      other.dominant += " (with E1's second reading: products of independent factors at their "
                        "vertices, |E| as the larger of max E and -min E, a range written "
                        "outside a maximum over tokens: " +
                        target.alternative->elimination_text() + ")";
      best = std::move(other);
    }
  }
  return best;
}

Plan Engine::plan_program(const Program& program, const Architecture& arch) {
  detail::Planning state{*this, program, arch, node_cap_, {}, {}, {}};
  state.plan.architecture = arch;
  detail::plan_with(detail::passes(), state);
  return std::move(state.plan);
}

Search Engine::search(const Target& target, const Architecture& base, long max_layers,
                      long max_heads) {
  Search out;
  out.max_layers = max_layers;
  out.max_heads = max_heads;
  Architecture a = base;
  if (a.head_dim == 0) a.head_dim = base.head_dim_of(0);  // fixed n: every head count is allowed
  // The verdicts before the placement depend on the program and the positional encoding alone.
  const auto can_plan = [&](const Program& program) {
    detail::Planning verdicts{*this, program, a, node_cap_, {}, {}, {}};
    detail::plan_with(detail::passes(), verdicts, &detail::kPlacementPass);
    return !verdicts.done;
  };
  // The programs tried in turn (plan() takes the alternative where the first is not efficient).
  std::vector<const Program*> programs;
  if (can_plan(*target.program)) programs.push_back(target.program.get());
  if (target.alternative && can_plan(*target.alternative))
    programs.push_back(target.alternative.get());
  const bool plannable = !programs.empty();
  // Prices per layer for the deepest architecture searched (n is fixed, so they agree).
  Architecture deepest = a;
  deepest.heads.assign(static_cast<std::size_t>(max_layers), 1);
  const Pricer pricer{*this, deepest};
  const detail::PriceModel prices = plannable ? pricer.model() : detail::PriceModel{};
  auto dominates = [](const std::vector<long>& x, const std::vector<long>& y) {
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (x[i] < y[i]) return false;
    }
    return true;
  };
  auto smaller = [](const Architecture& x, const Architecture& y) {
    return std::make_tuple(x.widest(), x.layers(), x.total_heads(), x.heads) <
           std::make_tuple(y.widest(), y.layers(), y.total_heads(), y.heads);
  };
  const auto key = [](const std::vector<long>& h) {
    long total = 0;
    for (const long x : h) total += x;
    return std::make_tuple(total, *std::max_element(h.begin(), h.end()), h);
  };
  // Architectures whose search reached the cap: neither efficient nor not. Where one of them
  // could be an answer printed (the smallest, or the fewest heads at its depth), the search
  // says so instead of answering.
  std::vector<Architecture> capped;
  bool answer_capped = false;
  long to_try = 0;  // architectures, for the progress line
  for (long layers = 1, count = max_heads; layers <= max_layers; ++layers, count *= max_heads)
    to_try += count;
  for (long layers = 1; layers <= max_layers; ++layers) {
    std::vector<std::vector<long>> efficient;  // known efficient (monotone: more heads help)
    std::vector<std::vector<long>> not_efficient;
    std::optional<std::vector<long>> fewest;
    std::optional<std::vector<long>> narrowest;
    std::vector<long> heads(static_cast<std::size_t>(layers), 1);
    while (true) {
      ++out.architectures;
      core::progress::set("architectures searched", out.architectures, to_try);
      bool is_efficient = false;
      if (plannable) {
        if (std::any_of(efficient.begin(), efficient.end(),
                        [&](const auto& e) { return dominates(heads, e); })) {
          is_efficient = true;
        } else if (std::none_of(not_efficient.begin(), not_efficient.end(),
                                [&](const auto& e) { return dominates(e, heads); })) {
          a.heads = heads;
          bool reached_cap = false;
          for (const Program* program : programs) {
            const detail::PlacementResult r =
                detail::place(*program, a, prices, true, node_cap_);
            is_efficient = r.best && r.best->cost.slope == 0;
            if (is_efficient) break;
            reached_cap = reached_cap || r.truncated;
          }
          if (is_efficient) {
            efficient.push_back(heads);
          } else if (reached_cap) {
            capped.push_back(a);
          } else {
            not_efficient.push_back(heads);
          }
        }
      }
      if (is_efficient) {
        if (!fewest || key(heads) < key(*fewest)) fewest = heads;
        const auto narrow = [&](const std::vector<long>& h) {
          const auto [total, widest, all] = key(h);
          return std::make_tuple(widest, total, all);
        };
        if (!narrowest || narrow(heads) < narrow(*narrowest)) narrowest = heads;
      }
      std::size_t i = 0;
      while (i < heads.size() && heads[i] == max_heads) heads[i++] = 1;
      if (i == heads.size()) break;
      ++heads[i];
    }
    for (const Architecture& c : capped) {
      if (c.layers() == layers && (!fewest || key(c.heads) < key(*fewest))) answer_capped = true;
    }
    if (fewest) {
      a.heads = *fewest;
      out.per_depth.push_back(plan(target, a));
      a.heads = *narrowest;
      if (!out.smallest || smaller(a, out.smallest->architecture)) {
        out.smallest = *narrowest == *fewest ? out.per_depth.back() : plan(target, a);
      }
    }
  }
  for (const Architecture& c : capped) {
    if (!out.smallest || smaller(c, out.smallest->architecture)) answer_capped = true;
  }
  out.capped = static_cast<long>(capped.size());
  for (const Plan& p : out.per_depth) out.capped += p.truncated ? 1 : 0;
  if (out.smallest && out.smallest->truncated &&
      std::none_of(out.per_depth.begin(), out.per_depth.end(), [&](const Plan& p) {
        return p.architecture.heads == out.smallest->architecture.heads;
      }))
    ++out.capped;
  if (answer_capped) {
    out.undecided = fmt::format(
        "search cap reached: the placement search stopped at its cap of {} nodes on {} of the {} "
        "architectures (the first {}), any of which may be the answer",
        node_cap_, capped.size(), out.architectures, capped.front().heads_text());
    out.smallest.reset();
    out.per_depth.clear();
  }
  if (!plannable) {  // no rule covers the target: no answer, not "none is efficient"
    a.heads = {1};
    if (const Plan any = plan(target, a); any.verdict == Verdict::kOutsideFramework)
      out.undecided = any.reason;
  }
  return out;
}

Condition Engine::condition(const Target& target, const std::string& name,
                            const Architecture& base, long layers, long max_heads) {
  Condition out;
  out.name = name;
  out.layers = layers;
  out.max_heads = max_heads;
  out.limit = 2 * layers * max_heads + 2;  // every quantity takes a slot: no more fit
  std::map<long, Target> by_value;
  auto efficient = [&](long value, const std::vector<long>& heads) {
    auto it = by_value.find(value);
    if (it == by_value.end()) {
      targets::Bindings b = target.bindings;
      b[name] = value;
      it = by_value
               .emplace(value, Target(target.name, target.formula, b, target.family,
                                      target.is_family, target.token_dim))
               .first;
    }
    Architecture a = base;
    if (a.head_dim == 0) a.head_dim = base.head_dim_of(0);
    a.heads = heads;
    return plan(it->second, a).verdict == Verdict::kEfficient;
  };
  std::vector<long> heads(static_cast<std::size_t>(layers), 1);
  while (true) {
    long cap = 0;
    while (cap < out.limit && efficient(cap + 1, heads)) ++cap;
    if (cap + 2 <= out.limit && efficient(cap + 2, heads)) out.monotone = false;
    out.capacity.emplace_back(heads, cap);
    std::size_t i = 0;
    while (i < heads.size() && heads[i] == max_heads) heads[i++] = 1;
    if (i == heads.size()) break;
    ++heads[i];
  }
  if (!out.monotone) return out;
  auto cap_at = [&](const std::vector<long>& h) {
    for (const auto& [x, c] : out.capacity) {
      if (x == h) return c;
    }
    return -1L;
  };
  auto holds = [&](const std::function<long(const std::vector<long>&)>& form) {
    return std::all_of(out.capacity.begin(), out.capacity.end(), [&](const auto& row) {
      const long predicted = std::min(form(row.first), out.limit);
      return std::max(predicted, 0L) == row.second;
    });
  };
  auto h_name = [](std::size_t l) { return "h_" + std::to_string(l + 1); };
  const std::vector<long> ones(static_cast<std::size_t>(layers), 1);
  // A linear form, from the unit steps at (1, ..., 1).
  std::vector<long> slope;
  long constant = cap_at(ones);
  for (std::size_t l = 0; l < ones.size(); ++l) {
    std::vector<long> up = ones;
    up[l] = 2;
    slope.push_back(cap_at(up) - cap_at(ones));
    constant -= slope.back();
  }
  if (holds([&](const std::vector<long>& h) {
        long v = constant;
        for (std::size_t l = 0; l < h.size(); ++l) v += slope[l] * h[l];
        return v;
      })) {
    std::string form;
    for (std::size_t l = 0; l < slope.size(); ++l) {
      if (slope[l] == 0) continue;
      form += (form.empty() ? "" : " + ") + (slope[l] == 1 ? "" : std::to_string(slope[l]) + "*") + h_name(l);
    }
    if (constant != 0 || form.empty())
      form += (form.empty() ? "" : constant > 0 ? " + " : " - ") + std::to_string(form.empty() ? constant : std::abs(constant));
    out.closed_form = constant >= out.limit && form == std::to_string(constant)
                          ? "every " + name + " tried"
                          : name + " <= " + form;
    if (cap_at(ones) == 0 && std::all_of(slope.begin(), slope.end(), [](long a) { return a == 0; }))
      out.closed_form = "no " + name;
    return out;
  }
  // The smallest head count over a set of layers.
  for (unsigned set = 1; set < (1u << layers); ++set) {
    const auto form = [&](const std::vector<long>& h) {
      long v = std::numeric_limits<long>::max();
      for (std::size_t l = 0; l < h.size(); ++l) {
        if (set & (1u << l)) v = std::min(v, h[l]);
      }
      return v;
    };
    if (holds(form)) {
      std::vector<std::string> parts;
      for (std::size_t l = 0; l < static_cast<std::size_t>(layers); ++l) {
        if (set & (1u << l)) parts.push_back(h_name(l) + " >= " + name);
      }
      out.closed_form = fmt::format("{}", fmt::join(parts, " and "));
      return out;
    }
  }
  return out;
}

// ---- derived entries -----------------------------------------------------------------------

Entry Engine::derived_entry(const Target& target, const Plan& plan) const {
  if (!plan.priced()) {
    throw InputError("target " + target.name + " on " + plan.architecture.heads_text() +
                     " has no rate to derive: " + to_text(plan.verdict) + " (" + plan.reason + ")");
  }
  const Architecture& a = plan.architecture;
  Entry e;
  e.id = fmt::format("derived.{}.L{}.h{}.E{}{}", target.name, a.layers(), fmt::join(a.heads, "-"),
                     a.embedding, a.encodes_positions() ? ".pe" : "");
  e.paper = "derived";
  e.source = "infoflow derive (" + a.text() + ")";
  e.provenance = Provenance::kDerived;
  e.kind = plan.kind;  // a lower bound where the plan rests on one (Theorem 2)
  e.quantity = "M";
  e.task = derived_family(target).id;
  const SourceLocation where{"derived:" + target.name, 1, 1};
  e.where = where;
  auto relate = [&](const std::string& text, const std::string& field) {
    for (symbolic::Relation& r : symbolic::parse_relations(text, where)) {
      e.setting.push_back(WrittenRelation{std::move(r), field, where});
    }
  };
  relate("L == " + std::to_string(a.layers()), "depth");
  const bool uniform =
      std::all_of(a.heads.begin(), a.heads.end(), [&](long h) { return h == a.heads.front(); });
  if (uniform) relate("h == " + std::to_string(a.heads.front()), "heads");
  relate("E == " + std::to_string(a.embedding), "constraints");
  relate("d == " + std::to_string(a.token_dim), "constraints");
  bool uniform_n = true;
  for (long l = 0; l < a.layers(); ++l)
    uniform_n = uniform_n && a.head_dim_of(l) == a.head_dim_of(0);
  if (uniform_n) relate("n == " + std::to_string(a.head_dim_of(0)), "constraints");
  for (const auto& [name, value] : target.bindings) {
    const symbolic::SymbolInfo* s = symbolic::SymbolRegistry::standard().find(name);
    if (name != "T" && s != nullptr && s->role == symbolic::Role::kProblem) {
      relate(name + " == " + std::to_string(value), "constraints");
    }
  }
  const std::string rate = "eps^(-(" + symbolic::canonical(plan.exponent) + "))";
  e.rate_written = symbolic::parse_expression(rate, where);
  e.rate = symbolic::Rate::from_ex(symbolic::to_ex(e.rate_written), where);
  e.notes = fmt::format("{} for {} = {}; {}; dominant: {}; elimination: {}{}", to_text(plan.verdict),
                        target.name, targets::to_text(target.formula.root()), a.text(),
                        plan.dominant,
                        target.program->quantities.empty() ? "none"
                                                           : target.program->elimination_text(),
                        uniform ? "" : " (heads differ per layer; the setting records L, E, d, n only)");
  e.derived_from = plan.entries;
  return e;
}

TaskFamily Engine::derived_family(const Target& target) {
  if (target.is_family) return TaskFamily{target.family, "", ""};
  return TaskFamily{"target." + target.name, target.family,
                    targets::to_text(target.formula.root())};
}

void Engine::add_derived(Catalogue& catalogue, const Target& target, const Plan& plan) const {
  if (catalogue.find_task(target.family) == nullptr) {
    throw InputError("target " + target.name + ": no task family '" + target.family +
                     "' in the catalogue");
  }
  const TaskFamily family = derived_family(target);
  if (catalogue.find_task(family.id) == nullptr) catalogue.add_task(family);
  catalogue.add(derived_entry(target, plan));
}

void add_derived_bounds(Catalogue& catalogue, const std::vector<std::string>& target_files) {
  if (target_files.empty()) return;
  // Plans are priced by the catalogue as loaded; the derived entries join it afterwards.
  const Catalogue loaded = catalogue;
  Engine engine(loaded);
  for (const std::string& file : target_files) {
    for (const targets::TargetSpec& spec : targets::load_targets(file)) {
      const Target target = to_target(spec);
      for (const std::vector<long>& heads : spec.architectures) {
        Architecture a;
        a.heads = heads;
        a.embedding = spec.embedding;
        a.token_dim = spec.token_dim;
        a.positional = core::encoding_for(spec.positional);
        try {
          engine.add_derived(catalogue, target, engine.plan(target, a));
        } catch (const InputError& e) {
          throw InputError(
              spec.where, "target " + spec.name + ", heads " + a.heads_text() + ": " + e.message());
        }
      }
    }
  }
}

Target to_target(const targets::TargetSpec& spec) {
  return Target(spec.name, spec.formula, spec.set, spec.family, spec.same_as_family,
                spec.token_dim);
}

Architecture architecture_for(const targets::TargetSpec& spec, long embedding, long head_dim,
                              std::vector<long> heads) {
  Architecture a;
  a.heads = std::move(heads);
  a.embedding = embedding;
  a.token_dim = spec.token_dim;
  a.head_dim = head_dim;
  a.positional = core::encoding_for(spec.positional);
  a.validate();
  return a;
}

std::vector<Condition> conditions_by_depth(Engine& engine, const targets::TargetSpec& spec,
                                           const std::string& name, const Architecture& base) {
  targets::TargetSpec probe = spec;
  probe.set[name] = 1;  // a value to compile with; the conditions try every one
  const Target target = to_target(probe);
  std::vector<Condition> out;
  for (long layers = 1; layers <= 3; ++layers) {
    out.push_back(engine.condition(target, name, base, layers, 4));
  }
  return out;
}

}  // namespace infoflow::theorems
