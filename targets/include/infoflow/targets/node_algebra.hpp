#ifndef INFOFLOW_TARGETS_NODE_ALGEBRA_HPP_
#define INFOFLOW_TARGETS_NODE_ALGEBRA_HPP_

/// \file
/// Term algebra on formula trees: what a term reads, substitution and renaming of indices, and
/// the builders of sums and products. Each matches on the tree, never on its printed text, so
/// that the engine's compiler and the constructions that read its programs agree on them.

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "infoflow/targets/formula.hpp"

namespace infoflow::targets {

/// Whether `a` and `b` are one expression: equal in every field the formula states, whatever
/// columns they were written at and kinds the checks gave them.
bool same_expression(const Node& a, const Node& b);

/// A strict order on expressions whose equivalence is same_expression(): for maps keyed by an
/// expression (the engine's values of its reductions).
struct ExpressionOrder {
  bool operator()(const Node& a, const Node& b) const;
};

/// Whether `n` or a node inside it passes `test`.
bool contains(const Node& n, const std::function<bool(const Node&)>& test);

/// Whether `n` holds a product, an absolute value, a power or a reduction over a range: where a
/// second reading (E1 at the product's vertices, max |E| as max(max E, -min E), a range read
/// outside) may order the eliminations otherwise.
bool has_product_abs_power_or_range(const Node& n);

/// Whether `n` reads the sequence: a token x[...], or a reduction.
bool mentions_token(const Node& n);

/// Whether `n` reads a token at the index `index` (x[t], or x[t+1] with an offset).
bool subscripts_x(const Node& n, const std::string& index);

/// Whether `n` reads the index `name` (a subscript, an offset from it, a constraint on it).
bool names_index(const Node& n, const std::string& name);

/// Which indices free_indices() lists besides the subscripts of x.
struct IndexReads {
  bool parameters = false;   ///< the subscripts of parameter families (A[i])
  bool constraints = false;  ///< the indices a chain names (s != t), bound further out
};

/// The indices `n` reads that no reduction inside it binds, in the order first read: the
/// subscripts of x, and those `also` asks for.
std::vector<std::string> free_indices(const Node& n, IndexReads also = {});

/// The token indices `n` reads and does not bind itself (free_indices() of x).
std::set<std::string> token_indices_read(const Node& n);

/// The value of a number written with numbers alone (2, -0.5, 3 / 4), if `n` is one.
std::optional<double> literal_number(const Node& n);

/// `n` with the index `index` replaced by the position `position` (A[i] -> A[3], x[p] -> x[3],
/// x[p+1] -> x[4]).
Node substitute(Node n, const std::string& index, long position);

/// `n` with the index `from` read as `to`.
Node renamed(Node n, const std::string& from, const std::string& to);

/// `n` with every subexpression that is `what` (same_expression()) replaced by `by`.
Node replaced(const Node& n, const Node& what, const Node& by);

/// An index and the positions it takes: a range binder with its bounds resolved.
struct IndexRange {
  std::string index;
  long low = 1;
  long high = 0;
};

/// E0's unrolling: the copies of `n` with each range's index replaced by each of its positions
/// (substitute()), the first range outermost (i = 1..2, j = 1..2 gives (1, 1), (1, 2), (2, 1),
/// (2, 2)); none where a range is empty.
std::vector<Node> copies_over(const Node& n, const std::vector<IndexRange>& ranges);

/// The factors of a product u * v * ... (the node itself when it is none).
std::vector<const Node*> product_parts(const Node& n);

/// The product of `factors`, in order (left-nested, as the parser writes a * b * c).
Node product_of(const std::vector<const Node*>& factors);

/// The sum of `terms`, in order (left-nested); the number 0 for none.
Node sum_of(std::vector<Node> terms);

}  // namespace infoflow::targets

#endif  // INFOFLOW_TARGETS_NODE_ALGEBRA_HPP_
