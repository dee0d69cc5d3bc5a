#ifndef INFOFLOW_SYMBOLIC_RATE_HPP_
#define INFOFLOW_SYMBOLIC_RATE_HPP_

/// \file
/// The normal form of a bound's growth:
///   R = C * (1/eps)^a * log(1/eps)^b * T^p * exp(g*T)
/// with a, b, p, g rational functions of the parameters and C free of eps and of T-growth.
/// Built by our own visitor over the product, never through GiNaC's series() (wrong or throwing
/// on symbolic exponents: symbolic-anchors.md P1).

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

 private:
  GiNaC::ex coefficient_ = 1;
  GiNaC::ex eps_exponent_ = 0;
  GiNaC::ex log_exponent_ = 0;
  GiNaC::ex power_of_T_ = 0;
  GiNaC::ex exp_rate_in_T_ = 0;
};

std::string to_text(Landau landau);

}  // namespace infoflow::symbolic

#endif  // INFOFLOW_SYMBOLIC_RATE_HPP_
