#include "run_key.hpp"

#include <cstdint>

#include <fmt/format.h>

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

}  // namespace

json task_json(const RunConfig& r) {
  json task = {{"name", r.task.name},
               {"T", r.task.tokens},
               {"d", r.task.token_dim},
               {"D", r.task.comparisons},
               {"k", r.task.rank},
               {"T0", r.task.positions},
               {"norm", r.task.norm == NormKind::kSquared ? "squared" : "plain"},
               {"task_seed", r.task.seed}};
  if (!r.formula.empty()) {
    task = {{"formula", r.formula},
            {"bindings", r.bindings},
            {"d", r.task.token_dim},
            {"task_seed", r.task.seed},
            {"inputs", {r.inputs.variance, r.inputs.min_norm, r.inputs.max_norm}}};
  }
  return task;
}

json config_json(const RunConfig& r) {
  const ModelConfig& m = r.model;
  const TrainOptions& t = r.training;
  json config = {{"task", task_json(r)},
          {"model",
           {{"heads", m.heads},
            {"E", m.embedding},
            {"head_dim", m.head_dim},
            {"ffn_width", m.ffn_width},
            {"readout_width", m.readout_width},
            {"activation", to_string(m.activation)},
            {"pe", to_string(m.positional)},
            {"pre_ln", m.pre_layer_norm},
            {"scale", m.attention_scale}}},
          {"training",
           {{"steps", t.steps},
            {"batch", t.batch},
            {"lr", t.adam.learning_rate},
            {"weight_decay", t.adam.weight_decay},
            {"warmup", t.warmup},
            {"min_lr_ratio", t.min_lr_ratio},
            {"clip", t.clip},
            {"eval_every", t.eval_every},
            {"val_size", t.validation_size},
            {"seed", t.seed},
            {"chunks", t.chunks},
            {"precision", to_string(t.precision)}}}};
  // Only where they differ from the defaults, so that the keys of earlier results still hold.
  const TrainOptions defaults;
  json& training = config["training"];
  if (t.max_steps != defaults.max_steps) {
    training["until_plateau"] = t.max_steps;
    // The peak held until the plateau, then a cool-down of a quarter of the steps (train.hpp):
    // runs of the earlier rule, which stopped at the peak, do not share these keys.
    training["cooldown"] = numeric::kCooldownFraction;
  }
  if (t.plateau_tolerance != defaults.plateau_tolerance)
    training["plateau_tolerance"] = t.plateau_tolerance;
  return config;
}

std::string run_key(const RunConfig& r) {
  return fmt::format("{:016x}", fnv1a(config_json(r).dump() + kCodeVersion + build_tag()));
}

}  // namespace infoflow::experiments
