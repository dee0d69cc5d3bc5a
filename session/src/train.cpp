#include "infoflow/session/train.hpp"

#include <cmath>

#include <fmt/format.h>

#include "infoflow/core/architecture.hpp"
#include "infoflow/core/atomic_file.hpp"
#include "infoflow/core/error.hpp"
#include "infoflow/experiments/settings_json.hpp"
#include "infoflow/numeric/build.hpp"
#include "infoflow/session/target_request.hpp"
#include "infoflow/targets/evaluator.hpp"

namespace infoflow::session {

namespace {

/// A training task from a formula or a target file: T as given, else the file's `set`, else
/// the default T.
std::unique_ptr<numeric::Task> formula_task(const TrainRequest& r) {
  TargetRequest t;
  t.source = r.formula.empty() ? r.target_file : r.formula;
  t.name = r.target_name;
  t.sets = r.sets;
  if (r.settings.task.token_dim > 0) t.token_dim = r.settings.task.token_dim;  // 0: the target's
  t.file_only = !r.target_file.empty();
  targets::TargetSpec spec = t.resolve(true).front();
  if (r.tokens_given || spec.set.count("T") == 0) spec.set["T"] = r.settings.task.tokens;
  targets::Evaluator evaluator(spec.formula, spec.set, spec.token_dim, r.settings.task.seed);
  return numeric::make_formula_task(
      spec.name, std::move(evaluator),
      numeric::InputDistribution{spec.variance, spec.min_norm, spec.max_norm},
      core::encoding_for(spec.positional));
}

}  // namespace

PreparedRun prepare_training(const TrainRequest& request) {
  const int sources = (request.task.empty() ? 0 : 1) + (request.target_file.empty() ? 0 : 1) +
                      (request.formula.empty() ? 0 : 1);
  if (sources != 1) throw InputError("give exactly one of --task, --target and --formula");
  if (!request.task.empty() && !request.sets.empty()) {
    throw InputError("--set " + request.sets.front() +
                     ": --set gives values to a formula's integers (--formula or --target); "
                     "the built-in task " +
                     request.task + " takes --T, --D, --k or --T0");
  }
  if (!request.task.empty() && !request.target_name.empty())
    throw InputError("--name picks a target of a --target file, not of the task " + request.task);
  PreparedRun run;
  run.settings = request.settings;
  numeric::RunSettings& s = run.settings;
  s.task.name = request.task;
  run.task = request.task.empty() ? formula_task(request) : numeric::make_task(s.task);
  s.model.tokens = run.task->tokens();
  s.model.token_dim = run.task->token_dim();
  s.task.tokens = s.model.tokens;
  s.task.token_dim = s.model.token_dim;
  s.model.positional = s.positional.value_or(run.task->recommended_positional());
  s.positional = s.model.positional;
  s.model.validate();
  // The task's random parameters are not in its description, and the numbers depend on the
  // code version and the build: the tag refuses a checkpoint of another task seed, or one
  // written by another version or build, whose resumed curve would mix two kinds of numbers.
  // (A sweep's checkpoints are filed under its run key, which holds all three already.)
  const numeric::TaskOptions& t = s.task;
  s.training.checkpoint_tag = fmt::format(
      "task_seed={} D={} k={} T0={} norm={} code={} march={} build={}", t.seed, t.comparisons,
      t.rank, t.positions, t.norm == numeric::NormKind::kPlain ? "plain" : "squared",
      numeric::kCodeVersion, numeric::instruction_set(), numeric::build_type());
  s.training.validate();
  // Written at the first checkpoint or the end: a path that cannot be written is refused now.
  if (!s.training.checkpoint.empty()) check_output_path(s.training.checkpoint);
  return run;
}

nlohmann::json training_json(const PreparedRun& run, const numeric::TrainResult& r) {
  using experiments::SettingsForm;
  using numeric::Section;
  // The settings as the run used them: the schedule's and the threads' defaults resolved.
  numeric::RunSettings used = run.settings;
  used.training.warmup = run.settings.training.warmup_steps();
  used.training.eval_every = run.settings.training.eval_interval();
  used.training.threads = r.threads_used;
  nlohmann::json task = experiments::settings_json(used, Section::kTask, SettingsForm::kAll);
  task["name"] = r.task_name;
  task["formula"] = r.task_description;
  nlohmann::json model = experiments::settings_json(used, Section::kModel, SettingsForm::kAll);
  model["L"] = used.model.layers();
  nlohmann::json training =
      experiments::settings_json(used, Section::kTraining, SettingsForm::kAll);
  training["max_steps"] = used.training.budget();
  nlohmann::json curve = nlohmann::json::array();
  for (const numeric::CurvePoint& p : r.curve) {
    curve.push_back({{"step", p.step},
                     {"learning_rate", p.learning_rate},
                     {"train_nmse", p.train_nmse},
                     {"validation_nmse", p.validation_nmse}});
  }
  return {{"task", task},
          {"model", model},
          {"training", training},
          {"parameters",
           {{"total", r.parameters.total},
            {"theory_M", r.parameters.theory()},
            {"encoder", r.parameters.encoder},
            {"attention", r.parameters.attention},
            {"ffn", r.parameters.ffn},
            {"norm", r.parameters.norm},
            {"readout", r.parameters.readout}}},
          {"result",
           {{"status", numeric::to_string(r.status)},
            {"converged", r.status == numeric::RunStatus::kConverged},
            {"steps_done", r.steps_done},
            {"resumed_from", r.resumed_from},
            {"cooldown_start", r.cooldown.start},
            {"diverged_at", r.diverged_at},
            {"best_validation_nmse", r.best_validation_nmse},
            {"best_step", r.best_step},
            {"final_validation_nmse", std::isfinite(r.final_validation_nmse)
                                          ? nlohmann::json(r.final_validation_nmse)
                                          : nlohmann::json(nullptr)},
            {"target_mean", r.target_mean},
            {"target_std", r.target_std}}},
          {"timing",
           {{"seconds_total", r.seconds_total},
            {"seconds_training", r.seconds_training},
            {"ms_per_step", 1e3 * r.seconds_per_step()}}},
          {"curve", curve}};
}

std::string training_summary(const PreparedRun& run, const numeric::TrainResult& r) {
  const numeric::ModelConfig& m = run.settings.model;
  std::string status =
      r.status != numeric::RunStatus::kDiverged
          ? fmt::format("best validation NMSE {:.3e} at step {}, final {:.3e} ({})",
                        r.best_validation_nmse, r.best_step, r.final_validation_nmse,
                        r.status == numeric::RunStatus::kConverged
                            ? "converged"
                            : "budget reached, not converged")
          : fmt::format("DIVERGED at step {} (loss or gradient not finite)", r.diverged_at);
  if (r.cooldown.start > 0)
    status += fmt::format("; cool-down from step {} ({})", r.cooldown.start,
                          r.cooldown.on_plateau ? "plateau" : "cap reached");
  return fmt::format(
      "train {} T={} d={} L={} heads={} E={}: {}; {} parameters (M = {}); {} steps in {:.1f} s "
      "({:.2f} ms/step, {} threads, {}); seed {}\n",
      r.task_name, m.tokens, m.token_dim, m.layers(), m.heads_text(), m.embedding, status,
      r.parameters.total, r.parameters.theory(), r.steps_done, r.seconds_total,
      1e3 * r.seconds_per_step(), r.threads_used,
      numeric::to_string(run.settings.training.precision), run.settings.training.seed);
}

}  // namespace infoflow::session
