#ifndef INFOFLOW_CONSTRUCT_TERMS_HPP_
#define INFOFLOW_CONSTRUCT_TERMS_HPP_

// The value of a term of a formula, or of the target's value in what the network holds, where
// its token indices name given vectors: what the constructor computes at a token from what the
// token holds (docs/constructions.md).

#include <functional>
#include <map>
#include <string>

#include <Eigen/Core>

#include "infoflow/targets/evaluator.hpp"
#include "infoflow/targets/formula.hpp"
#include "infoflow/targets/node_algebra.hpp"
#include "infoflow/targets/operations.hpp"
#include "infoflow/theorems/value.hpp"

namespace infoflow::construct::detail {

/// A term's scalar or vector value.
using TermValue = targets::ScalarOrVector<Eigen::VectorXd>;

/// What a term reads: the token each index names, the target's parameters, and, for the
/// target's value (theorems::Value), what the network holds.
struct TermInputs {
  const targets::Evaluator* parameters = nullptr;
  std::map<std::string, Eigen::VectorXd> tokens;  ///< index name -> x at that token
  /// A token read by position (x[3], x[T]) -> x as the reading token holds it.
  std::map<targets::Node, Eigen::VectorXd, targets::ExpressionOrder> positioned;
  std::function<TermValue(const theorems::Value::Held&)> reference;  ///< a held value
  /// A Value::Selected: the selection's body at the token its quantity chose (the caller knows
  /// what it fetched).
  std::function<double(const theorems::Value& select)> selection;
  std::function<double(long unit)> coordinate;  ///< a Value::Coordinate
  long tokens_count = 0;  ///< the value of T
};

/// Evaluates `n`. Throws std::invalid_argument for what a term cannot hold (a reduction, a
/// position not in `positioned`, an offset): the lowering has already refused such terms.
TermValue evaluate(const targets::Node& n, const TermInputs& in);
TermValue evaluate(const theorems::Value& n, const TermInputs& in);

/// The indices a term's tokens are read at (the kRef x[i] subscripts).
void token_indices(const theorems::Value& n, std::vector<std::string>& out);

/// The value of the parameter `ref` names (a, A, or the family member A[3]).
const Eigen::MatrixXd& parameter_of(const targets::Evaluator& parameters, const targets::Node& ref);

/// Whether `n` is a token read by position (x[3], x[T], x[T-1]), not by an index.
bool positioned(const targets::Node& n);
/// Whether a term reads any token by position.
bool reads_position(const theorems::Value& n);

}  // namespace infoflow::construct::detail

#endif  // INFOFLOW_CONSTRUCT_TERMS_HPP_
