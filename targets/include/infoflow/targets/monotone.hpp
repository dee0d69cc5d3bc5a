#ifndef INFOFLOW_TARGETS_MONOTONE_HPP_
#define INFOFLOW_TARGETS_MONOTONE_HPP_

/// \file
/// Monotone functions peeled off a score from the top: how the engine reads an extremum of
/// f(score) as f of the score's extremum (docs/infoflow_engine.md, R1), and how the evaluator
/// reads a selection's key, so that tanh(20 y) selects the token y selects instead of tying, in
/// doubles, wherever tanh rounds to 1.0.

#include <cstddef>
#include <optional>

#include "infoflow/targets/formula.hpp"

namespace infoflow::targets {

struct MonotoneStep {
  std::size_t argument = 0;  ///< the operand the value is monotone in
  bool decreasing = false;
};

/// How `m` depends on its one operand that is not closed, when monotonically: a term that reads
/// no token and no index (numbers, scalar parameters) added or subtracted, a product or
/// quotient by a nonzero number, a negation, exp, log, sqrt, tanh, an odd power, a positive
/// power of an abs; relu (flat below 0) unless `strict`. nullopt for anything else. log and
/// sqrt increase where defined.
std::optional<MonotoneStep> monotone_step(const Node& m, bool strict);

/// The tree with each selection's key stripped of the strictly monotone function at its root
/// (tanh(20 y) + 1 -> 20 y; a decreasing one turns max into min, and a k-th largest keeps the
/// non-decreasing ones only): the same tuples selected, without ties of saturated doubles. A
/// key under log or sqrt is read where they are defined (where the argument is negative the
/// written key is NaN, and selects by its argument instead).
Node unsaturated_keys(Node n);

}  // namespace infoflow::targets

#endif  // INFOFLOW_TARGETS_MONOTONE_HPP_
