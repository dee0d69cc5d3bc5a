#ifndef INFOFLOW_THEOREMS_ENGINE_ORDER_HPP_
#define INFOFLOW_THEOREMS_ENGINE_ORDER_HPP_

// E4 by its definition (docs/infoflow_engine.md): a target reads token order iff permuting the
// tokens changes its value. Internal to the engine.

#include <optional>

#include "infoflow/targets/formula.hpp"

namespace infoflow::theorems::detail {

/// Whether permuting the tokens changes the target's value, tried on random sequences with a
/// random permutation each: true when one changes (a witness), false when none does; nullopt
/// when the formula cannot be evaluated (a named integer with no value, an empty reduction, a
/// rank above the count of tuples).
std::optional<bool> changes_when_tokens_permuted(const targets::Formula& formula,
                                                 const targets::Bindings& bindings);

}  // namespace infoflow::theorems::detail

#endif  // INFOFLOW_THEOREMS_ENGINE_ORDER_HPP_
