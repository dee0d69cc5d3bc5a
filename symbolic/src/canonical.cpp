#include "infoflow/symbolic/canonical.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

#include "infoflow/symbolic/symbols.hpp"

namespace infoflow::symbolic {
namespace {

using GiNaC::ex;
using GiNaC::numeric;

/// A factor of a monomial: a registered symbol (by registry order) or an opaque atom.
struct Factor {
  std::size_t order = 0;  // registry order; atoms sort after all symbols, by their text
  std::string text;
  std::string latex;
  bool operator<(const Factor& other) const {
    return order != other.order ? order < other.order : text < other.text;
  }
};

struct Monomial {
  numeric coeff = 1;
  std::map<Factor, numeric> powers;  // exponent per factor, nonzero

  [[nodiscard]] numeric degree() const {
    numeric total = 0;
    for (const auto& [factor, power] : powers) total += power;
    return total;
  }
};

std::string ginac_text(const ex& e, Format format) {
  std::ostringstream out;
  if (format == Format::kLatex) {
    out << GiNaC::latex << e;
  } else {
    out << e;
  }
  return out.str();
}

Factor factor_of(const ex& e) {
  const SymbolRegistry& registry = SymbolRegistry::standard();
  if (GiNaC::is_a<GiNaC::symbol>(e) && registry.contains(e)) {
    const SymbolInfo& info = registry.info(e);
    return Factor{info.order, info.name, info.latex};
  }
  return Factor{1u << 30, ginac_text(e, Format::kText), ginac_text(e, Format::kLatex)};
}

void multiply_into(Monomial& m, const ex& factor) {
  if (GiNaC::is_a<GiNaC::numeric>(factor)) {
    m.coeff *= GiNaC::ex_to<numeric>(factor);
  } else if (GiNaC::is_a<GiNaC::power>(factor) && GiNaC::is_a<GiNaC::numeric>(factor.op(1)) &&
             GiNaC::ex_to<numeric>(factor.op(1)).is_rational()) {
    m.powers[factor_of(factor.op(0))] += GiNaC::ex_to<numeric>(factor.op(1));
  } else {
    m.powers[factor_of(factor)] += 1;
  }
}

/// Lexicographic in the factors alone: the earlier registry symbol, then the higher power.
bool lex_before(const Monomial& a, const Monomial& b) {
  auto ia = a.powers.begin();
  auto ib = b.powers.begin();
  for (; ia != a.powers.end() && ib != b.powers.end(); ++ia, ++ib) {
    if (ia->first < ib->first) return true;
    if (ib->first < ia->first) return false;
    if (ia->second != ib->second) return ia->second > ib->second;
  }
  return ia != a.powers.end() && ib == b.powers.end();
}

/// Printing order: positive terms first, then higher total degree, then the monomial with the
/// higher power of the earliest registry symbol.
bool monomial_before(const Monomial& a, const Monomial& b) {
  const bool a_pos = a.coeff.is_positive();
  const bool b_pos = b.coeff.is_positive();
  if (a_pos != b_pos) return a_pos;
  if (a.degree() != b.degree()) return a.degree() > b.degree();
  return lex_before(a, b);
}

/// Terms of an expanded expression.
std::vector<Monomial> monomials(const ex& expanded) {
  std::vector<Monomial> out;
  const auto add_term = [&](const ex& term) {
    Monomial m;
    if (GiNaC::is_a<GiNaC::mul>(term)) {
      for (std::size_t i = 0; i < term.nops(); ++i) multiply_into(m, term.op(i));
    } else {
      multiply_into(m, term);
    }
    std::erase_if(m.powers, [](const auto& entry) { return entry.second.is_zero(); });
    if (!m.coeff.is_zero()) out.push_back(std::move(m));
  };
  if (GiNaC::is_a<GiNaC::add>(expanded)) {
    for (std::size_t i = 0; i < expanded.nops(); ++i) add_term(expanded.op(i));
  } else {
    add_term(expanded);
  }
  std::stable_sort(out.begin(), out.end(), monomial_before);
  return out;
}

std::string number_text(const numeric& q) {
  std::ostringstream out;
  out << q;
  return out.str();
}

/// The product of the factors with exponent of one sign (`positive`), without coefficient.
std::string factors_text(const Monomial& m, bool positive, Format format) {
  std::string out;
  for (const auto& [factor, power] : m.powers) {
    if (power.is_positive() != positive) continue;
    const numeric p = positive ? power : -power;
    std::string piece = format == Format::kLatex ? factor.latex : factor.text;
    if (p != 1) {
      const std::string exponent = number_text(p);
      piece += format == Format::kLatex ? "^{" + exponent + "}"
                                        : "^" + (p.is_integer() ? exponent : "(" + exponent + ")");
    }
    if (!out.empty()) out += format == Format::kLatex ? " " : "*";
    out += piece;
  }
  return out;
}

/// A monomial without its sign.
std::string magnitude_text(const Monomial& m, Format format) {
  const numeric c = GiNaC::abs(m.coeff);
  std::string num = factors_text(m, true, format);
  std::string den = factors_text(m, false, format);
  const numeric cn = c.numer();
  const numeric cd = c.denom();
  if (cn != 1 || num.empty()) {
    const std::string digits = number_text(cn);
    num = num.empty() ? digits : digits + (format == Format::kLatex ? " " : "*") + num;
  }
  if (cd != 1) {
    const std::string digits = number_text(cd);
    den = den.empty() ? digits : digits + (format == Format::kLatex ? " " : "*") + den;
  }
  if (den.empty()) return num;
  if (format == Format::kLatex) return "\\frac{" + num + "}{" + den + "}";
  const bool den_compound = den.find('*') != std::string::npos;
  return num + "/" + (den_compound ? "(" + den + ")" : den);
}

std::string sum_text(const std::vector<Monomial>& terms, Format format) {
  if (terms.empty()) return "0";
  std::string out;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const bool negative = terms[i].coeff.is_negative();
    if (i == 0) {
      out += negative ? "-" : "";
    } else {
      out += negative ? " - " : " + ";
    }
    out += magnitude_text(terms[i], format);
  }
  return out;
}

std::vector<Monomial> negated(std::vector<Monomial> terms) {
  for (Monomial& m : terms) m.coeff = -m.coeff;
  std::stable_sort(terms.begin(), terms.end(), monomial_before);
  return terms;
}

bool all_negative(const std::vector<Monomial>& terms) {
  return !terms.empty() && std::all_of(terms.begin(), terms.end(), [](const Monomial& m) {
    return m.coeff.is_negative();
  });
}

}  // namespace

std::string canonical(const ex& e, Format format) {
  const ex normal = e.normal();
  const ex num = normal.numer().expand();
  const ex den = normal.denom().expand();
  std::vector<Monomial> num_terms = monomials(num);
  std::vector<Monomial> den_terms = monomials(den);
  // A monomial denominator is distributed where it cancels in a term, "1 - T0*d/E"; a symbolic
  // one that cancels in none stays one fraction, "(gamma + c0 + 1)/c".
  const auto cancels_somewhere = [&](const Monomial& d) {
    return d.powers.empty() || num_terms.size() < 2 ||
           std::any_of(num_terms.begin(), num_terms.end(), [&](const Monomial& m) {
             return std::any_of(d.powers.begin(), d.powers.end(), [&](const auto& factor) {
               const auto it = m.powers.find(factor.first);
               return it != m.powers.end() && it->second.is_positive();
             });
           });
  };
  if (den_terms.size() == 1 && cancels_somewhere(den_terms.front())) {
    const Monomial& d = den_terms.front();
    for (Monomial& m : num_terms) {
      m.coeff /= d.coeff;
      for (const auto& [factor, power] : d.powers) m.powers[factor] -= power;
      std::erase_if(m.powers, [](const auto& entry) { return entry.second.is_zero(); });
    }
    std::vector<Monomial> sorted = num_terms;
    std::stable_sort(sorted.begin(), sorted.end(), monomial_before);  // degrees changed
    if (all_negative(sorted) && sorted.size() > 1) {
      const std::string inner = sum_text(negated(sorted), format);
      return format == Format::kLatex ? "-\\left(" + inner + "\\right)" : "-(" + inner + ")";
    }
    return sum_text(sorted, format);
  }
  // A fraction reads best with its leading term (the one with the earliest registry symbol,
  // T before k) positive: "-(T - k - 1)/(n + 1)" rather than "(k + 1 - T)/(n + 1)".
  bool flip = false;
  if (!num_terms.empty()) {
    const auto leading = std::min_element(num_terms.begin(), num_terms.end(), lex_before);
    flip = leading->coeff.is_negative();
  }
  const std::string top = sum_text(flip ? negated(num_terms) : num_terms, format);
  const std::string bottom = sum_text(den_terms, format);
  const std::string sign = flip ? "-" : "";
  if (format == Format::kLatex) return sign + "\\frac{" + top + "}{" + bottom + "}";
  const bool top_compound = num_terms.size() > 1;
  const bool bottom_compound = den_terms.size() > 1 || bottom.find('*') != std::string::npos;
  return sign + (top_compound ? "(" + top + ")" : top) + "/" +
         (bottom_compound ? "(" + bottom + ")" : bottom);
}

std::string canonical_relation(const ex& lhs_minus_rhs, const std::string& op, Format format) {
  const ex normal = lhs_minus_rhs.normal();
  // Only the numerator's sign matters when the denominator is structurally positive.
  if (!normal.denom().info(GiNaC::info_flags::positive)) {
    return canonical(normal, format) + " " + op + " 0";
  }
  const std::vector<Monomial> terms = monomials(normal.numer().expand());
  std::vector<Monomial> left;
  std::vector<Monomial> right;
  for (const Monomial& m : terms) {
    if (m.coeff.is_positive()) {
      left.push_back(m);
    } else {
      Monomial flipped = m;
      flipped.coeff = -flipped.coeff;
      right.push_back(flipped);
    }
  }
  std::string op_out = op;
  if (format == Format::kLatex) {
    if (op == "<=") op_out = "\\le";
    if (op == ">=") op_out = "\\ge";
    if (op == "!=") op_out = "\\ne";
    if (op == "==") op_out = "=";
  }
  return sum_text(left, format) + " " + op_out + " " + sum_text(right, format);
}

}  // namespace infoflow::symbolic
