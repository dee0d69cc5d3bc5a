#include "infoflow/numeric/tasks.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "infoflow/core/error.hpp"
#include "infoflow/core/limits.hpp"

namespace infoflow::numeric {

std::string InputDistribution::description(Index d) const {
  std::string out = variance == 1.0 ? fmt::format("x(t) ~ N(0, I_{}) i.i.d.", d)
                                    : fmt::format("x(t) ~ N(0, {:g} I_{}) i.i.d.", variance, d);
  if (max_norm > 0)
    out += fmt::format(" with its norm clamped to [{:g}, {:g}]", min_norm, max_norm);
  return out;
}

void Task::sample(Rng& rng, Eigen::Ref<Eigen::MatrixXd> x) const {
  const double sd = std::sqrt(inputs_.variance);
  for (Index j = 0; j < x.cols(); ++j) {
    for (Index i = 0; i < x.rows(); ++i) x(i, j) = sd * rng.normal();
    if (inputs_.max_norm > 0) {
      const double norm = x.col(j).norm();
      if (norm > 0) x.col(j) *= std::clamp(norm, inputs_.min_norm, inputs_.max_norm) / norm;
    }
  }
}

namespace {

Eigen::VectorXd unit_vector(Rng& rng, Index d) {
  Eigen::VectorXd v(d);
  for (Index i = 0; i < d; ++i) v(i) = rng.normal();
  return v / v.norm();
}

/// F = sum_{i=1..D} max_{s,t} x(s)^T A_i x(t), all pairs (s, t) including s = t.
class IntrinsicDimension final : public Task {
 public:
  IntrinsicDimension(const TaskOptions& o, Index d) : Task(o.tokens, d) {
    Rng rng(derive_seed(o.seed, {1}));
    for (Index i = 0; i < o.comparisons; ++i) {
      Eigen::MatrixXd a(d, d);
      for (Index c = 0; c < d; ++c) {
        for (Index r = 0; r < d; ++r) a(r, c) = rng.normal() / std::sqrt(static_cast<double>(d));
      }
      forms_.push_back(a);
    }
  }
  std::string name() const override { return "intrinsic_dim"; }
  std::string description() const override {
    return fmt::format(
        "sum_{{i=1..{}}} max_{{s,t}} x(s)^T A_i x(t); A_i entries N(0, 1/d) from the "
        "task seed; x(t) ~ N(0, I_{}) i.i.d.",
        forms_.size(), token_dim());
  }
  double target(const Eigen::Ref<const Eigen::MatrixXd>& x) const override {
    double sum = 0;
    for (const Eigen::MatrixXd& a : forms_) {
      const Eigen::MatrixXd scores = x.transpose() * (a * x);
      sum += scores.maxCoeff();
    }
    return sum;
  }

 private:
  std::vector<Eigen::MatrixXd> forms_;
};

/// The predecessor's D-retrieval: y = sum_{i=1..D} max_t a_i^T x(t).
class DRetrieval final : public Task {
 public:
  DRetrieval(const TaskOptions& o, Index d) : Task(o.tokens, d), directions_(d, o.comparisons) {
    Rng rng(derive_seed(o.seed, {2}));
    for (Index i = 0; i < o.comparisons; ++i) directions_.col(i) = unit_vector(rng, d);
  }
  std::string name() const override { return "d_retrieval"; }
  std::string description() const override {
    return fmt::format(
        "sum_{{i=1..{}}} max_t a_i^T x(t); a_i random unit vectors from the task "
        "seed; x(t) ~ N(0, I_{}) i.i.d.",
        directions_.cols(), token_dim());
  }
  double target(const Eigen::Ref<const Eigen::MatrixXd>& x) const override {
    const Eigen::MatrixXd scores = directions_.transpose() * x;  // D x T
    return scores.rowwise().maxCoeff().sum();
  }

 private:
  Eigen::MatrixXd directions_;
};

/// Depth separation: F = min_{s != t} <x(s), x(t)>.
class MinInnerProduct final : public Task {
 public:
  MinInnerProduct(const TaskOptions& o, Index d) : Task(o.tokens, d) {}
  std::string name() const override { return "min_inner"; }
  std::string description() const override {
    return fmt::format("min_{{s != t}} <x(s), x(t)>; {}", inputs().description(token_dim()));
  }
  double target(const Eigen::Ref<const Eigen::MatrixXd>& x) const override {
    const Eigen::MatrixXd gram = x.transpose() * x;
    double best = std::numeric_limits<double>::infinity();
    for (Index t = 0; t < gram.cols(); ++t) {
      for (Index s = 0; s < gram.rows(); ++s) {
        if (s != t) best = std::min(best, gram(s, t));
      }
    }
    return best;
  }
};

/// k-th max retrieval: y = b^T x(t_k), t_k the position of the k-th largest score a^T x(t).
class KthMax final : public Task {
 public:
  KthMax(const TaskOptions& o, Index d) : Task(o.tokens, d), rank_(o.rank) {
    Rng rng(derive_seed(o.seed, {3}));
    score_ = unit_vector(rng, d);
    value_ = unit_vector(rng, d);
  }
  std::string name() const override { return "kth_max"; }
  std::string description() const override {
    return fmt::format(
        "b^T x(t_k), t_k the position of the {}-th largest a^T x(t); a, b random "
        "unit vectors from the task seed; x(t) ~ N(0, I_{}) i.i.d.",
        rank_, token_dim());
  }
  double target(const Eigen::Ref<const Eigen::MatrixXd>& x) const override {
    const Eigen::VectorXd scores = x.transpose() * score_;
    std::vector<Index> order(static_cast<std::size_t>(scores.size()));
    std::iota(order.begin(), order.end(), Index{0});
    std::nth_element(order.begin(), order.begin() + (rank_ - 1), order.end(),
                     [&](Index a, Index b) { return scores(a) > scores(b); });
    return value_.dot(x.col(order[static_cast<std::size_t>(rank_ - 1)]));
  }

 private:
  Index rank_;
  Eigen::VectorXd score_;
  Eigen::VectorXd value_;
};

/// Fixed positions: y = ||x(1) + ... + x(T0)||^2.
class FixedPositions final : public Task {
 public:
  FixedPositions(const TaskOptions& o, Index d) : Task(o.tokens, d), positions_(o.positions) {}
  std::string name() const override { return "fixed_positions"; }
  std::string description() const override {
    return fmt::format("||x(1) + ... + x({})||^2; {}", positions_,
                       inputs().description(token_dim()));
  }
  PositionalEncoding recommended_positional() const override {
    return PositionalEncoding::kLearned;
  }
  double target(const Eigen::Ref<const Eigen::MatrixXd>& x) const override {
    return x.leftCols(positions_).rowwise().sum().squaredNorm();
  }

 private:
  Index positions_;
};

/// Triangle centre: min over t1 < t2 < t3 of ||x(t1) + x(t2) + x(t3)|| (squared by default).
class TriangleCentre final : public Task {
 public:
  TriangleCentre(const TaskOptions& o, Index d)
      : Task(o.tokens, d, triangle_inputs()), norm_(o.norm) {}
  static InputDistribution triangle_inputs() { return {2.0, 0.2, 4.0}; }
  std::string name() const override { return "triangle"; }
  std::string description() const override {
    return fmt::format("min_{{t1<t2<t3}} ||x(t1) + x(t2) + x(t3)||{}; {}",
                       norm_ == NormKind::kSquared ? "^2" : "", inputs().description(token_dim()));
  }
  double target(const Eigen::Ref<const Eigen::MatrixXd>& x) const override {
    const Index t = x.cols();
    double best = std::numeric_limits<double>::infinity();
    Eigen::VectorXd pair(x.rows());
    for (Index a = 0; a < t; ++a) {
      for (Index b = a + 1; b < t; ++b) {
        pair = x.col(a) + x.col(b);
        for (Index c = b + 1; c < t; ++c) best = std::min(best, (pair + x.col(c)).squaredNorm());
      }
    }
    return norm_ == NormKind::kSquared ? best : std::sqrt(best);
  }

 private:
  NormKind norm_;
};

/// A target given by a formula of the target language.
class FormulaTask final : public Task {
 public:
  FormulaTask(std::string name, targets::Evaluator evaluator, InputDistribution inputs,
              PositionalEncoding positional)
      : Task(evaluator.tokens(), evaluator.token_dim(), inputs),
        name_(std::move(name)),
        evaluator_(std::move(evaluator)),
        positional_(positional) {}
  std::string name() const override { return name_; }
  std::string description() const override {
    return targets::to_text(evaluator_.formula().root()) + "; " + inputs().description(token_dim());
  }
  PositionalEncoding recommended_positional() const override { return positional_; }
  double target(const Eigen::Ref<const Eigen::MatrixXd>& x) const override { return evaluator_(x); }

 private:
  std::string name_;
  targets::Evaluator evaluator_;
  PositionalEncoding positional_;
};

void require(bool ok, const std::string& message) {
  if (!ok) throw InputError(message);
}

}  // namespace

const std::vector<std::string>& task_names() {
  static const std::vector<std::string> names{"intrinsic_dim", "triangle",        "min_inner",
                                              "kth_max",       "fixed_positions", "d_retrieval"};
  return names;
}

namespace {
/// Checks the options of a built-in task; returns its token dimension.
Index validate_task(const TaskOptions& o) {
  const std::string& n = o.name;
  require(std::find(task_names().begin(), task_names().end(), n) != task_names().end(),
          "unknown task '" + n + "' (known: intrinsic_dim, triangle, min_inner, kth_max, " +
              "fixed_positions, d_retrieval)");
  require(o.tokens >= 1 && o.tokens <= limits::kTokens,
          "T must be between 1 and " + std::to_string(limits::kTokens) + " (got " +
              std::to_string(o.tokens) + ")");
  require(o.token_dim >= 0 && o.token_dim <= limits::kTokenDim,
          "d must be between 1 and " + std::to_string(limits::kTokenDim));
  if (n == "intrinsic_dim" || n == "d_retrieval") {
    require(o.comparisons >= 1 && o.comparisons <= limits::kTaskSize,
            n + ": D must be between 1 and " + std::to_string(limits::kTaskSize) + " (got " +
                std::to_string(o.comparisons) + ")");
  } else if (n == "triangle") {
    require(o.tokens >= 3, "triangle: T must be at least 3 (got " + std::to_string(o.tokens) + ")");
  } else if (n == "min_inner") {
    require(o.tokens >= 2,
            "min_inner: T must be at least 2 (got " + std::to_string(o.tokens) + ")");
  } else if (n == "kth_max") {
    require(o.rank >= 1 && o.rank <= o.tokens,
            "kth_max: k must be between 1 and T = " + std::to_string(o.tokens) + " (got " +
                std::to_string(o.rank) + ")");
  } else {
    require(o.positions >= 1 && o.positions <= o.tokens,
            "fixed_positions: T0 must be between 1 and T = " + std::to_string(o.tokens) + " (got " +
                std::to_string(o.positions) + ")");
  }
  return o.token_dim > 0 ? o.token_dim : (n == "triangle" ? 2 : 4);
}
}  // namespace

std::unique_ptr<Task> make_task(const TaskOptions& o) {
  const Index d = validate_task(o);
  const std::string& n = o.name;
  if (n == "intrinsic_dim") return std::make_unique<IntrinsicDimension>(o, d);
  if (n == "d_retrieval") return std::make_unique<DRetrieval>(o, d);
  if (n == "triangle") return std::make_unique<TriangleCentre>(o, d);
  if (n == "min_inner") return std::make_unique<MinInnerProduct>(o, d);
  if (n == "kth_max") return std::make_unique<KthMax>(o, d);
  return std::make_unique<FixedPositions>(o, d);
}

TaskFormula formula_of(const TaskOptions& o) {
  TaskFormula f;
  f.token_dim = validate_task(o);
  f.bindings = {{"T", o.tokens}};
  const std::string& n = o.name;
  if (n == "intrinsic_dim") {
    f.text = "sum(i = 1..D) max(s, t) bilinear(A[i], x[s], x[t])";
    f.bindings["D"] = o.comparisons;
  } else if (n == "d_retrieval") {
    f.text = "sum(i = 1..D) max(t) dot(a[i], x[t])";
    f.bindings["D"] = o.comparisons;
  } else if (n == "triangle") {
    f.text = o.norm == NormKind::kSquared ? "min(t1 < t2 < t3) sqnorm(x[t1] + x[t2] + x[t3])"
                                          : "min(t1 < t2 < t3) norm(x[t1] + x[t2] + x[t3])";
    f.inputs = TriangleCentre::triangle_inputs();
  } else if (n == "min_inner") {
    f.text = "min(s != t) dot(x[s], x[t])";
  } else if (n == "kth_max") {
    f.text = "kth(k, t by dot(a, x[t])) dot(b, x[t])";
    f.bindings["k"] = o.rank;
  } else {
    f.text = "sqnorm(sum(p = 1..T0) x[p])";
    f.bindings["T0"] = o.positions;
  }
  return f;
}

std::unique_ptr<Task> make_formula_task(std::string name, targets::Evaluator evaluator,
                                        InputDistribution inputs,
                                        std::optional<PositionalEncoding> positional) {
  if (!positional) {  // positions can only be found with an encoding
    positional = evaluator.formula().reads_positions() ? PositionalEncoding::kLearned
                                                       : PositionalEncoding::kNone;
  }
  return std::make_unique<FormulaTask>(std::move(name), std::move(evaluator), inputs, *positional);
}

void draw_samples(const Task& task, std::uint64_t seed, Index first, Index count,
                  Eigen::Ref<Eigen::MatrixXd> x, Eigen::Ref<Eigen::VectorXd> y) {
  const Index t = task.tokens();
  for (Index i = 0; i < count; ++i) {
    Rng rng(derive_seed(seed, {static_cast<std::uint64_t>(first + i)}));
    task.sample(rng, x.middleCols(i * t, t));
    y(i) = task.target(x.middleCols(i * t, t));
  }
}

}  // namespace infoflow::numeric
