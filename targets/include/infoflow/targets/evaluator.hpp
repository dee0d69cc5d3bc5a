#ifndef INFOFLOW_TARGETS_EVALUATOR_HPP_
#define INFOFLOW_TARGETS_EVALUATOR_HPP_

/// \file
/// Computes a formula on sequences, so that every formula is a training task.
///
/// Random parameters come from the task seed, by a fixed convention that the built-in tasks
/// follow too (so a built-in task and its formula give the same values):
///   matrices          stream {1}: entries N(0, 1/d) (a normal divided by sqrt(d)), column by
///                     column, family members in order
///   vector families   stream {2}: random unit vectors (a normal vector, normalised)
///   plain vectors     stream {3}: random unit vectors
///   scalars           stream {4}: N(0, 1)
/// Within a stream, parameters are drawn in their order of first appearance in the formula.
///
/// A formula is compiled once: the reductions of the common shapes are computed as a whole on
/// each sequence, from the tokens' pairwise or per-direction forms, with no interpretation per
/// index tuple and no allocation per sequence (see Summation for their exact order of sums).
/// Other shapes, and the arithmetic around the compiled reductions, are walked node by node.
/// The compiled shapes:
///   max|min|sum(s, t) dot(x[s], x[t]) or bilinear(A, x[s], x[t]), with s != t or s < t
///   max|min|sum(t) dot(a, x[t])             and, Summation::kBlocked, sum(i = 1..D) of those
///   kth(k, t by dot(a, x[t])) dot(b, x[t])  with or without the key
///   max|min(t1 < t2 < t3) sqnorm|norm(x[t1] + x[t2] + x[t3])
///   max|min(r, s, t) (F(r, s) +|- G(s, t)), F and G pairwise forms (dot or bilinear) sharing
///                                           one index: eliminated through it, T^2 forms and
///                                           no T^3 walk, the same value to the bit (rounding
///                                           is monotone, so the extreme of the sums is the
///                                           sum of the extremes)
///   sqnorm(sum(p = 1..K) x[p])              Summation::kBlocked only

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "infoflow/targets/formula.hpp"
#include "infoflow/targets/operations.hpp"

namespace infoflow::targets {

/// The order of a formula's sums. Both are exact to rounding; they differ in the last bits, and
/// recorded training data must be drawn again with the order they were drawn with.
enum class Summation {
  /// Each dot product and norm a vector reduction of its own, per token or pair: the order of
  /// the first (tree-walking) evaluator, which recorded formula experiments were drawn with.
  kPerToken,
  /// Pairwise forms as one matrix product X^T A X, per-direction forms as A^T X, sums over
  /// leading positions row by row: the order of the hand-written tasks that the built-in
  /// tasks' recorded data were drawn with. Shapes without such a form are summed per token.
  kBlocked,
};

class Evaluator {
 public:
  /// `bindings` gives T and the formula's other named integers (D, k, ...); `token_dim` is d.
  /// Throws InputError for a missing value, an empty range, x[p] beyond T, or d > 16.
  Evaluator(Formula formula, Bindings bindings, long token_dim, std::uint64_t task_seed,
            Summation summation = Summation::kPerToken);
  // Out of line, so that the library's Eigen allocates and frees: a program built for another
  // instruction set aligns Eigen's memory differently (tests/install/consumer).
  Evaluator(const Evaluator& other);
  Evaluator(Evaluator&& other) noexcept;
  Evaluator& operator=(const Evaluator& other);
  Evaluator& operator=(Evaluator&& other) noexcept;
  ~Evaluator();

  /// The value on one sequence x, d x T.
  [[nodiscard]] double operator()(const Eigen::Ref<const Eigen::MatrixXd>& x) const;
  /// The values of n sequences side by side: x is d x (n T), y has n entries.
  void operator()(const Eigen::Ref<const Eigen::MatrixXd>& x, Eigen::Ref<Eigen::VectorXd> y) const;

  [[nodiscard]] const Formula& formula() const { return *formula_; }
  [[nodiscard]] long tokens() const { return tokens_; }
  [[nodiscard]] long token_dim() const { return token_dim_; }
  [[nodiscard]] Summation summation() const { return summation_; }
  /// Member i (0-based) of a parameter (i = 0 for a plain one): 1 x 1, d x 1 or d x d.
  [[nodiscard]] const Eigen::MatrixXd& parameter(const std::string& name, std::size_t i = 0) const;

  static constexpr long kMaxTokenDim = 16;

 private:
  using Vec = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxTokenDim, 1>;
  using Value = ScalarOrVector<Vec>;
  struct Range {
    long low = 1;
    long high = 1;
  };
  /// A parameter as used at one node: its name and, for a family member A[i], i's slot.
  struct ParameterUse {
    std::string name;
    int slot = -1;  ///< -1: a plain parameter
  };
  /// A reduction computed as a whole (the shapes listed above).
  struct Kernel {
    enum class Shape { kPairs, kTokens, kFamilyTokens, kRanked, kTriples, kLeadingSum, kChain };
    Shape shape = Shape::kPairs;
    ReduceOp op = ReduceOp::kMax;
    int constraint = 0;          ///< pairs: 0 none, 1 distinct, 2 ordered (first binder < second)
    bool swapped = false;        ///< pairs: the body's first token is bound by the second binder
    bool root = false;           ///< triples: norm, the square root of the extreme squared norm
    ParameterUse matrix;         ///< pairs: bilinear's A ("" for dot)
    ParameterUse key;            ///< tokens, ranked: the direction a of dot(a, x[t])
    ParameterUse value;          ///< ranked: the body's direction b
    long count = 0;              ///< ranked: k; leading sum: K
    Eigen::MatrixXd directions;  ///< family tokens: the members a[1..D] as columns
    /// chain: each term's form ("" for dot), whether its first token is the shared index, and
    /// whether the second term is subtracted.
    std::array<ParameterUse, 2> forms;
    std::array<bool, 2> shared_first{};
    bool subtracted = false;
  };
  /// Work space of one batch, allocated once for all its sequences.
  struct Scratch {
    std::vector<Vec> tokens;        ///< the sequence's tokens in the tree walk's vector type
    Eigen::MatrixXd product;        ///< A X
    Eigen::MatrixXd pairs;          ///< the pairwise form, T x T
    Eigen::MatrixXd second_pairs;   ///< a chain's second form, T x T
    Eigen::MatrixXd per_direction;  ///< a family's directions against the tokens, D x T
    Eigen::VectorXd scores;
    Eigen::VectorXd pair;
    std::vector<long> order;
  };

  Value eval(const Node& n, const Eigen::Ref<const Eigen::MatrixXd>& x, std::vector<long>& env,
             Scratch& scratch) const;
  Value reduce(const Node& n, const Eigen::Ref<const Eigen::MatrixXd>& x, std::vector<long>& env,
               Scratch& scratch) const;
  double run(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& x,
             const std::vector<long>& env, Scratch& scratch) const;
  double pairs(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& x,
               const std::vector<long>& env, Scratch& scratch) const;
  /// g(i, j) = the form with its first token x[i] and its second x[j], in the tree walk's order
  /// of sums (what Summation::kPerToken draws).
  void per_token_form(const Eigen::MatrixXd* a, const Eigen::Ref<const Eigen::MatrixXd>& x,
                      Scratch& scratch, Eigen::MatrixXd& g) const;
  double chain(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& x,
               const std::vector<long>& env, Scratch& scratch) const;
  const Eigen::MatrixXd& member(const ParameterUse& use, const std::vector<long>& env) const;
  [[nodiscard]] ParameterUse use_of(const Node& ref) const;
  /// Resolves ranges and ranks; returns how many nodes one evaluation visits, `repeats` times.
  double prepare(const Node& n, double repeats);
  /// Finds the subtrees computed as a whole.
  void compile(const Node& n);
  [[nodiscard]] Scratch scratch() const;

  std::shared_ptr<const Formula> formula_;
  /// What is evaluated: the formula with its keys unsaturated (monotone.hpp); shared, since the
  /// tables below point into it.
  std::shared_ptr<const Node> root_;
  Bindings bindings_;
  long tokens_;
  long token_dim_;
  Summation summation_;
  std::map<std::string, std::vector<Eigen::MatrixXd>> parameters_;
  std::map<std::string, int> slots_;                  // index name -> slot in the environment
  std::map<const Node*, std::vector<Range>> ranges_;  // per reduction, per binder
  std::map<const Node*, long> ranks_;                 // per kth
  std::map<const Node*, Kernel> kernels_;
};

}  // namespace infoflow::targets

#endif  // INFOFLOW_TARGETS_EVALUATOR_HPP_
