#include "infoflow/symbolic/compare.hpp"

#include "infoflow/symbolic/canonical.hpp"
#include "infoflow/symbolic/symbols.hpp"

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

/// `gap > 0` (strict) or `gap >= 0` over `domain`, stated as simply as the form allows.
Condition sign_condition(const ex& gap, const Domain& domain, SignOracle& oracle, bool strict) {
  const std::string gt = strict ? ">" : ">=";
  const std::string lt = strict ? "<" : "<=";
  const ex normal = gap.normal();
  ex num = normal.numer().expand();
  const ex den = normal.denom().expand();
  Condition out;
  const Sign den_sign = oracle.sign(den, domain).sign;
  if (den_sign != Sign::kPositive && den_sign != Sign::kNegative) {
    out.text = canonical(normal) + " " + gt + " 0";
    out.latex = canonical(normal, Format::kLatex) + (strict ? " > 0" : " \\ge 0");
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
      const std::string op = " " + (out.above ? gt : lt) + " ";
      out.text = "T" + op + canonical(threshold);
      out.latex = "T" + (strict ? op : out.above ? " \\ge " : " \\le ") +
                  canonical(threshold, Format::kLatex);
      return out;
    }
  }
  out.text = canonical_relation(num, gt);
  out.latex = canonical_relation(num, gt, Format::kLatex);
  return out;
}

/// Whether a gap of this sign is zero somewhere (or may be: the solver did not say it is not).
bool may_be_zero(Sign sign) {
  return sign == Sign::kNonNegative || sign == Sign::kNonPositive || sign == Sign::kIndefinite;
}

Sign sign_of(bool positive, bool negative, bool zero) {
  if (positive && negative) return zero ? Sign::kIndefinite : Sign::kNonZero;
  if (positive) return zero ? Sign::kNonNegative : Sign::kPositive;
  if (negative) return zero ? Sign::kNonPositive : Sign::kNegative;
  return zero ? Sign::kZero : Sign::kEmptyDomain;
}

/// The eps-exponent comparison `out` (gap zero somewhere) refined at its ties, where the
/// log-power gap decides: the rate grows faster wherever the eps gap is positive, or it is zero
/// and the log gap positive. The witnesses and sign become those of the combined order.
void break_ties(RateComparison& out, const ex& log_gap, const Domain& domain, SignOracle& oracle) {
  const SignDecision eps = out.gap_sign;
  Domain tie = domain;
  tie.require(out.gap, RelOp::kEqual);
  const SignDecision at_tie = oracle.sign(log_gap, tie);
  // What follows (a point of the ties, the condition's parts) is not an exponent gap.
  if (Journal* journal = oracle.journal()) journal->context = {journal->context.topic, {}, {}, {}, {}};
  if (at_tie.sign == Sign::kUnknown) {
    out.note = "where the exponents of 1/eps are equal, the sign of the log(1/eps) power gap " +
               canonical(log_gap) + " could not be decided";
    if (eps.sign != Sign::kIndefinite) out.growth = Growth::kUnknown;
    return;
  }
  const auto has = [](const SignDecision& d, Sign a, Sign b, Sign c, Sign e) {
    return d.sign == a || d.sign == b || d.sign == c || d.sign == e;
  };
  const bool positive = has(eps, Sign::kPositive, Sign::kNonNegative, Sign::kNonZero, Sign::kIndefinite) ||
                        has(at_tie, Sign::kPositive, Sign::kNonNegative, Sign::kNonZero, Sign::kIndefinite);
  const bool negative = has(eps, Sign::kNegative, Sign::kNonPositive, Sign::kNonZero, Sign::kIndefinite) ||
                        has(at_tie, Sign::kNegative, Sign::kNonPositive, Sign::kNonZero, Sign::kIndefinite);
  const bool zero = has(at_tie, Sign::kZero, Sign::kNonNegative, Sign::kNonPositive, Sign::kIndefinite);
  out.gap_sign.sign = sign_of(positive, negative, zero);
  // A structural sign has no point: any point of the ties is one.
  std::optional<Witness> tie_point = at_tie.positive_at ? at_tie.positive_at
                                     : at_tie.negative_at ? at_tie.negative_at
                                                          : at_tie.zero_at;
  if (!tie_point && at_tie.method == "structural") tie_point = oracle.satisfiable(tie).witness;
  const auto at_ties = [&](const std::optional<Witness>& w, Sign sign) {
    return w ? w : at_tie.sign == sign ? tie_point : std::nullopt;
  };
  out.gap_sign.positive_at =
      eps.positive_at ? eps.positive_at : at_ties(at_tie.positive_at, Sign::kPositive);
  out.gap_sign.negative_at =
      eps.negative_at ? eps.negative_at : at_ties(at_tie.negative_at, Sign::kNegative);
  out.gap_sign.zero_at = at_ties(at_tie.zero_at, Sign::kZero);
  out.growth = growth_of(out.gap_sign.sign);
  out.log_decides_ties = true;
  out.note = "where the exponents of 1/eps are equal (" + canonical_relation(out.gap, "=") +
             "), the power of log(1/eps) decides";
  if (out.growth != Growth::kDepends) return;
  const bool tie_positive =
      has(at_tie, Sign::kPositive, Sign::kNonNegative, Sign::kNonZero, Sign::kIndefinite);
  if (!tie_positive) return;  // faster only where the eps gap is positive: the condition stands
  if (at_tie.sign == Sign::kPositive) {
    // Faster at every tie: where the eps gap is >= 0.
    out.faster_when = sign_condition(out.gap, domain, oracle, false);
    return;
  }
  const std::string both = canonical_relation(out.gap, "=") + " and " + canonical_relation(log_gap, ">");
  const std::string both_latex = canonical_relation(out.gap, "=", Format::kLatex) +
                                 ", " + canonical_relation(log_gap, ">", Format::kLatex);
  if (!has(eps, Sign::kPositive, Sign::kNonNegative, Sign::kNonZero, Sign::kIndefinite)) {
    out.faster_when = {both, both_latex, std::nullopt, true};
    return;
  }
  out.faster_when.text += ", or " + both;
  out.faster_when.latex += ", \\text{ or } " + both_latex;
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
  return sign_condition(gap, domain, oracle, true);
}

Condition nonnegative_condition(const ex& gap, const Domain& domain, SignOracle& oracle) {
  return sign_condition(gap, domain, oracle, false);
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
  const ex log_gap = (first.log_exponent() - second.log_exponent()).normal();
  const bool settled =
      decide(out, first.eps_exponent() - second.eps_exponent(), "eps exponent", domain, oracle);
  if (settled && (log_gap.is_zero() || !may_be_zero(out.gap_sign.sign))) {
    if (journal != nullptr) journal->context.topic = topic;
    return out;
  }
  if (journal != nullptr) {
    journal->context = {topic, first.log_exponent(), second.log_exponent(), "log",
                        first.eps_exponent()};
  }
  if (!settled) {
    decide(out, log_gap, "log exponent", domain, oracle);
  } else {
    // Where the exponents of 1/eps are equal, the powers of log(1/eps) decide.
    break_ties(out, log_gap, domain, oracle);
  }
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
        Journal* journal = oracle.journal();
        if (journal != nullptr && degree == 1 && den.degree(T) == 0) {
          // A gap linear in T, lead*T + offset: a certificate can end in the growth of
          // eps^(-gap) with T (Bridge.v, T_growth).
          journal->context = {journal->context.topic, lead, ex(0), "T", std::nullopt,
                              (gap - lead * T).normal()};
        }
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
