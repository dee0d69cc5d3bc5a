#ifndef INFOFLOW_TESTS_COMMON_SYMBOLS_HPP_
#define INFOFLOW_TESTS_COMMON_SYMBOLS_HPP_

// Short access to registry symbols and formulas in tests.

#include <string_view>

#include <ginac/ginac.h>

#include "infoflow/symbolic/expression.hpp"
#include "infoflow/symbolic/symbols.hpp"

namespace infoflow::testing {

inline GiNaC::ex sym(std::string_view name) {
  return symbolic::SymbolRegistry::standard().at(name).symbol;
}

/// The GiNaC value of a formula.
inline GiNaC::ex ex_of(std::string_view text) {
  return symbolic::to_ex(symbolic::parse_expression(text));
}

/// True when two expressions are equal as rational functions.
inline bool same(const GiNaC::ex& a, const GiNaC::ex& b) { return (a - b).normal().is_zero(); }

}  // namespace infoflow::testing

#endif  // INFOFLOW_TESTS_COMMON_SYMBOLS_HPP_
