#include "infoflow/numeric/tasks.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "infoflow/core/error.hpp"
#include "infoflow/core/limits.hpp"
#include "infoflow/targets/target_file.hpp"

namespace infoflow::numeric {

std::string InputDistribution::description(Index d) const {
  std::string out = variance == 1.0 ? fmt::format("x(t) ~ N(0, I_{}) i.i.d.", d)
                                    : fmt::format("x(t) ~ N(0, {:g} I_{}) i.i.d.", variance, d);
  if (max_norm > 0)
    out += fmt::format(" with its norm clamped to [{:g}, {:g}]", min_norm, max_norm);
  return out;
}

Task::Task(std::string name, std::string description, targets::Evaluator evaluator,
           InputDistribution inputs, PositionalEncoding positional)
    : name_(std::move(name)),
      description_(std::move(description)),
      evaluator_(std::move(evaluator)),
      inputs_(inputs),
      positional_(positional) {}

Task::~Task() = default;

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

void require(bool ok, const std::string& message) {
  if (!ok) throw InputError(message);
}

const targets::TargetSpec* builtin(const std::string& name) {
  for (const targets::TargetSpec& t : targets::builtin_targets())
    if (t.task && t.name == name) return &t;
  return nullptr;
}

/// The task's limits on its integers, with messages that name the task and the value.
void check_limits(const std::string& task, const targets::TaskSpec& spec,
                  const targets::Bindings& values) {
  for (const auto& [name, limit] : spec.limits) {
    const long v = values.at(name);
    const std::string got = " (got " + std::to_string(v) + ")";
    if (limit.high.empty()) {
      require(v >= limit.low,
              task + ": " + name + " must be at least " + std::to_string(limit.low) + got);
      continue;
    }
    // An integer or a name (targets::parse_targets checks which); a name the task lacks is refused.
    const auto named = values.find(limit.high);
    long high = 0;
    if (named != values.end()) {
      high = named->second;
    } else {
      const char* end = limit.high.data() + limit.high.size();
      const auto [at, error] = std::from_chars(limit.high.data(), end, high);
      require(error == std::errc() && at == end,
              task + ": the limit of " + name + " names no integer of the task: " + limit.high);
    }
    require(v >= limit.low && v <= high,
            task + ": " + name + " must be between " + std::to_string(limit.low) + " and " +
                limit.high + (named != values.end() ? " = " + std::to_string(high) : "") + got);
  }
}

/// The description with ${NAME} replaced by the task's values.
std::string describe(std::string text, const targets::Bindings& values, Index d,
                     const InputDistribution& inputs) {
  auto replace = [&text](const std::string& key, const std::string& value) {
    for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at))
      text.replace(at, key.size(), value);
  };
  for (const auto& [name, v] : values) replace("${" + name + "}", std::to_string(v));
  replace("${d}", std::to_string(d));
  replace("${inputs}", inputs.description(d));
  return text;
}

}  // namespace

const std::vector<std::string>& task_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const targets::TargetSpec& t : targets::builtin_targets())
      if (t.task) out.push_back(t.name);
    return out;
  }();
  return names;
}

namespace {

/// A built-in task's entry and formula, its options validated.
struct Builtin {
  const targets::TargetSpec* spec = nullptr;
  const targets::Formula* formula = nullptr;
  std::string description;  ///< unfilled
  targets::Bindings values;
};

Builtin resolve(const TaskOptions& o) {
  Builtin b;
  b.spec = builtin(o.name);
  require(b.spec != nullptr,
          fmt::format("unknown task '{}' (known: {})", o.name, fmt::join(task_names(), ", ")));
  require(o.tokens >= 1 && o.tokens <= limits::kTokens,
          "T must be between 1 and " + std::to_string(limits::kTokens) + " (got " +
              std::to_string(o.tokens) + ")");
  require(o.token_dim >= 0 && o.token_dim <= limits::kTokenDim,
          "d must be between 1 and " + std::to_string(limits::kTokenDim));
  b.values = {{"T", o.tokens}, {"D", o.comparisons}, {"k", o.rank}, {"T0", o.positions}};
  const targets::TaskSpec& task = *b.spec->task;
  check_limits(o.name, task, b.values);
  const bool plain = o.norm == NormKind::kPlain && task.plain_norm.has_value();
  b.formula = plain ? &*task.plain_norm : &b.spec->formula;
  b.description = plain ? task.plain_norm_description : task.description;
  return b;
}

}  // namespace

TaskFormula formula_of(const TaskOptions& o) {
  const Builtin b = resolve(o);
  TaskFormula f{b.formula->text(), {{"T", o.tokens}}};
  for (const std::string& name : b.formula->free_integers()) f.bindings[name] = b.values.at(name);
  return f;
}

std::unique_ptr<Task> make_task(const TaskOptions& o) {
  const Builtin b = resolve(o);
  const Index d = o.token_dim > 0 ? o.token_dim : b.spec->token_dim;
  const InputDistribution inputs{b.spec->variance, b.spec->min_norm, b.spec->max_norm};
  const targets::TaskSpec& task = *b.spec->task;
  return std::make_unique<Task>(
      o.name, describe(b.description, b.values, d, inputs),
      targets::Evaluator(*b.formula, b.values, d, o.seed, task.summation), inputs,
      task.positional ? PositionalEncoding::kLearned : PositionalEncoding::kNone);
}

std::unique_ptr<Task> make_formula_task(std::string name, targets::Evaluator evaluator,
                                        InputDistribution inputs,
                                        std::optional<PositionalEncoding> positional) {
  if (!positional) {  // positions can only be found with an encoding
    positional = evaluator.formula().reads_positions() ? PositionalEncoding::kLearned
                                                       : PositionalEncoding::kNone;
  }
  std::string description = targets::to_text(evaluator.formula().root()) + "; " +
                            inputs.description(evaluator.token_dim());
  return std::make_unique<Task>(std::move(name), std::move(description), std::move(evaluator),
                                inputs, *positional);
}

void draw_samples(const Task& task, std::uint64_t seed, Index first, Index count,
                  Eigen::Ref<Eigen::MatrixXd> x, Eigen::Ref<Eigen::VectorXd> y) {
  const Index t = task.tokens();
  for (Index i = 0; i < count; ++i) {
    Rng rng(derive_seed(seed, {static_cast<std::uint64_t>(first + i)}));
    task.sample(rng, x.middleCols(i * t, t));
  }
  task.targets(x.leftCols(count * t), y.head(count));
}

}  // namespace infoflow::numeric
