#ifndef INFOFLOW_TARGETS_EVALUATOR_HPP_
#define INFOFLOW_TARGETS_EVALUATOR_HPP_

/// \file
/// Computes a formula on sequences, so that every formula is a training task.
///
/// Random parameters come from the task seed, by a fixed convention that the built-in tasks
/// follow too (so a built-in task and its formula give the same values):
///   matrices          stream {1}: entries N(0, 1/d), column by column, family members in order
///   vector families   stream {2}: random unit vectors (a normal vector, normalised)
///   plain vectors     stream {3}: random unit vectors
///   scalars           stream {4}: N(0, 1)
/// Within a stream, parameters are drawn in their order of first appearance in the formula.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "infoflow/targets/formula.hpp"

namespace infoflow::targets {

class Evaluator {
 public:
  /// `bindings` gives T and the formula's other named integers (D, k, ...); `token_dim` is d.
  /// Throws InputError for a missing value, an empty range, x[p] beyond T, or d > 16.
  Evaluator(Formula formula, Bindings bindings, long token_dim, std::uint64_t task_seed);

  /// The value on one sequence x, d x T.
  [[nodiscard]] double operator()(const Eigen::Ref<const Eigen::MatrixXd>& x) const;
  /// The values of n sequences side by side: x is d x (n T), y has n entries.
  void operator()(const Eigen::Ref<const Eigen::MatrixXd>& x, Eigen::Ref<Eigen::VectorXd> y) const;

  [[nodiscard]] const Formula& formula() const { return *formula_; }
  [[nodiscard]] long tokens() const { return tokens_; }
  [[nodiscard]] long token_dim() const { return token_dim_; }
  /// Member i (0-based) of a parameter (i = 0 for a plain one): 1 x 1, d x 1 or d x d.
  [[nodiscard]] const Eigen::MatrixXd& parameter(const std::string& name, std::size_t i = 0) const;

  static constexpr long kMaxTokenDim = 16;

 private:
  using Vec = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxTokenDim, 1>;
  struct Value {
    double s = 0;
    Vec v;
    bool vector = false;
  };
  struct Range {
    long low = 1;
    long high = 1;
  };
  Value eval(const Node& n, const Eigen::Ref<const Eigen::MatrixXd>& x,
             std::vector<long>& env) const;
  Value reduce(const Node& n, const Eigen::Ref<const Eigen::MatrixXd>& x,
               std::vector<long>& env) const;
  /// Resolves ranges and ranks; returns how many nodes one evaluation visits, `repeats` times.
  double prepare(const Node& n, double repeats);

  std::shared_ptr<const Formula> formula_;  // shared: the tables below point into it
  Bindings bindings_;
  long tokens_;
  long token_dim_;
  std::map<std::string, std::vector<Eigen::MatrixXd>> parameters_;
  std::map<std::string, int> slots_;                  // index name -> slot in the environment
  std::map<const Node*, std::vector<Range>> ranges_;  // per reduction, per binder
  std::map<const Node*, long> ranks_;                 // per kth
};

}  // namespace infoflow::targets

#endif  // INFOFLOW_TARGETS_EVALUATOR_HPP_
