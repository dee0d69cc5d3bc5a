#include "infoflow/symbolic/compare.hpp"

namespace infoflow::symbolic {
namespace {

using GiNaC::ex;

/// The growth a sign of (first - second) means, and whether the comparison must go on.
Growth growth_of(Sign sign) {
  switch (sign) {
    case Sign::kPositive: return Growth::kFaster;
    case Sign::kNegative: return Growth::kSlower;
    case Sign::kZero: return Growth::kSame;
    case Sign::kNonNegative:
    case Sign::kNonPositive:
    case Sign::kNonZero:
    case Sign::kIndefinite: return Growth::kDepends;
    case Sign::kEmptyDomain:
    case Sign::kUnknown: return Growth::kUnknown;
  }
  return Growth::kUnknown;
}

/// Decides one component; returns true when it settled the comparison.
bool decide(RateComparison& out, const ex& gap, const std::string& component, const Domain& domain,
            SignOracle& oracle) {
  out.gap = gap.normal();
  out.decided_by = component;
  out.gap_sign = oracle.sign(out.gap, domain);
  // What follows (the condition's denominator and slope) is not an exponent gap.
  if (Journal* journal = oracle.journal()) journal->context = {journal->context.topic, {}, {}, {}, {}};
  out.growth = growth_of(out.gap_sign.sign);
  if (out.gap_sign.sign == Sign::kEmptyDomain) out.note = "the domain is empty";
  if (out.gap_sign.sign == Sign::kUnknown) out.note = "the sign of the gap could not be decided";
  if (out.growth == Growth::kDepends) out.faster_when = positive_condition(out.gap, domain, oracle);
  return out.growth != Growth::kSame;
}

}  // namespace

std::string to_text(Growth growth) {
  switch (growth) {
    case Growth::kSlower: return "slower";
    case Growth::kSame: return "same";
    case Growth::kFaster: return "faster";
    case Growth::kDepends: return "depends";
    case Growth::kUnknown: return "unknown";
  }
  return {};
}

Condition positive_condition(const ex& gap, const Domain& domain, SignOracle& oracle) {
  const ex normal = gap.normal();
  ex num = normal.numer().expand();
  const ex den = normal.denom().expand();
  Condition out;
  const Sign den_sign = oracle.sign(den, domain).sign;
  if (den_sign != Sign::kPositive && den_sign != Sign::kNegative) {
    out.text = canonical(normal) + " > 0";
    out.latex = canonical(normal, Format::kLatex) + " > 0";
    return out;
  }
  if (den_sign == Sign::kNegative) num = (-num).expand();
  const ex T = SymbolRegistry::standard().seq_len();
  if (num.is_polynomial(T) && num.degree(T) == 1) {
    const ex slope = num.coeff(T, 1);
    const Sign slope_sign = oracle.sign(slope, domain).sign;
    if (slope_sign == Sign::kPositive || slope_sign == Sign::kNegative) {
      const ex threshold = (-num.coeff(T, 0) / slope).normal();
      out.threshold_T = threshold;
      out.above = slope_sign == Sign::kPositive;
      const std::string op = out.above ? " > " : " < ";
      out.text = "T" + op + canonical(threshold);
      out.latex = "T" + op + canonical(threshold, Format::kLatex);
      return out;
    }
  }
  out.text = canonical_relation(num, ">");
  out.latex = canonical_relation(num, ">", Format::kLatex);
  return out;
}

std::string RateComparison::summary() const {
  std::string out = to_text(growth);
  if (!decided_by.empty()) out += " (" + decided_by + " gap " + canonical(gap) + ")";
  if (growth == Growth::kDepends) out += "; faster where " + faster_when.text;
  if (!note.empty()) out += "; " + note;
  return out;
}

RateComparison compare_as_eps_to_zero(const Rate& first, const Rate& second, const Domain& domain,
                                      SignOracle& oracle) {
  RateComparison out;
  Journal* journal = oracle.journal();
  const std::string topic = journal != nullptr ? journal->context.topic : std::string();
  if (journal != nullptr) {
    journal->context = {topic, first.eps_exponent(), second.eps_exponent(), "eps", std::nullopt};
  }
  if (decide(out, first.eps_exponent() - second.eps_exponent(), "eps exponent", domain, oracle)) {
    if (journal != nullptr) journal->context.topic = topic;
    return out;
  }
  if (journal != nullptr) {
    journal->context = {topic, first.log_exponent(), second.log_exponent(), "log",
                        first.eps_exponent()};
  }
  decide(out, first.log_exponent() - second.log_exponent(), "log exponent", domain, oracle);
  if (journal != nullptr) journal->context.topic = topic;
  return out;
}

RateComparison compare_as_T_to_infinity(const Rate& first, const Rate& second,
                                        const Domain& domain, SignOracle& oracle) {
  RateComparison out;
  const ex T = SymbolRegistry::standard().seq_len();
  const ex gap = (first.eps_exponent() - second.eps_exponent()).normal();
  const ex num = gap.numer().expand();
  const ex den = gap.denom().expand();
  const ex exp_gap = (first.exp_rate_in_T() - second.exp_rate_in_T()).normal();
  if (num.is_polynomial(T) && den.is_polynomial(T)) {
    const int degree = num.degree(T) - den.degree(T);
    if (degree >= 1) {
      // log R1/R2 ~ lead * T^degree * log(1/eps) (+ exp_gap * T when degree is 1).
      const ex lead = (num.lcoeff(T) / den.lcoeff(T)).normal();
      const std::string what = degree == 1 ? "slope in T of the eps exponent"
                                           : "leading coefficient in T of the eps exponent";
      if (degree > 1 || exp_gap.is_zero()) {
        decide(out, lead, what, domain, oracle);
        return out;
      }
      RateComparison by_lead;
      decide(by_lead, lead, what, domain, oracle);
      RateComparison by_exp;
      decide(by_exp, exp_gap, "rate of exp(g*T)", domain, oracle);
      if (by_lead.growth == by_exp.growth || by_exp.growth == Growth::kSame) return by_lead;
      by_lead.growth = Growth::kDepends;
      by_lead.note = "the eps exponent and the exp(g*T) factor pull apart: the answer depends on eps";
      return by_lead;
    }
  } else {
    out.note = "the eps exponent is not rational in T";
    return out;
  }
  if (decide(out, exp_gap, "rate of exp(g*T)", domain, oracle)) return out;
  if (decide(out, first.power_of_T() - second.power_of_T(), "power of T", domain, oracle)) return out;
  out.decided_by = "eps exponent gap, bounded in T";
  out.gap = gap;
  return out;
}

}  // namespace infoflow::symbolic
