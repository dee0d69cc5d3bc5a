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
/// (as E4 and E5): a division by a token quantity that takes both signs (so crosses 0), a log or
/// sqrt of one that is not always positive, exp of a quantity that grows faster than linearly
/// in the tokens. nullopt when none is found (a sample, not a proof).
std::optional<std::string> broken_hypothesis(const targets::Formula& formula,
                                             const targets::Bindings& bindings, long token_dim);

}  // namespace infoflow::theorems::detail

#endif  // INFOFLOW_THEOREMS_ENGINE_SCOPE_HPP_
