#ifndef INFOFLOW_THEOREMS_ENGINE_CANONICAL_TERMS_HPP_
#define INFOFLOW_THEOREMS_ENGINE_CANONICAL_TERMS_HPP_

// What C0's rewrites (canonical_forms.cpp) build and read: nodes, the indices a node reads or
// binds, and a node as a linear combination of monomials. Internal to the engine.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "infoflow/targets/formula.hpp"

namespace infoflow::theorems::detail::c0 {

using targets::Node;

Node number(double value);
Node binary(Node::Kind kind, Node a, Node b);
Node negation(Node a);
Node call(const std::string& name, std::vector<Node> args);
/// sum(index) body, over the tokens.
Node token_sum(const std::string& index, Node body);

/// Whether `n` reads the index `name` (a subscript, or a constraint of a reduction inside).
bool reads(const Node& n, const std::string& name);
bool binds(const Node& n, const std::string& name);
bool has_reduction(const Node& n);
/// `n` with the index names renamed by `names` (subscripts and constraints), where no reduction
/// inside binds one of them.
Node renamed(Node n, const std::map<std::string, std::string>& names);

struct LinearTerm {
  double coefficient = 1;
  const Node* monomial = nullptr;  ///< nullptr: the constant 1
};

/// `n` as a sum of coefficient * monomial, the numbers taken out.
std::vector<LinearTerm> linear_terms(const Node& n);
/// Terms with equal monomials (structure_key) added, in the order first written; an
/// integer within rounding of the sum taken as exact ((y + y + y) / 3 is y).
std::vector<LinearTerm> collected(const std::vector<LinearTerm>& terms);
/// The sum of the terms, each as written times its number (0 for none).
Node combination(const std::vector<LinearTerm>& terms);
std::vector<LinearTerm> negated(std::vector<LinearTerm> terms);
/// The body's one term with its number, if it is one monomial times a number.
std::optional<LinearTerm> single_term(const Node& n);
bool all_negative(const std::vector<LinearTerm>& terms);

}  // namespace infoflow::theorems::detail::c0

#endif  // INFOFLOW_THEOREMS_ENGINE_CANONICAL_TERMS_HPP_
