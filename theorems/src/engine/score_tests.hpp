#ifndef INFOFLOW_THEOREMS_ENGINE_SCORE_TESTS_HPP_
#define INFOFLOW_THEOREMS_ENGINE_SCORE_TESTS_HPP_

// R1's test of a score (docs/infoflow_engine.md, "Actions"): whether attention forms it from the
// raw tokens, a query-key product, or an FFN must compute it first. Read off the syntax tree.
// Internal to the engine.

#include <string>
#include <vector>

#include "infoflow/targets/formula.hpp"

#include "terms.hpp"

namespace infoflow::theorems::detail {

/// A term that attention's values can carry without an FFN: x[v] or dot(a, x[v]), a a
/// parameter.
bool linear_in_tokens(const targets::Node& term, const std::string& v);

/// One term attention forms from the raw tokens: linear in x[v], or (at a token `at`; empty: at
/// the readout) a bilinear form of x[v] and x[at]: dot, bilinear(M, ., .), or a product of linear
/// forms in the two tokens, the rank-one form x[v]^T (a b^T) x[at].
bool query_key_product(const targets::Node& term, const std::string& v, const std::string& at);

/// A function of the one token x[v] (no offset, no fixed position) and of parameters: what the
/// token-wise encoder holds before the first layer (docs/theory.md, section 3).
bool token_wise(const targets::Node& term, const std::string& v);

/// One term attention forms from the encoded tokens: a query-key product, a token-wise function
/// of x[v] (a key feature), one of x[at] (the same shift for every key), or the product of one of
/// each.
bool encoded_query_key_product(const targets::Node& term, const std::string& v,
                               const std::string& at);

/// Whether attention forms the score of a retrieval over `v` (at the token `at`; empty: at the
/// readout) from the encoded tokens, with no FFN before it (our rule, R1): a query-key product
/// of encoder features is bilinear in them, so each term must be one
/// (encoded_query_key_product()), or the score a monotone function of one query-key product
/// of the raw tokens. A nonlinear function of one token (sqnorm(x[v]), a square, a norm) is an
/// encoder feature; one of two tokens that is not a product (|x[v] - x[at]|) needs an FFN. Terms read from earlier retrievals and index constraints
/// are the planner's other rules' business. `selection`: the score is a `by` key.
bool scores_from_encoded_tokens(const std::vector<const Factor*>& terms, const std::string& v,
                            const std::string& at, bool selection);

}  // namespace infoflow::theorems::detail

#endif  // INFOFLOW_THEOREMS_ENGINE_SCORE_TESTS_HPP_
