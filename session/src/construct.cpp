#include "infoflow/session/construct.hpp"

#include <filesystem>
#include <set>
#include <variant>

#include <fmt/format.h>

#include "infoflow/core/architecture.hpp"
#include "infoflow/core/error.hpp"
#include "infoflow/core/limits.hpp"
#include "infoflow/numeric/run_settings.hpp"

namespace infoflow::session {

namespace {

void check_construction(const TargetRequest& target, const ArchitectureRequest& architecture,
                        const construct::ConstructOptions& options) {
  if (!architecture.heads)
    throw InputError("construct needs --heads (the architecture to build)");
  architecture.check();
  options.validate();
  target.check();
}

}  // namespace

targets::TargetSpec construction_target(const TargetRequest& target,
                                        const ArchitectureRequest& architecture,
                                        const construct::ConstructOptions& options) {
  check_construction(target, architecture, options);
  targets::TargetSpec spec = target.resolve(true).front();
  if (spec.set.count("T") == 0) spec.set["T"] = core::defaults::kTokens;
  return spec;
}

std::uint64_t parse_seed(std::string_view text) {
  return std::get<std::uint64_t>(numeric::parse_setting(*numeric::find_setting("seed"), text));
}

construct::Construction construct(theorems::Engine& engine, const targets::TargetSpec& spec,
                                  const ArchitectureRequest& architecture,
                                  const construct::ConstructOptions& options) {
  if (!architecture.heads)
    throw InputError("construct needs --heads (the architecture to build)");
  options.validate();
  const theorems::Plan plan =
      engine.plan(theorems::to_target(spec), architecture.for_target(spec));
  return construct::construct(spec, plan, options);
}

nlohmann::json construction_json(const construct::Construction& c,
                                 const construct::ConstructOptions& o) {
  nlohmann::json j;
  j["built"] = c.built;
  j["failure"] = c.built ? nlohmann::json(nullptr) : nlohmann::json(c.failure);
  j["failed_in"] =
      c.built ? nlohmann::json(nullptr) : nlohmann::json(construct::to_text(c.status.shortfall));
  j["failed_step"] = c.built ? nlohmann::json(nullptr) : nlohmann::json(c.status.step);
  j["head_dim_needed"] =
      c.head_dim_needed > 0 ? nlohmann::json(c.head_dim_needed) : nlohmann::json(nullptr);
  j["plan"] = c.plan_text;
  j["architecture"] = {{"heads", c.config.heads}, {"E", c.config.embedding},
                       {"d", c.config.token_dim}, {"n", c.config.head_dim},
                       {"T", c.config.tokens},    {"pe", numeric::to_string(c.config.positional)},
                       {"activation", "relu"},    {"layer_norm", false}};
  j["nmse"] = c.built ? nlohmann::json(c.nmse) : nlohmann::json(nullptr);
  j["target_variance"] = c.target_variance;
  j["parameters"] = c.counts.theory();
  j["parameters_total"] = c.counts.total;
  j["parameters_attention"] = c.counts.attention;
  j["beta"] = o.beta;
  j["ffn_width"] = o.ffn_width;
  j["readout_width"] = c.config.readout_width;
  j["encoder"] = numeric::to_string(c.config.encoder);
  j["encoder_width"] = c.config.encoder_hidden();
  j["mask_features"] = o.mask_features;
  j["knots"] = c.knots;
  j["fitted"] = c.fitted;
  j["ffn_units"] = c.ffn_units;
  j["seed"] = o.seed;
  j["task_seed"] = o.task_seed;
  j["samples"] = o.samples;
  j["steps"] = c.steps;
  nlohmann::json layout = nlohmann::json::array();
  for (const construct::StreamSlot& s : c.layout)
    layout.push_back({{"first", s.first}, {"width", s.width}, {"holds", s.holds}});
  j["stream"] = layout;
  // The lowering's passes in the order they run: the registry's listing.
  nlohmann::json passes = nlohmann::json::array();
  for (const construct::LoweringPass& p : construct::lowering_passes())
    passes.push_back({{"name", p.name}, {"per_layer", p.per_layer}, {"does", p.does}});
  j["passes"] = passes;
  j["seconds"] = c.seconds;
  return j;
}

std::string construction_text(const construct::Construction& c,
                              const construct::ConstructOptions& o) {
  std::string out = fmt::format("plan: {}\n", c.plan_text);
  if (!c.built) {
    out += fmt::format("not built ({}): {}\n", construct::to_text(c.status.shortfall), c.failure);
    if (c.head_dim_needed > 0)
      out += fmt::format("that step has room at --head-dim {}\n", c.head_dim_needed);
    return out;
  }
  out += fmt::format(
      "NMSE {:.3g} on {} fresh sequences (seed {}, task seed {}; target variance {:.4g})\n",
      c.nmse, o.samples, o.seed, o.task_seed, c.target_variance);
  out += fmt::format(
      "parameters: M = {} (encoder, FFNs and readout MLP, as the theory counts); attention {}; "
      "total {}\n",
      c.counts.theory(), c.counts.attention, c.counts.total);
  out += fmt::format("beta {}, FFN width {}, readout width {}, {} encoder{} ({} units used at "
                     "most{})\n",
                     o.beta, o.ffn_width, c.config.readout_width, numeric::to_string(c.config.encoder),
                     c.config.encoder_hidden() > 0 ? fmt::format(" of width {}", c.config.encoder_hidden()) : "",
                     c.ffn_units,
                     c.knots > 0 ? fmt::format(", {} knots per interpolated function at least", c.knots)
                                 : "");
  if (c.fitted > 0)
    out += fmt::format("{} function{} fitted by least squares, not written exactly (see the "
                       "steps): the NMSE above is the construction's with the fit's error\n",
                       c.fitted, c.fitted == 1 ? "" : "s");
  out += "steps:\n";
  for (const std::string& s : c.steps) out += "  " + s + "\n";
  out += fmt::format("stream (E = {}):\n", c.config.embedding);
  for (const construct::StreamSlot& s : c.layout) {
    out += s.width == 1 ? fmt::format("  {}: {}\n", s.first, s.holds)
                        : fmt::format("  {}..{}: {}\n", s.first, s.first + s.width - 1, s.holds);
  }
  out += fmt::format("built and measured in {:.2f} s\n", c.seconds);
  return out;
}

std::string training_command(const TargetRequest& target, const targets::TargetSpec& spec,
                             const numeric::ModelConfig& model, std::uint64_t task_seed,
                             const std::string& checkpoint) {
  numeric::RunSettings settings;
  settings.model = model;
  settings.positional = model.positional;
  settings.task.tokens = model.tokens;
  settings.task.token_dim = model.token_dim;
  settings.task.seed = task_seed;
  settings.training.checkpoint = checkpoint;
  std::string command = std::filesystem::exists(target.source)
                            ? fmt::format("infoflow train --target {} --name {}", target.source,
                                          spec.name)
                            : fmt::format("infoflow train --formula '{}'", target.source);
  for (const auto& [name, value] : spec.set) {
    if (name != "T") command += fmt::format(" --set {}={}", name, value);
  }
  static const std::set<std::string_view> kTaskKeys{"T", "d", "task_seed"};
  for (const numeric::Setting& s : numeric::run_settings()) {
    if (s.section == numeric::Section::kModel || kTaskKeys.count(s.name) != 0 ||
        s.name == "checkpoint") {
      const numeric::SettingValue v = s.get(settings);
      if (s.type == numeric::SettingType::kFlag) {
        if (std::get<bool>(v)) command += " " + s.option();
      } else {
        command += fmt::format(" {} {}", s.option(), numeric::setting_text(v));
      }
    }
  }
  return fmt::format("checkpoint: {} (train from it: {})\n", checkpoint, command);
}

namespace {

/// The fit a sweep's shape allows: against M when T is fixed, against T when nothing else
/// varies; none otherwise, or under three built points.
void fit_sweep(const ConstructionSweep& sweep, ConstructionSweepResult& r) {
  const bool along_t = sweep.lengths.size() > 1;
  if (along_t && (sweep.betas.size() > 1 || sweep.widths.size() > 1)) {
    r.no_fit = "the sweep varies T together with beta or the width: sweep one at a time";
    return;
  }
  r.fit_against = along_t ? "T" : "M";
  std::vector<double> xs;
  std::vector<double> ys;
  for (const nlohmann::json& p : r.points) {
    if (!p.at("built").get<bool>()) continue;
    xs.push_back(along_t ? p.at("architecture").at("T").get<double>()
                         : p.at("parameters").get<double>());
    ys.push_back(p.at("nmse").get<double>());
  }
  if (std::set<double>(xs.begin(), xs.end()).size() < 3) {
    const std::size_t distinct = std::set<double>(xs.begin(), xs.end()).size();
    r.no_fit = fmt::format("{} built point{} with distinct {}: a slope needs 3", distinct,
                           distinct == 1 ? "" : "s", r.fit_against);
    r.fit_against.clear();
    return;
  }
  r.fit = numeric::fit_power_law_over_points(xs, ys, r.seed);
}

}  // namespace

ConstructionSweepResult construct_sweep(theorems::Engine& engine, const TargetRequest& target,
                                        const ArchitectureRequest& architecture,
                                        const construct::ConstructOptions& options,
                                        ConstructionSweep sweep) {
  check_construction(target, architecture, options);
  for (const double beta : sweep.betas) {
    construct::ConstructOptions o = options;
    o.beta = beta;
    o.validate();
  }
  for (const long width : sweep.widths) {
    construct::ConstructOptions o = options;
    o.ffn_width = width;
    o.validate();
  }
  for (const long tokens : sweep.lengths) limits::check_in_range(tokens, 1, limits::kTokens, "T");
  const targets::TargetSpec spec = construction_target(target, architecture, options);
  if (sweep.betas.empty()) sweep.betas.push_back(options.beta);
  if (sweep.widths.empty()) sweep.widths.push_back(options.ffn_width);
  if (sweep.lengths.empty()) sweep.lengths.push_back(spec.set.at("T"));
  ConstructionSweepResult r;
  r.seed = options.seed;
  r.text = fmt::format("{:>10} {:>8} {:>6} {:>10} {:>6} {:>12}\n", "beta", "width", "T", "M",
                       "knots", "NMSE");
  for (const long tokens : sweep.lengths) {
    for (const double beta : sweep.betas) {
      for (const long width : sweep.widths) {
        targets::TargetSpec s = spec;
        s.set["T"] = tokens;
        construct::ConstructOptions o = options;
        o.beta = beta;
        o.ffn_width = width;
        const construct::Construction c = construct(engine, s, architecture, o);
        r.points.push_back(construction_json(c, o));
        r.text += c.built ? fmt::format("{:>10} {:>8} {:>6} {:>10} {:>6} {:>12.3g}\n", beta, width,
                                        tokens, c.counts.theory(), c.knots, c.nmse)
                          : fmt::format("{:>10} {:>8} {:>6} {:>10} {:>6} not built: {}\n", beta,
                                        width, tokens, c.counts.theory(), "-", c.failure);
      }
    }
  }
  fit_sweep(sweep, r);
  return r;
}

std::string sweep_text(const ConstructionSweepResult& r) {
  if (!r.fit) return r.text + fmt::format("no slope: {}\n", r.no_fit);
  const numeric::PowerLawFit& f = *r.fit;
  return r.text + fmt::format(
                      "log NMSE against log {}: slope {:.3g} [{:.3g}, {:.3g}] over {} points "
                      "(95 % bootstrap over the points, seed {})\n",
                      r.fit_against, f.slope, f.slope_ci.low, f.slope_ci.high, f.points, r.seed);
}

nlohmann::json sweep_json(const ConstructionSweepResult& r) {
  nlohmann::json j = {{"points", r.points}};
  j["fit"] = r.fit ? nlohmann::json{{"against", r.fit_against},
                                     {"slope", r.fit->slope},
                                     {"low", r.fit->slope_ci.low},
                                     {"high", r.fit->slope_ci.high},
                                     {"points", r.fit->points},
                                     {"seed", r.seed}}
                   : nlohmann::json(nullptr);
  j["no_fit"] = r.fit ? nlohmann::json(nullptr) : nlohmann::json(r.no_fit);
  return j;
}

}  // namespace infoflow::session
