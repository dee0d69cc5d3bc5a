#ifndef INFOFLOW_THEOREMS_ENGINE_SCOPE_HPP_
#define INFOFLOW_THEOREMS_ENGINE_SCOPE_HPP_

// The hypotheses every rate of the catalogue assumes of a target (docs/infoflow_engine.md, "S
// Scope"): a value that varies boundedly with the tokens on the input distribution. Internal to
// the engine.

#include <optional>
#include <string>

#include "infoflow/targets/formula.hpp"

namespace infoflow::theorems::detail {

/// Why the target breaks the hypotheses, read off its syntax and checked on random sequences
/// (as E4 and E5): an outer function that is not Lipschitz on its argument's range. A division
/// by, negative power, log or sqrt of a token quantity that comes arbitrarily near 0 (it takes
/// both signs, or is 0 where a factor, an |.|'s argument or a vector under a norm is), except
/// the sqrt of a sum of squares (a norm); a log or sqrt of one that is negative somewhere; exp
/// of a quantity that grows faster than linearly in the tokens. nullopt when none is found (a
/// sample and a reading of the syntax, not a proof).
std::optional<std::string> broken_hypothesis(const targets::Formula& formula,
                                             const targets::Bindings& bindings, long token_dim);

}  // namespace infoflow::theorems::detail

#endif  // INFOFLOW_THEOREMS_ENGINE_SCOPE_HPP_
