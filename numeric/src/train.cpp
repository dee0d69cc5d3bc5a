#include "infoflow/numeric/train.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>

#include <fmt/format.h>

#include "infoflow/core/error.hpp"
#include "infoflow/core/limits.hpp"
#include "infoflow/numeric/checkpoint.hpp"
#include "infoflow/numeric/memory.hpp"
#include "infoflow/numeric/transformer.hpp"

#include "capacity.hpp"

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
  switch (s) {
    case RunStatus::kConverged:
      return "converged";
    case RunStatus::kBudgetReached:
      return "budget_reached";
    case RunStatus::kDiverged:
      return "diverged";
  }
  return "";
}

RunStatus parse_run_status(std::string_view text) {
  if (text == "converged") return RunStatus::kConverged;
  if (text == "budget_reached" || text == "completed") return RunStatus::kBudgetReached;
  if (text == "diverged") return RunStatus::kDiverged;
  throw InputError("unknown run status '" + std::string(text) +
                   "' (expected converged, budget_reached or diverged)");
}

bool plateaued(std::span<const CurvePoint> curve, double tolerance) {
  if (curve.empty()) return false;
  const Index last = curve.back().step;
  double early = std::numeric_limits<double>::infinity();
  double best = std::numeric_limits<double>::infinity();
  for (const CurvePoint& p : curve) {
    best = std::min(best, p.validation_nmse);
    if (4 * p.step <= 3 * last) early = std::min(early, p.validation_nmse);
  }
  return std::isfinite(early) && early - best < tolerance * early;
}

Cooldown cooldown_at(std::span<const CurvePoint> curve, const TrainOptions& o) {
  if (o.max_steps == 0 || curve.empty()) return {};
  const Index step = curve.back().step;
  if (step > o.cooldown_cap()) return {};
  const bool on_plateau = step >= o.steps && plateaued(curve, o.plateau_tolerance);
  if (!on_plateau && step != o.cooldown_cap()) return {};
  const auto length = static_cast<Index>(std::ceil(kCooldownFraction * static_cast<double>(step)));
  return {step, std::min(o.max_steps, step + std::max<Index>(1, length)), on_plateau};
}

Cooldown cooldown_of(std::span<const CurvePoint> curve, const TrainOptions& o) {
  for (std::size_t i = 0; i < curve.size(); ++i) {
    const Cooldown c = cooldown_at(curve.first(i + 1), o);
    if (c.start > 0) return c;
  }
  return {};
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

/// Everything that decides a run's numbers, so that a checkpoint is only resumed by its own run.
std::string fingerprint(const ModelConfig& m, const Task& task, const TrainOptions& o,
                        Index scalar_bytes) {
  return fmt::format(
      "{}|{}|{}|steps={} "
      "max={} batch={} lr={:a} b1={:a} b2={:a} eps={:a} wd={:a} warmup={} min={:a} clip={:a} "
      "eval={} val={} seed={} chunks={} bytes={} plateau={:a}{}|{}",
      task.name(), task.description(), model_fingerprint(m), o.steps, o.max_steps, o.batch, o.adam.learning_rate,
      o.adam.beta1, o.adam.beta2, o.adam.epsilon, o.adam.weight_decay, o.warmup_steps(),
      o.min_lr_ratio, o.clip, o.eval_interval(), o.validation_size, o.seed, o.chunks, scalar_bytes,
      o.plateau_tolerance, o.max_steps > 0 ? fmt::format(" cooldown={:a}", kCooldownFraction) : "",
      o.checkpoint_tag);
}

/// A run starting from a model with no training (starting_checkpoint): its parameters, with
/// the readout's output in the run's standardised units ((y - mean) / spread, as train fits).
template <class Scalar>
void start_from(const Checkpoint& c, const ModelConfig& config, Scalar spread, Scalar mean,
                Transformer<Scalar>& model, const std::filesystem::path& path) {
  require(c.fingerprint == starting_checkpoint(config, {}).fingerprint,
          "the checkpoint " + path.string() + " holds a model of another shape: " +
              c.fingerprint.substr(c.fingerprint.find('|') + 1) + ", and this run's is " +
              model_fingerprint(config));
  const Index size = model.layout().size();
  require(c.scalar_bytes == 8 && c.parameters.size() == static_cast<std::size_t>(size) * 8,
          "the checkpoint " + path.string() + " has the wrong number of parameters");
  std::vector<double> values(static_cast<std::size_t>(size));
  std::memcpy(values.data(), c.parameters.data(), c.parameters.size());
  for (Index i = 0; i < size; ++i)
    model.parameters()[static_cast<std::size_t>(i)] = static_cast<Scalar>(values[static_cast<std::size_t>(i)]);
  MatrixMap<Scalar> w2 = model.tensor("readout.w2");
  MatrixMap<Scalar> b2 = model.tensor("readout.b2");
  w2 /= spread;
  b2(0, 0) = (b2(0, 0) - mean) / spread;
}

template <class Scalar>
std::vector<unsigned char> raw(const Scalar* data, Index count) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(data);
  return std::vector<unsigned char>(bytes, bytes + count * static_cast<Index>(sizeof(Scalar)));
}

template <class Scalar>
TrainResult run(const ModelConfig& config, const Task& task, const TrainOptions& o,
                const ProgressCallback& progress) {
  const Clock::time_point start = Clock::now();
  TrainResult result;
  result.task_name = task.name();
  result.task_description = task.description();
  Transformer<Scalar> model(config);
  model.initialize(initialization_seed(o.seed));
  result.parameters = model.layout().count();

  const Index t = task.tokens();
  const Index d = task.token_dim();
  const Index chunks = std::min(o.chunks, o.batch);
  const std::vector<Chunk> pieces = cut(o.batch, chunks);
  const Index chunk_size = pieces.front().count;
  const Index capacity = workspace_capacity<Scalar>(config, chunk_size);
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
  require(validation_y.allFinite(),
          "the task's target is not a finite number on some validation sequences (a log or sqrt "
          "of a negative value, a division by zero, an overflow)");
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
                                  Eigen::MatrixXd(d, chunk_size * t));
  std::vector<Eigen::VectorXd> yd(static_cast<std::size_t>(chunks), Eigen::VectorXd(chunk_size));
  std::vector<Matrix<Scalar>> xs(static_cast<std::size_t>(chunks),
                                 Matrix<Scalar>(d, chunk_size * t));
  std::vector<AlignedVector<Scalar>> preds(
      static_cast<std::size_t>(chunks), AlignedVector<Scalar>(static_cast<std::size_t>(chunk_size)));
  std::vector<double> chunk_sse(static_cast<std::size_t>(chunks));

  AdamW<Scalar> optimizer(model.layout(), o.adam);
  // Training until the plateau holds the peak (hold = budget) until the cool-down is known.
  const bool until_plateau = o.max_steps > 0;
  const Index budget = o.budget();
  Schedule schedule{o.adam.learning_rate, o.warmup_steps(), budget, o.min_lr_ratio,
                    until_plateau ? budget : 0};
  Index end = budget;
  auto start_cooldown = [&](const Cooldown& c) {
    result.cooldown = c;
    if (c.start == 0) return;
    schedule.hold = c.start;
    schedule.total = c.end;
    end = c.end;
  };
  const Index interval = o.eval_interval();
  result.best_validation_nmse = std::numeric_limits<double>::infinity();
  double training_seconds = 0;
  double earlier_seconds = 0;  // of the invocations before a resume
  Clock::time_point last_report = Clock::now();

  const std::string print = fingerprint(config, task, o, sizeof(Scalar));
  Index first_step = 0;
  bool finished = false;
  if (!o.checkpoint.empty() && std::filesystem::exists(o.checkpoint)) {
    const Checkpoint c = load_checkpoint(o.checkpoint);
    if (is_starting_checkpoint(c)) {
      start_from(c, config, spread, mean, model, o.checkpoint);
    } else {
    require(c.fingerprint == print,
            "the checkpoint " + o.checkpoint.string() +
                " belongs to another configuration (model, task, training settings, task seed, "
                "code version or build)");
    require(c.parameters.size() == static_cast<std::size_t>(size) * sizeof(Scalar) &&
                c.first_moment.size() == c.parameters.size() &&
                c.second_moment.size() == c.parameters.size(),
            "the checkpoint " + o.checkpoint.string() + " has the wrong number of parameters");
    std::memcpy(model.parameters().data(), c.parameters.data(), c.parameters.size());
    AlignedVector<Scalar> m(static_cast<std::size_t>(size));
    AlignedVector<Scalar> v(static_cast<std::size_t>(size));
    std::memcpy(m.data(), c.first_moment.data(), c.first_moment.size());
    std::memcpy(v.data(), c.second_moment.data(), c.second_moment.size());
    optimizer.restore(m.data(), v.data(), c.optimizer_steps);
    result.curve = c.curve;
    result.best_validation_nmse = c.best_validation_nmse;
    result.best_step = c.best_step;
    result.final_validation_nmse = c.final_validation_nmse;
    result.steps_done = c.steps_done;
    result.resumed_from = c.steps_done;
    result.status = c.status;
    training_seconds = c.seconds_training;
    earlier_seconds = c.seconds_total;
    first_step = c.steps_done;
    finished = c.finished;
    start_cooldown(cooldown_of(result.curve, o));
    }
  }
  auto save = [&](bool done) {
    Checkpoint c;
    c.fingerprint = print;
    c.steps_done = result.steps_done;
    c.finished = done;
    c.status = result.status;
    c.scalar_bytes = static_cast<Index>(sizeof(Scalar));
    c.optimizer_steps = optimizer.steps_taken();
    c.parameters = raw(model.parameters().data(), size);
    c.first_moment = raw(optimizer.first_moment(), size);
    c.second_moment = raw(optimizer.second_moment(), size);
    c.curve = result.curve;
    c.best_validation_nmse = result.best_validation_nmse;
    c.best_step = result.best_step;
    c.final_validation_nmse = result.final_validation_nmse;
    c.seconds_training = training_seconds;
    c.seconds_total = earlier_seconds + seconds_since(start);
    save_checkpoint(o.checkpoint, c);
  };

  for (Index step = first_step; step < end && !finished; ++step) {
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
      std::fill(gradients[k].begin(), gradients[k].end(), Scalar(0));
      double sse = 0;
      // The chunk goes through its workspace `capacity` sequences at a time (capacity.hpp).
      for (Index first = 0; first < p.count; first += capacity) {
        const Index count = std::min(capacity, p.count - first);
        Scalar* pred = preds[k].data() + first;
        workspaces[k].forward(model, xs[k].data() + first * t * d, count, pred);
        for (Index i = 0; i < count; ++i) {
          const Scalar target = (static_cast<Scalar>(yd[k](first + i)) - mean) / spread;
          const Scalar err = pred[i] - target;
          sse += static_cast<double>(err) * static_cast<double>(err);
          // d(mean squared error)/d(prediction), over the whole batch.
          pred[i] = Scalar(2) * err / static_cast<Scalar>(o.batch);
        }
        workspaces[k].backward(model, pred, gradients[k].data());
      }
      chunk_sse[k] = sse;
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

    const bool at_cap = until_plateau && result.cooldown.start == 0 && step + 1 == o.cooldown_cap();
    const bool evaluate_now = (step + 1) % interval == 0 || step + 1 == end || at_cap;
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
      if (until_plateau && result.cooldown.start == 0) start_cooldown(cooldown_at(result.curve, o));
    }
    if (progress && (evaluate_now || seconds_since(last_report) > 0.25)) {
      last_report = Clock::now();
      progress({step + 1, end, train_nmse, result.best_validation_nmse, seconds_since(start)});
    }
    if (!o.checkpoint.empty() && step + 1 < end && o.checkpoint_every > 0 &&
        (step + 1) % o.checkpoint_every == 0) {
      save(false);
    }
  }
  if (result.status != RunStatus::kDiverged) {
    const bool converged = until_plateau ? result.cooldown.on_plateau && result.steps_done == end
                                         : plateaued(result.curve, o.plateau_tolerance);
    result.status = converged ? RunStatus::kConverged : RunStatus::kBudgetReached;
    if (!o.checkpoint.empty()) save(true);
  }
  result.seconds_training = training_seconds;
  result.seconds_total = earlier_seconds + seconds_since(start);
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
  require(
      validation_size >= 2 && validation_size <= limits::kBatch,
      "the validation set needs between 2 and " + std::to_string(limits::kBatch) + " sequences");
  require(threads >= 0, "the thread count must be positive (0: all cores)");
  require(chunks >= 1, "the chunk count must be at least 1");
  require(std::isfinite(plateau_tolerance) && plateau_tolerance >= 0,
          "the plateau tolerance must be zero or positive");
  require(max_steps >= 0 && max_steps <= limits::kSteps,
          "the maximum budget (--until-plateau) must be between 0 (off) and " +
              std::to_string(limits::kSteps) + " (got " + std::to_string(max_steps) + ")");
  require(max_steps == 0 || cooldown_cap() >= steps,
          "the maximum budget (--until-plateau) must leave room for a cool-down after the " +
              std::to_string(steps) + " steps: at least " +
              std::to_string(static_cast<Index>(
                  std::ceil((1 + kCooldownFraction) * static_cast<double>(steps)))) +
              " (got " + std::to_string(max_steps) + ")");
  require(checkpoint_every >= 0, "the checkpoint interval must be zero (off) or positive");
}

Index TrainOptions::warmup_steps() const {
  return warmup >= 0 ? warmup : steps / 50;
}

Index TrainOptions::budget() const {
  return max_steps > 0 ? max_steps : steps;
}

Index TrainOptions::cooldown_cap() const {
  return static_cast<Index>(std::floor(static_cast<double>(max_steps) / (1 + kCooldownFraction)));
}

Index TrainOptions::eval_interval() const {
  return eval_every > 0 ? eval_every : std::max<Index>(1, steps / 20);
}

std::uint64_t initialization_seed(std::uint64_t run_seed) {
  return derive_seed(run_seed, {kInit});
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
