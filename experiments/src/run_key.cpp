#include "run_key.hpp"

#include <cstdint>

#include <fmt/format.h>

#include "infoflow/experiments/settings_json.hpp"
#include "infoflow/numeric/build.hpp"

namespace infoflow::experiments {

using namespace numeric;  // the configuration types a run is made of
using nlohmann::json;

namespace {

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

/// The run's settings as the vocabulary holds them (its positional encoding resolved).
RunSettings settings_of(const RunConfig& r) {
  return RunSettings{r.task, r.model, r.training, {}};
}

}  // namespace

json task_json(const RunConfig& r) {
  if (r.formula.empty()) {
    json task = settings_json(settings_of(r), Section::kTask, SettingsForm::kRunKey);
    task["name"] = r.task.name;
    return task;
  }
  return {{"formula", r.formula},
          {"bindings", r.bindings},
          {"d", r.task.token_dim},
          {"task_seed", r.task.seed},
          {"inputs", {r.inputs.variance, r.inputs.min_norm, r.inputs.max_norm}}};
}

json config_json(const RunConfig& r) {
  const RunSettings settings = settings_of(r);
  json config = {{"task", task_json(r)},
                 {"model", settings_json(settings, Section::kModel, SettingsForm::kRunKey)},
                 {"training", settings_json(settings, Section::kTraining, SettingsForm::kRunKey)}};
  // The peak held until the plateau, then a cool-down of a quarter of the steps (train.hpp):
  // runs of the earlier rule, which stopped at the peak, do not share these keys.
  if (r.training.max_steps != TrainOptions{}.max_steps)
    config["training"]["cooldown"] = numeric::kCooldownFraction;
  return config;
}

std::string run_key(const RunConfig& r) {
  return fmt::format("{:016x}", fnv1a(config_json(r).dump() + kCodeVersion + build_tag()));
}

}  // namespace infoflow::experiments
