#ifndef INFOFLOW_SYMBOLIC_RATE_HPP_
#define INFOFLOW_SYMBOLIC_RATE_HPP_

/// \file
/// The normal form of a bound's growth:
///   R = C * (1/eps)^a * log(1/eps)^b * T^p * exp(g*T)
/// with a, b, p, g rational functions of the parameters and C free of eps and of T-growth.
/// Built by our own visitor over the product, never through GiNaC's series() (wrong or throwing
/// on symbolic exponents: symbolic-anchors.md P1).

#include <optional>
#include <string>

#include <ginac/ginac.h>

#include "infoflow/symbolic/canonical.hpp"
#include "infoflow/symbolic/expression.hpp"

namespace infoflow::symbolic {

/// The Landau symbol a bound carries.
enum class Landau { kBigO, kOmega, kTheta };

class Rate {
 public:
  /// From a GiNaC product of powers; throws InputError (naming `where`) for anything else: a
  /// sum involving eps, log(eps) (negative for eps < 1: write log(1/eps)), eps inside exp.
  static Rate from_ex(const GiNaC::ex& e, const SourceLocation& where = {});
  /// Parses and normalises a written rate ("eps^(-(T-k-1)/(n+1))").
  static Rate parse(std::string_view text, const SourceLocation& where = {});

  /// Exponent a of 1/eps: the rate grows like eps^(-a) as eps -> 0+.
  [[nodiscard]] const GiNaC::ex& eps_exponent() const { return eps_exponent_; }
  /// Exponent b of log(1/eps).
  [[nodiscard]] const GiNaC::ex& log_exponent() const { return log_exponent_; }
  /// Exponent p of a polynomial factor T^p.
  [[nodiscard]] const GiNaC::ex& power_of_T() const { return power_of_T_; }
  /// Rate g of an exponential factor exp(g*T).
  [[nodiscard]] const GiNaC::ex& exp_rate_in_T() const { return exp_rate_in_T_; }
  /// The constant C (free of eps and T).
  [[nodiscard]] const GiNaC::ex& coefficient() const { return coefficient_; }

  /// The same rate with symbols replaced.
  [[nodiscard]] Rate substituted(const GiNaC::exmap& map) const;
  /// The rate as one GiNaC expression.
  [[nodiscard]] GiNaC::ex to_ex() const;

  /// Deterministic print of the normal form: "eps^(-(T - k - 1)/(n + 1))" or LaTeX.
  [[nodiscard]] std::string print(Format format = Format::kText) const;
  /// With a Landau symbol: "O(eps^(-1))", "\Omega\left(...\right)".
  [[nodiscard]] std::string print(Landau landau, Format format = Format::kText) const;
  /// The same with the exponent of 1/eps written as `name` ("O(eps^(-a)*log(1/eps)^2)"): the
  /// short form of a long bound, printed beside "a = ...".
  [[nodiscard]] std::string print_named(Landau landau, Format format, const std::string& name) const;

 private:
  [[nodiscard]] std::string print_parts(Format format, const std::string& eps_exponent_name) const;

  GiNaC::ex coefficient_ = 1;
  GiNaC::ex eps_exponent_ = 0;
  GiNaC::ex log_exponent_ = 0;
  GiNaC::ex power_of_T_ = 0;
  GiNaC::ex exp_rate_in_T_ = 0;
};

std::string to_text(Landau landau);

/// A rate as the tool prints bounds: optionally "M =" (or "M ="), then either a bare rate or one
/// wrapped in O(...), Omega(...) or Theta(...). Spaces around the parts are allowed.
struct WrittenBound {
  std::optional<Landau> landau;  ///< none for a bare rate
  Rate rate;
};
/// Parses a WrittenBound; errors name the column in `text` (counted from `where.column`).
WrittenBound parse_bound(std::string_view text, const SourceLocation& where = {});

}  // namespace infoflow::symbolic

#endif  // INFOFLOW_SYMBOLIC_RATE_HPP_
