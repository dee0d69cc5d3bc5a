#ifndef INFOFLOW_SESSION_COMPARE_HPP_
#define INFOFLOW_SESSION_COMPARE_HPP_

/// \file
/// compare: two rates (bare, or in O(...), Omega(...), Theta(...) as the tool prints them) as
/// eps -> 0 and as T -> infinity, under assumptions on the parameters.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "infoflow/symbolic/compare.hpp"

namespace infoflow::session {

struct Comparison {
  symbolic::WrittenBound first;
  symbolic::WrittenBound second;
  symbolic::RateComparison eps_to_zero;
  symbolic::RateComparison T_to_infinity;
};

/// `journal`: where the oracle's questions are recorded for certificates (nullptr: nowhere).
/// Throws InputError for a rate or relation that does not parse, or contradicting assumptions.
Comparison compare(std::string_view first, std::string_view second,
                   const std::vector<std::string>& assumptions, symbolic::SignOracle& oracle,
                   symbolic::Journal* journal = nullptr);

/// The text of `infoflow compare` (certificates apart).
std::string comparison_text(const Comparison& c);
/// The JSON of `compare --format json`: both rates as written (and in LaTeX), and for each
/// regime the growth, what decided it, the gap, the summary and the witness points.
nlohmann::json comparison_json(const Comparison& c);

}  // namespace infoflow::session

#endif  // INFOFLOW_SESSION_COMPARE_HPP_
