#ifndef INFOFLOW_NUMERIC_TASKS_HPP_
#define INFOFLOW_NUMERIC_TASKS_HPP_

/// \file
/// Training tasks: a target formula with its input distribution. The built-in tasks are the
/// entries of targets/targets.toml with a task table (docs/theory.md, section 8.1). A task's random
/// parameters (A_i, a, b) come from its own seed, so one target can be trained with many run
/// seeds; inputs are drawn from the run's streams. Everything is in double: data are cast to
/// the model's scalar type afterwards.

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

/// What selects a built-in task and its parameters. Fields a task does not use are ignored.
struct TaskOptions {
  std::string name = "intrinsic_dim";
  Index tokens = core::defaults::kTokens;  ///< T
  Index token_dim = 0;                 ///< d; 0 means the task's default (its `d` in targets.toml)
  Index comparisons = 2;               ///< D: intrinsic_dim, d_retrieval
  Index rank = 2;                      ///< k: kth_max
  Index positions = 3;                 ///< T0: fixed_positions
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

/// A target formula and its input distribution.
class Task {
 public:
  Task(std::string name, std::string description, targets::Evaluator evaluator,
       InputDistribution inputs, PositionalEncoding positional);
  ~Task();  // out of line, as the evaluator's members are
  [[nodiscard]] const std::string& name() const { return name_; }
  /// The target as a formula, with its parameters and input distribution.
  [[nodiscard]] const std::string& description() const { return description_; }
  /// The positional encoding the target needs (fixed positions cannot be found without one).
  [[nodiscard]] PositionalEncoding recommended_positional() const { return positional_; }
  /// One input sequence, d x T, from the task's input distribution.
  void sample(Rng& rng, Eigen::Ref<Eigen::MatrixXd> x) const;
  [[nodiscard]] const InputDistribution& inputs() const { return inputs_; }
  /// The target value of one sequence x (d x T).
  [[nodiscard]] double target(const Eigen::Ref<const Eigen::MatrixXd>& x) const {
    return evaluator_(x);
  }
  /// The targets of n sequences side by side, x d x (n T), into y (n).
  void targets(const Eigen::Ref<const Eigen::MatrixXd>& x, Eigen::Ref<Eigen::VectorXd> y) const {
    evaluator_(x, y);
  }

  [[nodiscard]] Index tokens() const { return evaluator_.tokens(); }
  [[nodiscard]] Index token_dim() const { return evaluator_.token_dim(); }

 private:
  std::string name_;
  std::string description_;
  targets::Evaluator evaluator_;
  InputDistribution inputs_;
  PositionalEncoding positional_;
};

/// A task whose target is a formula; `name` labels it in reports. The evaluator's T and d are
/// the task's; its parameters come from the evaluator's task seed. The positional encoding it
/// recommends is `positional` if given, else learned when the formula reads fixed positions.
[[nodiscard]] std::unique_ptr<Task> make_formula_task(
    std::string name, targets::Evaluator evaluator, InputDistribution inputs = {},
    std::optional<PositionalEncoding> positional = std::nullopt);

/// The task names make_task() accepts.
[[nodiscard]] const std::vector<std::string>& task_names();

/// A built-in task's formula and the values of the integers it names (T, D, k, T0).
struct TaskFormula {
  std::string text;
  targets::Bindings bindings;
};

/// The formula of a built-in task (validated like make_task()).
[[nodiscard]] TaskFormula formula_of(const TaskOptions& options);

/// Validates the options (InputError: unknown name, T too small for the task, k > T, ...)
/// and builds the task from its entry of targets.toml.
[[nodiscard]] std::unique_ptr<Task> make_task(const TaskOptions& options);

/// Draws `count` sequences into x (d x count*T) and their targets into y; sequence i uses the
/// stream derive_seed(seed, {first + i}), so a sample does not depend on how batches are cut.
void draw_samples(const Task& task, std::uint64_t seed, Index first, Index count,
                  Eigen::Ref<Eigen::MatrixXd> x, Eigen::Ref<Eigen::VectorXd> y);

}  // namespace infoflow::numeric

#endif  // INFOFLOW_NUMERIC_TASKS_HPP_
