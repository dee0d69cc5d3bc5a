#ifndef INFOFLOW_CERTIFY_PRINTERS_HPP_
#define INFOFLOW_CERTIFY_PRINTERS_HPP_

// Internal: GiNaC expressions as Coq (R) and SMT-LIB terms.

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <ginac/ginac.h>

#include "infoflow/symbolic/sign.hpp"
#include "infoflow/symbolic/symbols.hpp"

namespace infoflow::certify::detail {

/// Thrown for what has no polynomial-or-rational form (a symbolic exponent, a function).
struct NotPrintable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// How each symbol is written (Coq: "T" or "(IZR T)"; SMT: "(to_real T)").
using Names = std::map<const symbolic::SymbolInfo*, std::string>;

struct CoqText {
  std::string text;
  bool divides_by_symbol = false;  ///< a division by a non-constant occurs
};

CoqText coq_term(const GiNaC::ex& e, const Names& names);
std::string coq_number(const GiNaC::numeric& q);
std::string coq_relation(symbolic::RelOp op);  ///< ">", ">=", "<", "<=", "=", "<>"

std::string smt_term(const GiNaC::ex& e, const Names& names);
std::string smt_number(const GiNaC::numeric& q);

/// An identifier both Coq and SMT-LIB accept: "c@thm1" -> "c_thm1".
std::string identifier(const std::string& name);

/// The symbols of the expressions, in registry order.
std::vector<const symbolic::SymbolInfo*> symbols_in(const std::vector<GiNaC::ex>& parts);

/// The registry's implicit facts among these symbols (k <= T, s < D, ...; a renamed copy s@id
/// counts as s), as constraints `smaller - larger - offset <= 0`: the sign oracle assumed them,
/// so a certificate's region and a cross-check's question state them too.
std::vector<symbolic::Constraint> implicit_constraints(
    const std::vector<const symbolic::SymbolInfo*>& symbols);

}  // namespace infoflow::certify::detail

#endif  // INFOFLOW_CERTIFY_PRINTERS_HPP_
