#ifndef INFOFLOW_NUMERIC_TASKS_HPP_
#define INFOFLOW_NUMERIC_TASKS_HPP_

/// \file
/// The synthetic targets of THEORY.md section 5, each with its input distribution. A task's
/// random parameters (A_i, a, b) come from its own seed, so one target can be trained with
/// many run seeds; inputs are drawn from the run's streams. Everything is in double: data are
/// cast to the model's scalar type afterwards.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "infoflow/numeric/config.hpp"
#include "infoflow/numeric/random.hpp"
#include "infoflow/targets/evaluator.hpp"

namespace infoflow::numeric {

enum class NormKind { kSquared, kPlain };

/// What selects a task and its parameters. Fields a task does not use are ignored.
struct TaskOptions {
  std::string name = "intrinsic_dim";
  Index tokens = 8;       ///< T
  Index token_dim = 0;    ///< d; 0 means the task's default (2 for triangle, 4 otherwise)
  Index comparisons = 2;  ///< D: intrinsic_dim, d_retrieval
  Index rank = 2;         ///< k: kth_max
  Index positions = 3;    ///< T0: fixed_positions
  NormKind norm = NormKind::kSquared;  ///< triangle
  std::uint64_t seed = 1;              ///< the task's own random parameters
};

/// How tokens are drawn: i.i.d. N(0, variance I_d), each token's norm then clamped to
/// [min_norm, max_norm] when max_norm > 0.
struct InputDistribution {
  double variance = 1.0;
  double min_norm = 0.0;
  double max_norm = 0.0;
  [[nodiscard]] std::string description(Index d) const;
};

class Task {
 public:
  virtual ~Task() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  /// The target as a formula, with its parameters and input distribution.
  [[nodiscard]] virtual std::string description() const = 0;
  /// The positional encoding the target needs (fixed positions cannot be found without one).
  [[nodiscard]] virtual PositionalEncoding recommended_positional() const {
    return PositionalEncoding::kNone;
  }
  /// One input sequence, d x T, from the task's input distribution.
  void sample(Rng& rng, Eigen::Ref<Eigen::MatrixXd> x) const;
  [[nodiscard]] const InputDistribution& inputs() const { return inputs_; }
  /// The target value of one sequence x (d x T).
  [[nodiscard]] virtual double target(const Eigen::Ref<const Eigen::MatrixXd>& x) const = 0;

  [[nodiscard]] Index tokens() const { return tokens_; }
  [[nodiscard]] Index token_dim() const { return token_dim_; }

 protected:
  Task(Index tokens, Index token_dim, InputDistribution inputs = {})
      : tokens_(tokens), token_dim_(token_dim), inputs_(inputs) {}

 private:
  Index tokens_;
  Index token_dim_;
  InputDistribution inputs_;
};

/// A built-in task written in the target language: its formula, the values of the formula's
/// integers (T, D, k, T0) and its input distribution.
struct TaskFormula {
  std::string text;
  targets::Bindings bindings;
  Index token_dim = 4;
  InputDistribution inputs;
};

/// The formula of a built-in task (validated like make_task()).
[[nodiscard]] TaskFormula formula_of(const TaskOptions& options);

/// A task whose target is a formula; `name` labels it in reports. The evaluator's T and d are
/// the task's; its parameters come from the evaluator's task seed. The positional encoding it
/// recommends is `positional` if given, else learned when the formula reads fixed positions.
[[nodiscard]] std::unique_ptr<Task> make_formula_task(
    std::string name, targets::Evaluator evaluator, InputDistribution inputs = {},
    std::optional<PositionalEncoding> positional = std::nullopt);

/// The task names make_task() accepts.
[[nodiscard]] const std::vector<std::string>& task_names();

/// Validates the options (InputError: unknown name, T too small for the task, k > T, ...)
/// and builds the task.
[[nodiscard]] std::unique_ptr<Task> make_task(const TaskOptions& options);

/// Draws `count` sequences into x (d x count*T) and their targets into y; sequence i uses the
/// stream derive_seed(seed, {first + i}), so a sample does not depend on how batches are cut.
void draw_samples(const Task& task, std::uint64_t seed, Index first, Index count,
                  Eigen::Ref<Eigen::MatrixXd> x, Eigen::Ref<Eigen::VectorXd> y);

}  // namespace infoflow::numeric

#endif  // INFOFLOW_NUMERIC_TASKS_HPP_
