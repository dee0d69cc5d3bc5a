#ifndef INFOFLOW_SYMBOLIC_COMPARE_HPP_
#define INFOFLOW_SYMBOLIC_COMPARE_HPP_

/// \file
/// Asymptotic comparison of two rates over a parameter domain, in the two regimes of the
/// theory: eps -> 0+ with the parameters fixed (lexicographic in the exponents of 1/eps, then of
/// log(1/eps)), and T -> infinity with eps and the other parameters fixed (by the growth in T of
/// the eps exponent, then of exp(g*T), then of T^p).

#include <optional>
#include <ostream>
#include <string>

#include "infoflow/symbolic/rate.hpp"
#include "infoflow/symbolic/sign.hpp"

namespace infoflow::symbolic {

/// How the first rate grows relative to the second.
enum class Growth { kSlower, kSame, kFaster, kDepends, kUnknown };

std::string to_text(Growth growth);
inline std::ostream& operator<<(std::ostream& out, Growth growth) { return out << to_text(growth); }

/// Where a difference is positive, stated as a condition, solved for T when it is linear in T.
struct Condition {
  std::string text;   ///< "T > 4*n*s + 8*s + 4*D + 4*gamma*n*s + ..." or "T*d > T + E"
  std::string latex;
  std::optional<GiNaC::ex> threshold_T;  ///< T* when the condition reads T > T* (or T < T*)
  bool above = true;                     ///< T > T* (true) or T < T* (false)
};

/// `gap > 0` over `domain`, stated as simply as the form allows.
Condition positive_condition(const GiNaC::ex& gap, const Domain& domain, SignOracle& oracle);
/// `gap >= 0` over `domain`, stated likewise.
Condition nonnegative_condition(const GiNaC::ex& gap, const Domain& domain, SignOracle& oracle);

struct RateComparison {
  Growth growth = Growth::kUnknown;
  std::string decided_by;    ///< which component decided: "eps exponent", "log exponent", ...
  GiNaC::ex gap = 0;         ///< that component of the first minus the second
  SignDecision gap_sign;
  Condition faster_when;     ///< filled when growth is kDepends: where the first grows faster
  std::string note;          ///< anything the reader must know (an empty domain, a solver timeout)
  /// The eps exponents are equal somewhere but not everywhere, and there the powers of
  /// log(1/eps) decided (gap_sign and faster_when are those of the combined order).
  bool log_decides_ties = false;

  /// One line: "faster (eps exponent gap 1/(n + 1) > 0)".
  [[nodiscard]] std::string summary() const;
};

/// First against second as eps -> 0+, for every point of the domain.
RateComparison compare_as_eps_to_zero(const Rate& first, const Rate& second, const Domain& domain,
                                      SignOracle& oracle);

/// First against second as T -> infinity, eps and the other parameters fixed.
RateComparison compare_as_T_to_infinity(const Rate& first, const Rate& second,
                                        const Domain& domain, SignOracle& oracle);

}  // namespace infoflow::symbolic

#endif  // INFOFLOW_SYMBOLIC_COMPARE_HPP_
