#ifndef INFOFLOW_SYMBOLIC_CANONICAL_HPP_
#define INFOFLOW_SYMBOLIC_CANONICAL_HPP_

/// \file
/// A deterministic printer for expressions the tool computes (exponent differences,
/// thresholds, conditions). GiNaC's own term order follows hash values seeded by addresses and
/// changes between runs, so nothing the tool prints goes through it.
///
/// The form: the rational normal form num/den with both sides expanded; monomials ordered by
/// sign (positive first), then total degree, then registry order of their symbols; a monomial
/// denominator is distributed over the terms ("1 - T0*d/E"), any other is kept as a fraction.

#include <string>

#include <ginac/ginac.h>

namespace infoflow::symbolic {

enum class Format { kText, kLatex };

/// Prints `e` deterministically. Non-polynomial atoms (log(2), say) print through GiNaC, which
/// is deterministic for an atom without sums.
std::string canonical(const GiNaC::ex& e, Format format = Format::kText);

/// The relation `lhs op 0` rearranged with positive terms on each side: "T*d > T + E".
/// `op` is one of "<", "<=", ">", ">=", "==", "!=".
std::string canonical_relation(const GiNaC::ex& lhs_minus_rhs, const std::string& op,
                               Format format = Format::kText);

}  // namespace infoflow::symbolic

#endif  // INFOFLOW_SYMBOLIC_CANONICAL_HPP_
