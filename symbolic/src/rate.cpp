#include "infoflow/symbolic/rate.hpp"

#include "infoflow/symbolic/symbols.hpp"

namespace infoflow::symbolic {
namespace {

using GiNaC::ex;

/// Folds one factor of the product into the normal form's parts.
class Collector {
 public:
  explicit Collector(SourceLocation where) : where_(std::move(where)) {
    const SymbolRegistry& registry = SymbolRegistry::standard();
    eps_ = registry.eps();
    T_ = registry.seq_len();
  }

  void factor(const ex& f) {
    if (GiNaC::is_a<GiNaC::mul>(f)) {
      for (std::size_t i = 0; i < f.nops(); ++i) factor(f.op(i));
      return;
    }
    if (!f.has(eps_) && !f.has(T_)) {
      coefficient *= f;
      return;
    }
    if (f.is_equal(eps_)) {
      eps_exponent -= 1;
      return;
    }
    if (f.is_equal(T_)) {
      power_of_T += 1;
      return;
    }
    if (GiNaC::is_a<GiNaC::power>(f)) {
      power(f.op(0), f.op(1));
      return;
    }
    if (GiNaC::is_exactly_a<GiNaC::function>(f) && is_log(f)) {
      log_factor(f.op(0), 1);
      return;
    }
    if (GiNaC::is_exactly_a<GiNaC::function>(f) && is_exp(f)) {
      exponential(f.op(0));
      return;
    }
    if (!f.has(eps_) && f.is_polynomial(T_)) {
      // A polynomial in T grows like its leading term.
      const ex expanded = f.expand();
      power_of_T += expanded.degree(T_);
      coefficient *= expanded.lcoeff(T_);
      return;
    }
    fail("the factor " + canonical(f) + " is not a power of eps, log(1/eps), T or exp(g*T)");
  }

  ex coefficient = 1;
  ex eps_exponent = 0;
  ex log_exponent = 0;
  ex power_of_T = 0;
  ex exp_rate_in_T = 0;

 private:
  [[noreturn]] void fail(const std::string& message) const {
    throw InputError(where_, "rate: " + message +
                                 "; a rate is C * eps^(-a) * log(1/eps)^b * T^p * exp(g*T)");
  }

  static bool is_log(const ex& f) {
    return GiNaC::ex_to<GiNaC::function>(f).get_name() == "log";
  }
  static bool is_exp(const ex& f) {
    return GiNaC::ex_to<GiNaC::function>(f).get_name() == "exp";
  }

  void power(const ex& base, const ex& exponent) {
    if (exponent.has(eps_)) fail("eps may not appear in an exponent");
    if (base.is_equal(eps_)) {
      eps_exponent -= exponent;
      return;
    }
    if (GiNaC::is_exactly_a<GiNaC::function>(base) && is_log(base)) {
      log_factor(base.op(0), exponent);
      return;
    }
    if (base.is_equal(T_)) {
      if (exponent.has(T_)) fail("T^(...) with T in the exponent grows faster than exp(g*T)");
      power_of_T += exponent;
      return;
    }
    if (!base.has(eps_) && !base.has(T_)) {
      // b^(x) with x linear in T: exp(log(b) * x).
      exponential(GiNaC::log(base) * exponent);
      return;
    }
    if (!base.has(eps_) && base.is_polynomial(T_) && !exponent.has(T_)) {
      const ex expanded = base.expand();
      power_of_T += expanded.degree(T_) * exponent;
      coefficient *= GiNaC::pow(expanded.lcoeff(T_), exponent);
      return;
    }
    fail("the factor (" + canonical(base) + ")^(" + canonical(exponent) + ") is not a rate factor");
  }

  void log_factor(const ex& argument, const ex& exponent) {
    // log(eps^m) = -m * log(1/eps): positive for eps < 1 only when m < 0.
    ex m;
    if (argument.is_equal(eps_)) {
      m = 1;
    } else if (GiNaC::is_a<GiNaC::power>(argument) && argument.op(0).is_equal(eps_)) {
      m = argument.op(1);
    } else {
      fail("log(" + canonical(argument) + ") is not log(1/eps)");
    }
    const ex scale = -m;
    if (!scale.info(GiNaC::info_flags::positive)) {
      fail("log(eps) is negative for 0 < eps < 1; write log(1/eps)");
    }
    log_exponent += exponent;
    coefficient *= GiNaC::pow(scale, exponent);
  }

  void exponential(const ex& argument) {
    if (argument.has(eps_)) fail("eps inside exp() is not a polynomial rate");
    const ex expanded = argument.expand();
    if (!expanded.is_polynomial(T_) || expanded.degree(T_) > 1) {
      fail("exp(" + canonical(argument) + ") is not exp(g*T) with g free of T");
    }
    const ex g = expanded.coeff(T_, 1);
    exp_rate_in_T += g;
    coefficient *= GiNaC::exp(expanded.coeff(T_, 0));
  }

  SourceLocation where_;
  GiNaC::possymbol eps_;
  GiNaC::possymbol T_;
};

std::string exponent_text(const ex& e, Format format) {
  const std::string body = canonical(e, format);
  if (format == Format::kLatex) return "{" + body + "}";
  const bool atomic = body.find_first_of(" +-*/") == std::string::npos;
  return atomic ? body : "(" + body + ")";
}

}  // namespace

Rate Rate::from_ex(const ex& e, const SourceLocation& where) {
  Collector collector(where);
  collector.factor(e);
  Rate rate;
  rate.coefficient_ = collector.coefficient;
  rate.eps_exponent_ = collector.eps_exponent.normal();
  rate.log_exponent_ = collector.log_exponent.normal();
  rate.power_of_T_ = collector.power_of_T.normal();
  rate.exp_rate_in_T_ = collector.exp_rate_in_T.normal();
  if (rate.eps_exponent_.has(SymbolRegistry::standard().eps())) {
    throw InputError(where, "rate: eps appears in its own exponent");
  }
  return rate;
}

Rate Rate::parse(std::string_view text, const SourceLocation& where) {
  return from_ex(symbolic::to_ex(parse_expression(text, where)), where);
}

Rate Rate::substituted(const GiNaC::exmap& map) const {
  Rate out = *this;
  out.coefficient_ = coefficient_.subs(map);
  out.eps_exponent_ = eps_exponent_.subs(map).normal();
  out.log_exponent_ = log_exponent_.subs(map).normal();
  out.power_of_T_ = power_of_T_.subs(map).normal();
  out.exp_rate_in_T_ = exp_rate_in_T_.subs(map).normal();
  return out;
}

ex Rate::to_ex() const {
  const SymbolRegistry& registry = SymbolRegistry::standard();
  const ex eps = registry.eps();
  const ex T = registry.seq_len();
  return coefficient_ * GiNaC::pow(eps, -eps_exponent_) * GiNaC::pow(GiNaC::log(1 / eps), log_exponent_) *
         GiNaC::pow(T, power_of_T_) * GiNaC::exp(exp_rate_in_T_ * T);
}

std::string Rate::print(Format format) const { return print_parts(format, {}); }

std::string Rate::print_named(Landau landau, Format format, const std::string& name) const {
  const std::string body = print_parts(format, name);
  if (format == Format::kLatex) {
    const char* symbol = landau == Landau::kBigO ? "O" : landau == Landau::kOmega ? "\\Omega" : "\\Theta";
    return std::string(symbol) + "\\left(" + body + "\\right)";
  }
  return to_text(landau) + "(" + body + ")";
}

std::string Rate::print_parts(Format format, const std::string& eps_exponent_name) const {
  const bool latex = format == Format::kLatex;
  std::vector<std::string> parts;
  if (!coefficient_.is_equal(1)) parts.push_back(canonical(coefficient_, format));
  if (!power_of_T_.is_zero()) {
    parts.push_back(power_of_T_.is_equal(1) ? "T" : "T^" + exponent_text(power_of_T_, format));
  }
  if (!exp_rate_in_T_.is_zero()) {
    const std::string g = canonical(exp_rate_in_T_ * SymbolRegistry::standard().seq_len(), format);
    parts.push_back(latex ? "e^{" + g + "}" : "exp(" + g + ")");
  }
  const ex power = -eps_exponent_;
  if (!eps_exponent_name.empty()) {
    const std::string eps = latex ? "\\varepsilon" : "eps";
    parts.push_back(latex ? eps + "^{-" + eps_exponent_name + "}"
                          : eps + "^(-" + eps_exponent_name + ")");
  } else if (!power.is_zero() || parts.empty()) {
    const std::string eps = latex ? "\\varepsilon" : "eps";
    parts.push_back(power.is_equal(1) ? eps : eps + "^" + exponent_text(power, format));
  }
  if (!log_exponent_.is_zero()) {
    const std::string arg = latex ? "\\log\\left(1/\\varepsilon\\right)" : "log(1/eps)";
    parts.push_back(log_exponent_.is_equal(1)
                        ? arg
                        : (latex ? "\\log^" + exponent_text(log_exponent_, format) +
                                       "\\left(1/\\varepsilon\\right)"
                                 : arg + "^" + exponent_text(log_exponent_, format)));
  }
  std::string out;
  for (const std::string& part : parts) {
    if (!out.empty()) out += latex ? " " : "*";
    out += part;
  }
  return out;
}

std::string Rate::print(Landau landau, Format format) const {
  const std::string body = print(format);
  if (format == Format::kLatex) {
    const char* symbol = landau == Landau::kBigO ? "O" : landau == Landau::kOmega ? "\\Omega" : "\\Theta";
    return std::string(symbol) + "\\left(" + body + "\\right)";
  }
  return to_text(landau) + "(" + body + ")";
}

std::string to_text(Landau landau) {
  switch (landau) {
    case Landau::kBigO: return "O";
    case Landau::kOmega: return "Omega";
    case Landau::kTheta: return "Theta";
  }
  return {};
}

WrittenBound parse_bound(std::string_view text, const SourceLocation& where) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t'; };
  std::size_t begin = 0;
  std::size_t end = text.size();
  while (begin < end && is_space(text[begin])) ++begin;
  while (end > begin && is_space(text[end - 1])) --end;
  // "M = ...": the quantity bounded, as `show` and `derive` print it.
  if (end - begin >= 2 && text[begin] == 'M') {
    std::size_t i = begin + 1;
    while (i < end && is_space(text[i])) ++i;
    if (i < end && text[i] == '=') {
      begin = i + 1;
      while (begin < end && is_space(text[begin])) ++begin;
    }
  }
  WrittenBound out;
  static constexpr std::pair<std::string_view, Landau> kSymbols[] = {
      {"Omega", Landau::kOmega}, {"Theta", Landau::kTheta}, {"O", Landau::kBigO}};
  for (const auto& [name, landau] : kSymbols) {
    const std::string_view rest = text.substr(begin, end - begin);
    if (!rest.starts_with(name)) continue;
    std::size_t open = begin + name.size();
    while (open < end && is_space(text[open])) ++open;
    if (open >= end || text[open] != '(' || text[end - 1] != ')') break;
    // The parenthesis after the symbol must close at the end: "O(eps)*O(T)" is no bound.
    int depth = 0;
    std::size_t close = open;
    for (; close < end; ++close) {
      if (text[close] == '(') ++depth;
      if (text[close] == ')' && --depth == 0) break;
    }
    if (close + 1 != end) break;
    out.landau = landau;
    begin = open + 1;
    end = close;
    break;
  }
  SourceLocation at = where;
  at.line = at.line == 0 ? 1 : at.line;
  at.column = (at.column == 0 ? 1 : at.column) + begin;
  out.rate = Rate::parse(text.substr(begin, end - begin), at);
  return out;
}

}  // namespace infoflow::symbolic
