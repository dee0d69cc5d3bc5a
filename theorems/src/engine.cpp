#include "infoflow/theorems/engine.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "infoflow/symbolic/canonical.hpp"
#include "infoflow/symbolic/expression.hpp"
#include "infoflow/symbolic/symbols.hpp"

namespace infoflow::theorems {

namespace {

const GiNaC::possymbol& sym(const char* name) {
  return symbolic::SymbolRegistry::standard().at(name).symbol;
}

/// An exponent's order as T -> infinity: (coefficient of T, the rest), both numbers once the
/// architecture's values are in.
std::pair<GiNaC::numeric, GiNaC::numeric> growth(const GiNaC::ex& a) {
  const GiNaC::ex e = a.expand();
  const GiNaC::ex slope = e.coeff(sym("T"), 1);
  const GiNaC::ex rest = e.coeff(sym("T"), 0);
  if (!GiNaC::is_a<GiNaC::numeric>(slope) || !GiNaC::is_a<GiNaC::numeric>(rest) ||
      e.degree(sym("T")) > 1) {
    throw Error("engine: the exponent " + symbolic::canonical(a) +
                    " is not linear in T with numeric coefficients; the planner needs every other "
                    "symbol to have a value",
                ExitCode::kInternal);
  }
  return {GiNaC::ex_to<GiNaC::numeric>(slope), GiNaC::ex_to<GiNaC::numeric>(rest)};
}

bool larger(const GiNaC::ex& a, const GiNaC::ex& b) {
  const auto [sa, ra] = growth(a);
  const auto [sb, rb] = growth(b);
  return sa != sb ? sa > sb : ra > rb;
}

bool grows_with_T(const GiNaC::ex& a) {
  return !growth(a).first.is_zero();
}

std::string set_text(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : " ∪ ") + p;
  return out;
}

}  // namespace

// ---- architecture ------------------------------------------------------------------------

void Architecture::validate() const {
  if (heads.empty()) throw InputError("the architecture needs at least one layer");
  for (std::size_t l = 0; l < heads.size(); ++l) {
    if (heads[l] < 1) {
      throw InputError("layer " + std::to_string(l + 1) + " has " + std::to_string(heads[l]) +
                       " heads; at least 1 is needed");
    }
    if (head_dim == 0 && embedding % heads[l] != 0) {
      throw InputError("layer " + std::to_string(l + 1) + ": " + std::to_string(heads[l]) +
                       " heads do not divide E = " + std::to_string(embedding) +
                       " (give the head dimension n to fix it)");
    }
  }
  if (embedding < 1) throw InputError("E must be at least 1");
  if (token_dim < 1) throw InputError("d must be at least 1");
  if (head_dim < 0) throw InputError("the head dimension n must be positive");
}

long Architecture::head_dim_of(long layer) const {
  return head_dim > 0 ? head_dim : embedding / heads[static_cast<std::size_t>(layer)];
}

long Architecture::total_heads() const {
  long total = 0;
  for (const long h : heads) total += h;
  return total;
}

long Architecture::widest() const {
  return *std::max_element(heads.begin(), heads.end());
}

std::string Architecture::heads_text() const {
  std::string out = "(";
  for (std::size_t l = 0; l < heads.size(); ++l) out += (l ? "," : "") + std::to_string(heads[l]);
  return out + ")";
}

std::string Architecture::text() const {
  return fmt::format("L={} h={} E={} d={} n={} pe={}", layers(), heads_text(), embedding, token_dim,
                     head_dim > 0 ? std::to_string(head_dim) : "E/h", positional ? "on" : "off");
}

std::string to_text(Verdict v) {
  switch (v) {
    case Verdict::kEfficient:
      return "efficient";
    case Verdict::kExponentialInT:
      return "exponential in T";
    case Verdict::kSuperPolynomial:
      return "super-polynomial";
  }
  return "";
}

std::string to_text(Action a) {
  switch (a) {
    case Action::kMaxRetrieval:
      return "max-position retrieval";
    case Action::kKthRetrieval:
      return "k-th retrieval";
    case Action::kGlobalAggregation:
      return "global aggregation";
    case Action::kPositionAggregation:
      return "specific-position aggregation";
  }
  return "";
}

Target::Target(std::string name_, targets::Formula formula_, targets::Bindings bindings_,
               std::string family_, bool is_family_)
    : name(std::move(name_)),
      formula(std::move(formula_)),
      analysis(targets::analyze(formula)),
      bindings(std::move(bindings_)),
      family(std::move(family_)),
      is_family(is_family_) {
  for (const std::string& n : formula.free_integers()) {
    if (n != "T" && bindings.count(n) == 0) {
      throw InputError("target " + name + ": the formula needs a value for " + n + " (e.g. --set " +
                       n + "=2)");
    }
  }
}

symbolic::Rate Plan::rate() const {
  return symbolic::Rate::from_ex(GiNaC::pow(sym("eps"), -exponent));
}

// ---- engine ------------------------------------------------------------------------------

Engine::Engine(const Catalogue& catalogue, CostModel costs)
    : catalogue_(catalogue), costs_(std::move(costs)) {
  for (const std::string& id : {costs_.efficient, costs_.decoding, costs_.kth}) {
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

GiNaC::ex Engine::decode_exponent(const GiNaC::ex& size, const Architecture& a) {
  const GiNaC::ex floor = exponent_of(costs_.efficient, {});
  const GiNaC::ex decode = exponent_of(
      costs_.decoding, {{sym("T0"), size}, {sym("d"), a.token_dim}, {sym("E"), a.embedding}});
  return larger(decode, floor) ? decode : floor;
}

Plan Engine::plan(const Target& target, const Architecture& arch) {
  arch.validate();
  const long layers = arch.layers();
  Plan p;
  p.architecture = arch;
  std::vector<long> free_inputs(arch.heads.begin(), arch.heads.end());
  std::vector<long> free_readout(arch.heads.begin(), arch.heads.end());
  const GiNaC::ex efficient = exponent_of(costs_.efficient, {});
  std::set<std::string> entries{costs_.efficient};

  struct Instance {
    std::string value;  // m_j, the compared quantity
    std::string text;
    int order = 1;
    long rank = 1;
  };
  std::vector<Instance> two_stage, ranked, single;
  std::vector<std::string> aggregate;  // reasons
  bool higher_order = false;
  long counter = 0;
  for (const targets::Comparison& c : target.analysis.comparisons) {
    if (!c.positions.empty()) {
      throw InputError("the planner cannot handle a fixed position read inside the comparison '" +
                       c.text + "'");
    }
    long copies = c.split ? c.indices : 1;
    for (const std::string& m : c.multiplicity)
      copies *= targets::resolve(targets::Bound{0, m}, target.bindings);
    const long rank =
        c.mode == targets::CompareMode::kRanked ? targets::resolve(c.rank, target.bindings) : 1;
    for (long i = 0; i < copies; ++i) {
      Instance in{"m" + std::to_string(++counter), c.text, c.order, rank};
      if (c.mode == targets::CompareMode::kSum) {
        aggregate.push_back(in.value + ": a sum over tokens (" + c.text + ") reads every token");
      } else if (c.order >= 3) {
        higher_order = true;
        aggregate.push_back(in.value + ": a coupled comparison of order " +
                            std::to_string(c.order) + " (" + c.text +
                            ") cannot be resolved by max-position retrievals");
      } else if (c.order == 2) {
        two_stage.push_back(in);
      } else if (rank >= 2) {
        ranked.push_back(in);
      } else {
        single.push_back(in);
      }
    }
  }

  auto take = [&](std::vector<long>& pool, long from) -> long {
    for (long l = from; l < layers; ++l) {
      if (pool[static_cast<std::size_t>(l)] > 0) {
        --pool[static_cast<std::size_t>(l)];
        return l;
      }
    }
    return -1;
  };
  auto head_number = [&](const std::vector<long>& pool, long l) {
    return arch.heads[static_cast<std::size_t>(l)] - pool[static_cast<std::size_t>(l)];
  };
  auto readout_step = [&](long l, const Instance& in, const std::string& what) {
    PlanStep s{l + 1,
               head_number(free_readout, l),
               TokenClass::kReadout,
               in.rank >= 2 ? Action::kKthRetrieval : Action::kMaxRetrieval,
               what,
               costs_.efficient,
               efficient};
    if (in.rank >= 2) {
      s.entry = costs_.kth;
      s.exponent = exponent_of(costs_.kth, {{sym("k"), in.rank}, {sym("n"), arch.head_dim_of(l)}});
    }
    entries.insert(s.entry);
    p.steps.push_back(s);
  };

  // Order 2: a retrieval at every token in layer a, then at the readout in a layer b > a.
  for (const Instance& in : two_stage) {
    long a = -1;
    long b = -1;
    for (long l = 0; l + 1 < layers && b < 0; ++l) {
      if (free_inputs[static_cast<std::size_t>(l)] == 0) continue;
      for (long m = l + 1; m < layers; ++m) {
        if (free_readout[static_cast<std::size_t>(m)] > 0) {
          a = l;
          b = m;
          break;
        }
      }
    }
    if (a < 0) {
      aggregate.push_back(
          in.value +
          ": no free head at the tokens in one layer and at the readout in a later one (" +
          in.text + ")");
      continue;
    }
    --free_inputs[static_cast<std::size_t>(a)];
    --free_readout[static_cast<std::size_t>(b)];
    const std::string partner = "s" + in.value.substr(1) + "*(t)";
    p.steps.push_back(PlanStep{
        a + 1, head_number(free_inputs, a), TokenClass::kInputs, Action::kMaxRetrieval,
        partner + ": the partner of each token t in " + in.text, costs_.efficient, efficient});
    readout_step(b, in,
                 "t" + in.value.substr(1) + "*: the token of the extreme " + in.value +
                     "(t) = value at (t, " + partner + ")");
  }
  for (const Instance& in : ranked) {
    const long l = take(free_readout, 0);
    if (l < 0) {
      aggregate.push_back(in.value + ": no free head at the readout (" + in.text + ")");
      continue;
    }
    readout_step(l, in, "the token of rank " + std::to_string(in.rank) + " in " + in.text);
  }
  for (const Instance& in : single) {
    const long l = take(free_readout, 0);
    if (l < 0) {
      aggregate.push_back(in.value + ": no free head at the readout (" + in.text + ")");
      continue;
    }
    readout_step(l, in, "the extreme token of " + in.text);
  }
  std::vector<long> fixed = target.analysis.fixed_positions;
  for (const auto& [low, high] : target.analysis.fixed_ranges) {
    for (long q = targets::resolve(low, target.bindings);
         q <= targets::resolve(high, target.bindings); ++q)
      fixed.push_back(q);
  }
  std::sort(fixed.begin(), fixed.end());
  fixed.erase(std::unique(fixed.begin(), fixed.end()), fixed.end());
  if (!fixed.empty()) {
    const long l = arch.positional ? take(free_readout, 0) : -1;
    if (l >= 0) {
      const GiNaC::ex a = decode_exponent(static_cast<long>(fixed.size()), arch);
      entries.insert(costs_.decoding);
      p.steps.push_back(PlanStep{
          l + 1, head_number(free_readout, l), TokenClass::kReadout, Action::kPositionAggregation,
          fmt::format("positions {{{}}}", fmt::join(fixed, ", ")), costs_.decoding, a});
    } else {
      aggregate.push_back(arch.positional ? "fixed positions: no free head at the readout"
                                          : "fixed positions: without a positional encoding only "
                                            "global aggregation reaches them");
    }
  }
  if (!aggregate.empty()) {
    long l = take(free_readout, 0);
    long head = l >= 0 ? head_number(free_readout, l) : 0;
    if (l < 0) {  // give up the last readout retrieval: aggregation covers it too
      for (auto it = p.steps.rbegin(); it != p.steps.rend(); ++it) {
        if (it->where == TokenClass::kReadout) {
          l = it->layer - 1;
          head = it->head;  // the aggregation takes over that head
          aggregate.push_back("the readout retrieval of layer " + std::to_string(it->layer) +
                              " makes room for the aggregation, which covers it");
          p.steps.erase(std::next(it).base());
          break;
        }
      }
    }
    const GiNaC::ex a = decode_exponent(sym("T"), arch);
    entries.insert(costs_.decoding);
    p.steps.push_back(PlanStep{l + 1, head, TokenClass::kReadout, Action::kGlobalAggregation,
                               "every position {1, ..., T}", costs_.decoding, a});
    p.fallbacks = aggregate;
  }
  std::stable_sort(p.steps.begin(), p.steps.end(), [](const PlanStep& x, const PlanStep& y) {
    return std::tie(x.layer, x.where, x.head) < std::tie(y.layer, y.where, y.head);
  });

  // Information sets, layer by layer (positions of a generic sequence are distinct).
  long token_size = 1;
  GiNaC::ex readout_size = 0;
  std::string token_text = "{t}";
  std::string readout_text = "{}";
  p.sets.push_back(LayerSets{0, token_text, token_size, readout_text, readout_size});
  for (long l = 1; l <= layers; ++l) {
    std::vector<std::string> token_parts;
    std::vector<std::string> readout_parts;
    if (readout_text != "{}")
      readout_parts.push_back(l == 1 ? readout_text : "I(T+1," + std::to_string(l - 1) + ")");
    long retrievals = 0;
    bool global = false;
    GiNaC::ex added = 0;
    const std::string prev = std::to_string(l - 1);
    for (const PlanStep& s : p.steps) {
      if (s.layer != l) continue;
      const std::string who = s.what.substr(0, s.what.find(':'));
      if (s.where == TokenClass::kInputs) {
        ++retrievals;
        token_parts.push_back(l == 1 ? who : "I(" + who + "," + prev + ")");
      } else if (s.action == Action::kGlobalAggregation) {
        global = true;
      } else if (s.action == Action::kPositionAggregation) {
        added += static_cast<long>(fixed.size()) * token_size;
        readout_parts.push_back(l == 1 ? s.what.substr(10)
                                       : "I(" + s.what.substr(10) + "," + prev + ")");
      } else {
        added += token_size;
        readout_parts.push_back(l == 1 ? who : "I(" + who + "," + prev + ")");
      }
    }
    const long next_token = token_size * (1 + retrievals);
    if (retrievals > 0 && l == 1) {
      std::string inner;
      for (const std::string& part : token_parts) inner += ", " + part;
      token_text = "{t" + inner + "}";
    } else if (retrievals > 0) {
      token_text = "I(t," + prev + ") ∪ " + set_text(token_parts);
    } else if (l > 1) {
      token_text = "I(t," + prev + ")";
    }
    if (global) {
      readout_size = sym("T");
      readout_text = "{1, ..., T}";
    } else if (!GiNaC::is_a<GiNaC::symbol>(readout_size)) {
      readout_size = readout_size + added;
      if (!readout_parts.empty()) readout_text = set_text(readout_parts);
    }
    token_size = next_token;
    p.sets.push_back(LayerSets{l, token_text, token_size, readout_text, readout_size});
    if (retrievals > 0) {
      entries.insert(costs_.decoding);
      p.decodings.push_back(Decoding{l, TokenClass::kInputs, token_size, costs_.decoding,
                                     decode_exponent(token_size, arch)});
    }
  }
  if (!readout_size.is_zero()) {
    entries.insert(costs_.decoding);
    p.decodings.push_back(Decoding{layers, TokenClass::kReadout, readout_size, costs_.decoding,
                                   decode_exponent(readout_size, arch)});
  }

  // The dominant cost.
  p.exponent = efficient;
  p.dominant = "the efficient rate (" + costs_.efficient + ")";
  for (const PlanStep& s : p.steps) {
    if (larger(s.exponent, p.exponent)) {
      p.exponent = s.exponent;
      p.dominant =
          fmt::format("layer {} head {}: {} ({})", s.layer, s.head, to_text(s.action), s.entry);
    }
  }
  for (const Decoding& d : p.decodings) {
    if (larger(d.exponent, p.exponent)) {
      p.exponent = d.exponent;
      p.dominant = fmt::format(
          "decoding {} positions at the {} after layer {} ({})", symbolic::canonical(d.size),
          d.where == TokenClass::kReadout ? "readout" : "tokens", d.layer, d.entry);
    }
  }
  p.verdict = !grows_with_T(p.exponent) ? Verdict::kEfficient
              : higher_order            ? Verdict::kSuperPolynomial
                                        : Verdict::kExponentialInT;
  p.entries.assign(entries.begin(), entries.end());
  return p;
}

Search Engine::search(const Target& target, const Architecture& base, long max_layers,
                      long max_heads) {
  Search out;
  Architecture a = base;
  if (a.head_dim == 0) a.head_dim = base.head_dim_of(0);  // fixed n: every head count is allowed
  auto smaller = [](const Architecture& x, const Architecture& y) {
    return std::make_tuple(x.widest(), x.layers(), x.total_heads(), x.heads) <
           std::make_tuple(y.widest(), y.layers(), y.total_heads(), y.heads);
  };
  for (long layers = 1; layers <= max_layers; ++layers) {
    std::optional<Plan> best;
    std::vector<long> heads(static_cast<std::size_t>(layers), 1);
    while (true) {
      a.heads = heads;
      ++out.architectures;
      Plan p = plan(target, a);
      if (p.verdict == Verdict::kEfficient) {
        const auto key = [](const Architecture& x) {
          return std::make_tuple(x.total_heads(), x.widest(), x.heads);
        };
        if (!best || key(p.architecture) < key(best->architecture)) best = p;
        if (!out.smallest || smaller(p.architecture, out.smallest->architecture)) out.smallest = p;
      }
      std::size_t i = 0;
      while (i < heads.size() && heads[i] == max_heads) heads[i++] = 1;
      if (i == heads.size()) break;
      ++heads[i];
    }
    if (best) out.per_depth.push_back(*best);
  }
  return out;
}

Entry Engine::derived_entry(const Target& target, const Plan& plan) const {
  const Architecture& a = plan.architecture;
  Entry e;
  std::string heads_id;
  for (std::size_t l = 0; l < a.heads.size(); ++l)
    heads_id += (l ? "-" : "") + std::to_string(a.heads[l]);
  e.id = fmt::format("derived.{}.L{}.h{}.E{}{}", target.name, a.layers(), heads_id, a.embedding,
                     a.positional ? ".pe" : "");
  e.paper = "derived";
  e.source = "infoflow derive (" + a.text() + ")";
  e.provenance = Provenance::kDerived;
  e.kind = Kind::kUpper;
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
  e.notes =
      fmt::format("{} for {} = {}; {}; dominant: {}{}", to_text(plan.verdict), target.name,
                  targets::to_text(target.formula.root()), a.text(), plan.dominant,
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

}  // namespace infoflow::theorems
