#ifndef INFOFLOW_TARGETS_ANALYSIS_HPP_
#define INFOFLOW_TARGETS_ANALYSIS_HPP_

/// \file
/// The comparison tree of a formula (THEORY.md section 4).
///
/// A comparison is a reduction over tokens together with the token reductions nested directly
/// in it (max(s) min(t) f(s, t) is one comparison over (s, t)). Its order r is the number of
/// token indices it compares jointly. A body that splits into a sum of terms each depending on
/// at most one of them (max(s, t) f(x[s]) + g(x[t])) is r comparisons of order 1 instead.
/// Reductions over a parameter range (sum(i = 1..D) ...) repeat the comparisons inside: the
/// multiplicity. Then:
///   comparison order      beta'  = the largest order,
///   comparison dimension  beta_1 = the number of distinct comparisons (with multiplicity),
///   comparison number            = sum over comparisons of multiplicity * T^order.

#include <string>
#include <vector>

#include "infoflow/targets/formula.hpp"

namespace infoflow::targets {

/// How a comparison's tuples are combined.
enum class CompareMode {
  kExtremum,  ///< max or min: the extreme tuple is retrieved
  kRanked,    ///< kth: the tuple of the k-th largest value
  kSum,       ///< a sum over tokens: every tuple contributes
};

struct Comparison {
  std::string text;  ///< the reduction as written
  CompareMode mode = CompareMode::kExtremum;
  int order = 1;                          ///< r: token indices compared jointly
  bool split = false;                     ///< the body split into single-index terms (order 1 each)
  int indices = 1;                        ///< token indices bound (= order unless split)
  Bound rank;                             ///< kRanked: k
  std::vector<std::string> multiplicity;  ///< enclosing parameter ranges' sizes ("D")
  std::vector<long> positions;            ///< literal positions read inside the comparison
};

/// A polynomial in T with named-integer coefficients: sum of coefficient * names * T^power.
struct Monomial {
  long coefficient = 1;
  std::vector<std::string> names;  ///< sorted
  int power = 0;
};

struct Analysis {
  std::vector<Comparison> comparisons;
  int order = 0;                      ///< beta'
  std::vector<Monomial> dimension;    ///< beta_1
  std::vector<Monomial> number;       ///< the comparison number
  std::vector<long> fixed_positions;  ///< positions read outside any token reduction
  /// Ranges of positions with named bounds (sum(p = 1..T0) x[p]), resolved by the planner.
  std::vector<std::pair<Bound, Bound>> fixed_ranges;
  [[nodiscard]] std::string dimension_text() const;
  [[nodiscard]] std::string number_text() const;
  /// beta_1 with the named integers' values.
  [[nodiscard]] long dimension_value(const Bindings& bindings) const;
};

Analysis analyze(const Formula& formula);

/// "3*D*T^2 + T"; "0" for an empty polynomial.
std::string to_text(const std::vector<Monomial>& polynomial);

}  // namespace infoflow::targets

#endif  // INFOFLOW_TARGETS_ANALYSIS_HPP_
