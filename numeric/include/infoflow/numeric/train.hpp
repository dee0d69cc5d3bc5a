#ifndef INFOFLOW_NUMERIC_TRAIN_HPP_
#define INFOFLOW_NUMERIC_TRAIN_HPP_

/// \file
/// Training a Transformer on a task: fresh samples every step, AdamW with warm-up and cosine
/// schedule, gradient clipping, validation NMSE on a fixed held-out set, the best kept.
///
/// Reproducibility: every random number comes from `seed` through named streams (init,
/// calibration, validation, training sample i of step s). The batch is cut into `chunks`
/// fixed pieces whose gradients are summed in order, so the result depends on the seed and
/// the chunk count, never on the number of threads: the same seed gives bitwise the same run.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "infoflow/numeric/config.hpp"
#include "infoflow/numeric/optimizer.hpp"
#include "infoflow/numeric/tasks.hpp"

namespace infoflow::numeric {

enum class Precision { kFloat32, kFloat64 };
std::string_view to_string(Precision p);
Precision parse_precision(std::string_view text);

struct TrainOptions {
  Index steps = 2000;
  Index batch = 64;
  AdamWOptions adam;
  Index warmup = -1;          ///< -1: 2 % of the steps
  double min_lr_ratio = 0.0;  ///< the cosine ends at min_lr_ratio * learning rate
  double clip = 1.0;          ///< global gradient norm; 0 disables
  Index eval_every = 0;       ///< 0: 20 evaluations over the run
  Index validation_size = 2048;
  std::uint64_t seed = 1;
  Index threads = 0;  ///< 0: all cores
  Index chunks = 2;   ///< fixed pieces of each batch (the parallel grain)
  Precision precision = Precision::kFloat32;
  /// The plateau test (see plateaued()): a fixed-budget run has converged when its best
  /// validation NMSE improved by less than this fraction over the last quarter of its steps;
  /// training until the plateau applies it at the peak learning rate (see Cooldown).
  double plateau_tolerance = 0.1;
  /// 0: train exactly `steps` on the cosine schedule. Else train until the plateau, at most
  /// `max_steps` (see Cooldown): the learning rate holds at its peak until the plateau test
  /// holds, then cools down.
  Index max_steps = 0;
  /// Where to keep the run's checkpoint (empty: none); written every `checkpoint_every` steps
  /// and at the end, and resumed from if it exists. `checkpoint_tag` names the configuration
  /// (e.g. a sweep's run key) so that a checkpoint of another run is refused.
  std::filesystem::path checkpoint;
  Index checkpoint_every = 1000;
  std::string checkpoint_tag;

  /// Throws InputError naming the first invalid field.
  void validate() const;
  [[nodiscard]] Index warmup_steps() const;
  [[nodiscard]] Index eval_interval() const;
  /// The most steps the run may take: max_steps if set, else steps.
  [[nodiscard]] Index budget() const;
  /// Training until the plateau: the last step at which the cool-down may start, max_steps /
  /// (1 + kCooldownFraction) (4/5 of it), so that the cool-down fits in the budget.
  [[nodiscard]] Index cooldown_cap() const;
};

struct CurvePoint {
  Index step = 0;
  double learning_rate = 0;
  double train_nmse = 0;  ///< the batch's MSE over the target variance
  double validation_nmse = 0;
};

/// How a run ended: its validation curve reached a plateau, the step budget ran out first, or
/// a loss, gradient or validation NMSE was not finite.
enum class RunStatus { kConverged, kBudgetReached, kDiverged };
std::string_view to_string(RunStatus s);  ///< converged | budget_reached | diverged
/// Also reads "completed", what results files said before convergence was recorded: such a
/// run is counted as budget_reached (not shown to have converged).
RunStatus parse_run_status(std::string_view text);

/// The plateau test on a learning curve: with S the last evaluated step, the best validation
/// NMSE up to step S improved on the best up to 3S/4 by less than `tolerance` of the latter.
/// False when no evaluation lies at or before 3S/4.
bool plateaued(std::span<const CurvePoint> curve, double tolerance);

/// Training until the plateau (max_steps > 0) runs in two phases. After the warm-up the
/// learning rate holds at its peak, and the run is evaluated; at the first evaluation from
/// `steps` on where the plateau test holds, or at the cap (cooldown_cap()) if none did, a
/// cosine cool-down of a quarter of the steps done so far takes the learning rate to its floor,
/// and the run ends. It converged if the plateau, not the cap, started the cool-down: at the
/// peak learning rate it had stopped improving, and the cool-down takes it to the floor of its
/// gradient noise (a plateau judged at a high learning rate alone is that noise's level).
inline constexpr double kCooldownFraction = 0.25;  ///< of the steps done before the cool-down

struct Cooldown {
  /// The steps done when the cool-down was decided (0: not yet): the cosine starts with the
  /// next step, at the peak, as "cool-down from step N" says.
  Index start = 0;
  Index end = 0;  ///< the run's last step, counted from 1: start + ceil(start / 4)
  bool on_plateau = false;
};
/// The cool-down the curve's last evaluation starts, if it starts one: the evaluation is at or
/// after `steps` and the plateau test holds there, or it is at the cap. For fixed-budget
/// options (max_steps 0): none.
Cooldown cooldown_at(std::span<const CurvePoint> curve, const TrainOptions& options);
/// The cool-down a run's curve has started (its first evaluation that starts one), a function
/// of the curve alone, so that a resumed run takes the same decision.
Cooldown cooldown_of(std::span<const CurvePoint> curve, const TrainOptions& options);

struct TrainResult {
  RunStatus status = RunStatus::kBudgetReached;
  Index steps_done = 0;
  Index diverged_at = -1;  ///< the step (from 1) whose loss or gradient was not finite
  double best_validation_nmse = 0;
  Index best_step = 0;
  double final_validation_nmse = 0;  ///< NaN (null in records) when the run diverged
  double target_mean = 0;            ///< the calibration set's, used to standardise targets
  double target_std = 1;
  ParameterCount parameters;
  std::vector<CurvePoint> curve;
  double seconds_total = 0;
  double seconds_training = 0;  ///< steps only, evaluations excluded
  Index threads_used = 1;
  std::string task_name;
  std::string task_description;
  Index resumed_from = 0;  ///< the step of the checkpoint it resumed from (0: a fresh start)
  Cooldown cooldown;       ///< training until the plateau: where the cool-down started and why

  [[nodiscard]] double seconds_per_step() const {
    return steps_done > 0 ? seconds_training / static_cast<double>(steps_done) : 0.0;
  }
};

/// Called after each evaluation, and after a step at most every `progress_interval` seconds.
struct Progress {
  Index step = 0;
  Index total = 0;
  double train_nmse = 0;
  double best_validation_nmse = 0;
  double seconds = 0;
};
using ProgressCallback = std::function<void(const Progress&)>;

/// The seed train() initialises a model from, for a run seed.
std::uint64_t initialization_seed(std::uint64_t run_seed);

/// Trains a model initialised from the seed, or resumed from options.checkpoint if that file
/// exists. Throws InputError if the options or the model do not fit the task (token dimension,
/// T) or the checkpoint belongs to another configuration; a divergence is a status, not an
/// error.
TrainResult train(const ModelConfig& model, const Task& task, const TrainOptions& options,
                  const ProgressCallback& progress = {});

}  // namespace infoflow::numeric

#endif  // INFOFLOW_NUMERIC_TRAIN_HPP_
