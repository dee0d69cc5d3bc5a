#include "infoflow/symbolic/symbols.hpp"

#include <algorithm>
#include <stdexcept>

namespace infoflow::symbolic {
namespace {

SymbolInfo make(std::string name, std::string latex, Role role, bool integer,
                GiNaC::numeric lower, bool lower_strict, std::string meaning) {
  SymbolInfo info;
  info.symbol = GiNaC::possymbol(name, latex);
  info.name = std::move(name);
  info.latex = std::move(latex);
  info.role = role;
  info.integer = integer;
  info.lower = lower;
  info.lower_strict = lower_strict;
  info.meaning = std::move(meaning);
  return info;
}

}  // namespace

SymbolRegistry& SymbolRegistry::standard() {
  static SymbolRegistry registry;
  return registry;
}

SymbolRegistry::SymbolRegistry() {
  // The order here is the order in which monomial factors and equal-degree terms print.
  SymbolInfo eps = make("eps", "\\varepsilon", Role::kPrecision, false, 0, true,
                        "approximation precision, 0 < eps < 1, asymptotics as eps -> 0+");
  eps.upper = GiNaC::numeric(1);
  add(std::move(eps));
  // Constants first, so a monomial reads "c*T" as papers write it.
  add(make("c", "c", Role::kConstant, false, 0, true, "unknown positive constant of a theorem"));
  add(make("c0", "c_0", Role::kConstant, false, 0, true,
           "unknown positive constant of a theorem"));
  add(make("T", "T", Role::kProblem, true, 1, false, "number of input tokens"));
  add(make("T0", "T_0", Role::kProblem, true, 1, false, "size of an information set to decode"));
  add(make("L", "L", Role::kArchitecture, true, 1, false, "depth: number of attention layers"));
  add(make("h", "h", Role::kArchitecture, true, 1, false, "heads per layer"));
  add(make("E", "E", Role::kArchitecture, true, 1, false, "embedding dimension"));
  add(make("n", "n", Role::kArchitecture, true, 1, false, "per-head dimension"));
  add(make("s", "s", Role::kArchitecture, true, 1, false, "number of heads when s < D"));
  add(make("d", "d", Role::kProblem, true, 1, false, "input token dimension"));
  add(make("k", "k", Role::kProblem, true, 1, false, "rank of the retrieved score"));
  add(make("D", "D", Role::kProblem, true, 1, false, "intrinsic dimension"));
  add(make("gamma", "\\gamma", Role::kProblem, false, 0, true,
           "approximation-rate exponent of the smooth parts"));
  facts_ = {
      {"k", "T", 0, "k <= T: the k-th largest of T scores"},
      {"T0", "T", 1, "T0 <= T + 1: an information set holds at most the T tokens and the readout"},
      {"s", "D", -1, "s < D: s counts heads below the D comparisons (the predecessor's s)"},
  };
}

const SymbolInfo& SymbolRegistry::add(SymbolInfo info) {
  info.order = symbols_.size();
  by_name_[info.name] = symbols_.size();
  by_symbol_[info.symbol] = symbols_.size();
  symbols_.push_back(std::move(info));
  return symbols_.back();
}

const SymbolInfo* SymbolRegistry::find(std::string_view name) const {
  const std::lock_guard lock(mutex_);
  const auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &symbols_[it->second];
}

const SymbolInfo& SymbolRegistry::at(std::string_view name) const {
  const SymbolInfo* info = find(name);
  if (info == nullptr) {
    throw std::out_of_range("SymbolRegistry::at(): no symbol named " + std::string(name));
  }
  return *info;
}

const SymbolInfo& SymbolRegistry::info(const GiNaC::ex& symbol) const {
  const std::lock_guard lock(mutex_);
  const auto it = by_symbol_.find(symbol);
  if (it == by_symbol_.end()) {
    throw std::out_of_range("SymbolRegistry::info(): not a registered symbol");
  }
  return symbols_[it->second];
}

bool SymbolRegistry::contains(const GiNaC::ex& symbol) const {
  const std::lock_guard lock(mutex_);
  return by_symbol_.count(symbol) > 0;
}

const SymbolInfo& SymbolRegistry::renamed(const SymbolInfo& original, std::string_view tag) {
  const std::string name = original.name + "@" + std::string(tag);
  if (const SymbolInfo* existing = find(name)) return *existing;
  const std::lock_guard lock(mutex_);
  SymbolInfo copy = original;
  copy.name = name;
  // The tag is an entry id ("head_count.depth_conjecture"): upright, its underscores escaped, so
  // that it reads as a name in math mode rather than as subscripts.
  std::string tag_latex;
  for (const char c : tag) tag_latex += c == '_' ? std::string("\\_") : std::string(1, c);
  copy.latex = original.latex + "^{(\\mathrm{" + tag_latex + "})}";
  copy.symbol = GiNaC::possymbol(name, copy.latex);
  return add(std::move(copy));
}

std::vector<const SymbolInfo*> SymbolRegistry::all() const {
  const std::lock_guard lock(mutex_);
  std::vector<const SymbolInfo*> out;
  for (const SymbolInfo& info : symbols_) out.push_back(&info);
  return out;
}

std::vector<FactBetween> SymbolRegistry::implicit_facts_among(
    const std::vector<const SymbolInfo*>& symbols) const {
  const auto base = [](const SymbolInfo* s) {
    return std::string_view(s->name).substr(0, s->name.find('@'));
  };
  std::vector<FactBetween> out;
  for (const ImplicitFact& fact : facts_) {
    for (const SymbolInfo* a : symbols) {
      if (base(a) != fact.smaller) continue;
      for (const SymbolInfo* b : symbols) {
        if (base(b) == fact.larger) out.push_back({a, b, &fact});
      }
    }
  }
  return out;
}

std::vector<const SymbolInfo*> symbols_of(const GiNaC::ex& e) {
  const SymbolRegistry& registry = SymbolRegistry::standard();
  std::vector<const SymbolInfo*> out;
  for (GiNaC::const_preorder_iterator it = e.preorder_begin(); it != e.preorder_end(); ++it) {
    if (GiNaC::is_a<GiNaC::symbol>(*it)) {
      const SymbolInfo* info = &registry.info(*it);
      if (std::find(out.begin(), out.end(), info) == out.end()) out.push_back(info);
    }
  }
  std::sort(out.begin(), out.end(),
            [](const SymbolInfo* a, const SymbolInfo* b) { return a->order < b->order; });
  return out;
}

}  // namespace infoflow::symbolic
