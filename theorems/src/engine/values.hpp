#ifndef INFOFLOW_THEOREMS_ENGINE_VALUES_HPP_
#define INFOFLOW_THEOREMS_ENGINE_VALUES_HPP_

// What a target's values on random sequences show the engine (docs/infoflow_engine.md): whether
// it reads token order (E4, by its definition) and whether it is a constant (E5). Internal to
// the engine.

#include <optional>

#include "infoflow/targets/formula.hpp"

namespace infoflow::theorems::detail {

/// Whether permuting the tokens changes the target's value, tried on random sequences (at two
/// lengths, several draws of the parameters and d) with a random permutation each: true when one
/// changes (a witness), false when none does; nullopt when the formula cannot be evaluated (a named
/// integer with no value, an empty reduction, a rank above the count of tuples). `token_dim`, the
/// target's d when it is known (0: not), is tried beside d = 4, 2 and 8: a key that ties only at d
/// = 1 (sqnorm(x[t]) - dot(a, x[t])^2) must be found for a target of d = 1.
std::optional<bool> changes_when_tokens_permuted(const targets::Formula& formula,
                                                 const targets::Bindings& bindings,
                                                 long token_dim = 0);

/// The value the formula takes on every one of a few random sequences (at random scales), for
/// each of several draws of the parameters and d, when it takes one (the first draw's value: it
/// may depend on the parameters); nullopt when it varies or cannot be evaluated.
/// Whether `a` and `b` take the same values on the same random sequences (at 2 and 3 tokens and
/// E4's shorter length, its draws of the parameters and d); false when either cannot be
/// evaluated. A constraint that never binds (max(s != t) (y_s - y_t): the maximum is at
/// distinct tokens anyway) leaves the values unchanged.
bool same_values(const targets::Formula& a, const targets::Formula& b,
                 const targets::Bindings& bindings, long token_dim = 0);

/// The formula's value where it takes one on random sequences, at the longest length tried and
/// the first draw of the parameters; with `every_length`, only where that value is the same at
/// every length and every draw of the parameters and d (sum(t) 1 is T, sqnorm(a) a draw's: each
/// constant on random sequences, but of no one value).
std::optional<double> constant_value(const targets::Formula& formula,
                                     const targets::Bindings& bindings, long token_dim = 0,
                                     bool every_length = false);

/// The sign the formula keeps on random sequences (at random scales), for each of several draws
/// of the parameters and d: +1 when no value is negative, -1 when none is positive; nullopt when
/// it takes both signs, is 0 throughout, or cannot be evaluated. A sample, as E4 and E5.
std::optional<int> constant_sign(const targets::Formula& formula,
                                 const targets::Bindings& bindings, long token_dim = 0);

/// Whether the formula is not a finite number on some random sequence at unit scale (a log or
/// sqrt of a negative value, a division by zero, an overflow), for some draw of the parameters
/// and d; false when every value is finite or the formula cannot be evaluated.
bool undefined_somewhere(const targets::Formula& formula, const targets::Bindings& bindings,
                         long token_dim = 0);

}  // namespace infoflow::theorems::detail

#endif  // INFOFLOW_THEOREMS_ENGINE_VALUES_HPP_
