#include "infoflow/numeric/train.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "infoflow/core/error.hpp"
#include "infoflow/core/limits.hpp"
#include "infoflow/numeric/memory.hpp"
#include "infoflow/numeric/transformer.hpp"

#include <omp.h>

namespace infoflow::numeric {

std::string_view to_string(Precision p) {
  return p == Precision::kFloat32 ? "float32" : "float64";
}

Precision parse_precision(std::string_view text) {
  if (text == "float32" || text == "f32" || text == "float") return Precision::kFloat32;
  if (text == "float64" || text == "f64" || text == "double") return Precision::kFloat64;
  throw InputError("unknown precision '" + std::string(text) + "' (expected float32 or float64)");
}

std::string_view to_string(RunStatus s) {
  return s == RunStatus::kCompleted ? "completed" : "diverged";
}

namespace {

void require(bool ok, const std::string& message) {
  if (!ok) throw InputError(message);
}

bool finite_positive(double x) {
  return std::isfinite(x) && x > 0;
}

// Named random streams of a run (see train.hpp).
enum Stream : std::uint64_t { kInit = 1, kCalibration = 2, kValidation = 3, kTraining = 4 };

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Chunk {
  Index first = 0;
  Index count = 0;
};

std::vector<Chunk> cut(Index total, Index pieces) {
  std::vector<Chunk> out;
  Index first = 0;
  for (Index i = 0; i < pieces; ++i) {
    const Index count = total / pieces + (i < total % pieces ? 1 : 0);
    out.push_back({first, count});
    first += count;
  }
  return out;
}

template <class Scalar>
TrainResult run(const ModelConfig& config, const Task& task, const TrainOptions& o,
                const ProgressCallback& progress) {
  const Clock::time_point start = Clock::now();
  TrainResult result;
  result.task_name = task.name();
  result.task_description = task.description();
  Transformer<Scalar> model(config);
  model.initialize(derive_seed(o.seed, {kInit}));
  result.parameters = model.layout().count();

  const Index t = task.tokens();
  const Index d = task.token_dim();
  const Index chunks = std::min(o.chunks, o.batch);
  const std::vector<Chunk> pieces = cut(o.batch, chunks);
  const Index capacity = pieces.front().count;
  const Index threads = std::min<Index>(o.threads > 0 ? o.threads : omp_get_num_procs(), chunks);
  result.threads_used = threads;
  std::vector<Workspace<Scalar>> workspaces;
  for (Index c = 0; c < chunks; ++c) workspaces.emplace_back(config, capacity);

  // Targets are standardised with the mean and spread of a calibration set of their own.
  {
    Eigen::MatrixXd x(d, o.validation_size * t);
    Eigen::VectorXd y(o.validation_size);
    draw_samples(task, derive_seed(o.seed, {kCalibration}), 0, o.validation_size, x, y);
    result.target_mean = y.mean();
    const double sd = std::sqrt((y.array() - result.target_mean).square().mean());
    result.target_std = sd > 0 ? sd : 1.0;
  }
  const Scalar mean(result.target_mean);
  const Scalar spread(result.target_std);

  Eigen::MatrixXd validation_x(d, o.validation_size * t);
  Eigen::VectorXd validation_y(o.validation_size);
  draw_samples(task, derive_seed(o.seed, {kValidation}), 0, o.validation_size, validation_x,
               validation_y);
  const Matrix<Scalar> validation_inputs = validation_x.cast<Scalar>();
  const double validation_var = (validation_y.array() - validation_y.mean()).square().mean();
  require(validation_var > 0,
          "the task's target is constant on the validation set; NMSE is undefined");
  const std::vector<Chunk> validation_pieces =
      cut(o.validation_size, (o.validation_size + capacity - 1) / capacity);

  // NMSE of the model on the validation set; pieces run in parallel, each on its own
  // workspace slot, and their predictions do not depend on which thread ran them.
  auto evaluate = [&]() {
    AlignedVector<Scalar> predictions(static_cast<std::size_t>(o.validation_size));
    const Index n_pieces = static_cast<Index>(validation_pieces.size());
#pragma omp parallel for num_threads(threads) schedule(static)
    for (Index i = 0; i < n_pieces; ++i) {
      const Chunk& p = validation_pieces[static_cast<std::size_t>(i)];
      workspaces[static_cast<std::size_t>(omp_get_thread_num())].forward(
          model, validation_inputs.data() + p.first * t * d, p.count, predictions.data() + p.first);
    }
    double sse = 0;
    for (Index i = 0; i < o.validation_size; ++i) {
      const double pred =
          static_cast<double>(predictions[static_cast<std::size_t>(i)] * spread + mean);
      sse += (pred - validation_y(i)) * (pred - validation_y(i));
    }
    return sse / static_cast<double>(o.validation_size) / validation_var;
  };

  const Index size = model.layout().size();
  std::vector<AlignedVector<Scalar>> gradients(
      static_cast<std::size_t>(chunks), AlignedVector<Scalar>(static_cast<std::size_t>(size)));
  std::vector<Eigen::MatrixXd> xd(static_cast<std::size_t>(chunks),
                                  Eigen::MatrixXd(d, capacity * t));
  std::vector<Eigen::VectorXd> yd(static_cast<std::size_t>(chunks), Eigen::VectorXd(capacity));
  std::vector<Matrix<Scalar>> xs(static_cast<std::size_t>(chunks), Matrix<Scalar>(d, capacity * t));
  std::vector<AlignedVector<Scalar>> preds(
      static_cast<std::size_t>(chunks), AlignedVector<Scalar>(static_cast<std::size_t>(capacity)));
  std::vector<double> chunk_sse(static_cast<std::size_t>(chunks));

  AdamW<Scalar> optimizer(model.layout(), o.adam);
  const Schedule schedule{o.adam.learning_rate, o.warmup_steps(), o.steps, o.min_lr_ratio};
  const Index interval = o.eval_interval();
  result.best_validation_nmse = std::numeric_limits<double>::infinity();
  double training_seconds = 0;
  Clock::time_point last_report = Clock::now();

  for (Index step = 0; step < o.steps; ++step) {
    const Clock::time_point step_start = Clock::now();
    const std::uint64_t step_seed =
        derive_seed(o.seed, {kTraining, static_cast<std::uint64_t>(step)});
#pragma omp parallel for num_threads(threads) schedule(static)
    for (Index c = 0; c < chunks; ++c) {
      const auto k = static_cast<std::size_t>(c);
      const Chunk& p = pieces[k];
      draw_samples(task, step_seed, p.first, p.count, xd[k].leftCols(p.count * t),
                   yd[k].head(p.count));
      xs[k].leftCols(p.count * t) = xd[k].leftCols(p.count * t).template cast<Scalar>();
      workspaces[k].forward(model, xs[k].data(), p.count, preds[k].data());
      double sse = 0;
      for (Index i = 0; i < p.count; ++i) {
        const Scalar target = (static_cast<Scalar>(yd[k](i)) - mean) / spread;
        const Scalar err = preds[k][static_cast<std::size_t>(i)] - target;
        sse += static_cast<double>(err) * static_cast<double>(err);
        // d(mean squared error)/d(prediction), over the whole batch.
        preds[k][static_cast<std::size_t>(i)] = Scalar(2) * err / static_cast<Scalar>(o.batch);
      }
      chunk_sse[k] = sse;
      std::fill(gradients[k].begin(), gradients[k].end(), Scalar(0));
      workspaces[k].backward(model, preds[k].data(), gradients[k].data());
    }
    AlignedVector<Scalar>& gradient = gradients[0];
    double sse = chunk_sse[0];
    for (Index c = 1; c < chunks; ++c) {
      const AlignedVector<Scalar>& other = gradients[static_cast<std::size_t>(c)];
      for (std::size_t i = 0; i < gradient.size(); ++i) gradient[i] += other[i];
      sse += chunk_sse[static_cast<std::size_t>(c)];
    }
    const double train_nmse = sse / static_cast<double>(o.batch);
    const double norm = clip_gradient_norm(gradient.data(), size, o.clip);
    if (!std::isfinite(train_nmse) || !std::isfinite(norm)) {
      result.status = RunStatus::kDiverged;
      result.diverged_at = step + 1;  // counted from 1, as the curve's steps
      result.final_validation_nmse = std::numeric_limits<double>::quiet_NaN();
      break;
    }
    const double lr = schedule.at(step);
    optimizer.step(model.parameters().data(), gradient.data(), lr);
    result.steps_done = step + 1;
    training_seconds += seconds_since(step_start);

    const bool evaluate_now = (step + 1) % interval == 0 || step + 1 == o.steps;
    if (evaluate_now) {
      const double nmse = evaluate();
      result.curve.push_back({step + 1, lr, train_nmse, nmse});
      if (!std::isfinite(nmse)) {
        result.status = RunStatus::kDiverged;
        result.diverged_at = step + 1;
        result.steps_done = step;  // the steps with a finite outcome, as when the loss fails
        result.final_validation_nmse = std::numeric_limits<double>::quiet_NaN();
        break;
      }
      if (nmse < result.best_validation_nmse) {
        result.best_validation_nmse = nmse;
        result.best_step = step + 1;
      }
      result.final_validation_nmse = nmse;
    }
    if (progress && (evaluate_now || seconds_since(last_report) > 0.25)) {
      last_report = Clock::now();
      progress({step + 1, o.steps, train_nmse, result.best_validation_nmse, seconds_since(start)});
    }
  }
  result.seconds_training = training_seconds;
  result.seconds_total = seconds_since(start);
  return result;
}

}  // namespace

void TrainOptions::validate() const {
  require(steps >= 1 && steps <= limits::kSteps, "the number of steps must be between 1 and " +
                                                     std::to_string(limits::kSteps) + " (got " +
                                                     std::to_string(steps) + ")");
  require(batch >= 1 && batch <= limits::kBatch, "the batch size must be between 1 and " +
                                                     std::to_string(limits::kBatch) + " (got " +
                                                     std::to_string(batch) + ")");
  require(finite_positive(adam.learning_rate), "the learning rate must be positive and finite");
  require(adam.beta1 >= 0 && adam.beta1 < 1, "beta1 must be in [0, 1)");
  require(adam.beta2 >= 0 && adam.beta2 < 1, "beta2 must be in [0, 1)");
  require(finite_positive(adam.epsilon), "the Adam epsilon must be positive");
  require(std::isfinite(adam.weight_decay) && adam.weight_decay >= 0,
          "the weight decay must be zero or positive");
  require(warmup >= -1 && warmup <= steps, "the warm-up must be between 0 and the number of steps");
  require(min_lr_ratio >= 0 && min_lr_ratio <= 1,
          "the final learning-rate ratio must be in [0, 1]");
  require(std::isfinite(clip) && clip >= 0, "the clipping norm must be zero (off) or positive");
  require(eval_every >= 0, "the evaluation interval must be positive");
  require(validation_size >= 2 && validation_size <= limits::kBatch,
          "the validation set needs between 2 and " + std::to_string(limits::kBatch) +
              " sequences");
  require(threads >= 0, "the thread count must be positive (0: all cores)");
  require(chunks >= 1, "the chunk count must be at least 1");
}

Index TrainOptions::warmup_steps() const {
  return warmup >= 0 ? warmup : steps / 50;
}

Index TrainOptions::eval_interval() const {
  return eval_every > 0 ? eval_every : std::max<Index>(1, steps / 20);
}

TrainResult train(const ModelConfig& model, const Task& task, const TrainOptions& options,
                  const ProgressCallback& progress) {
  model.validate();
  options.validate();
  check_training_memory(model, options);
  require(model.tokens == task.tokens(), "the model has T = " + std::to_string(model.tokens) +
                                             " tokens but the task has " +
                                             std::to_string(task.tokens()));
  require(model.token_dim == task.token_dim(),
          "the model expects tokens of dimension d = " + std::to_string(model.token_dim) +
              " but the task's are of dimension " + std::to_string(task.token_dim()));
  return options.precision == Precision::kFloat32 ? run<float>(model, task, options, progress)
                                                  : run<double>(model, task, options, progress);
}

}  // namespace infoflow::numeric
