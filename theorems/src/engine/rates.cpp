// A plan's and a decoding's rates: eps^(-exponent), as T grows or at a given T.
#include "infoflow/theorems/engine.hpp"

#include "pricer.hpp"

namespace infoflow::theorems {

using detail::sym;

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

}  // namespace infoflow::theorems
