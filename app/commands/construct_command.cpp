// construct: the engine's plan compiled into weights and measured (docs/constructions.md).

#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "infoflow/construct/construction.hpp"
#include "infoflow/numeric/checkpoint.hpp"
#include "infoflow/theorems/engine.hpp"

#include "commands/commands.hpp"
#include "commands/target_arguments.hpp"

namespace infoflow::app {

namespace {

nlohmann::json to_json(const construct::Construction& c, const construct::ConstructOptions& o) {
  nlohmann::json j;
  j["built"] = c.built;
  j["failure"] = c.built ? nlohmann::json(nullptr) : nlohmann::json(c.failure);
  j["failed_in"] = c.built ? nlohmann::json(nullptr) : nlohmann::json(c.failed_in);
  j["plan"] = c.plan_text;
  j["architecture"] = {{"heads", c.config.heads}, {"E", c.config.embedding},
                       {"d", c.config.token_dim}, {"n", c.config.head_dim},
                       {"T", c.config.tokens},    {"pe", "none"},
                       {"activation", "relu"},    {"layer_norm", false}};
  j["nmse"] = c.built ? nlohmann::json(c.nmse) : nlohmann::json(nullptr);
  j["target_variance"] = c.target_variance;
  j["parameters"] = c.counts.theory();
  j["parameters_total"] = c.counts.total;
  j["parameters_attention"] = c.counts.attention;
  j["beta"] = o.beta;
  j["ffn_width"] = o.ffn_width;
  j["knots"] = c.knots;
  j["ffn_units"] = c.ffn_units;
  j["seed"] = o.seed;
  j["task_seed"] = o.task_seed;
  j["samples"] = o.samples;
  j["steps"] = c.steps;
  nlohmann::json layout = nlohmann::json::array();
  for (const construct::StreamSlot& s : c.layout)
    layout.push_back({{"first", s.first}, {"width", s.width}, {"holds", s.holds}});
  j["stream"] = layout;
  j["seconds"] = c.seconds;
  return j;
}

std::string to_text(const construct::Construction& c, const construct::ConstructOptions& o) {
  std::string out = fmt::format("plan: {}\n", c.plan_text);
  if (!c.built) {
    out += fmt::format("not built ({}): {}\n", c.failed_in, c.failure);
    return out;
  }
  out += fmt::format(
      "NMSE {:.3g} on {} fresh sequences (seed {}, task seed {}; target variance {:.4g})\n",
      c.nmse, o.samples, o.seed, o.task_seed, c.target_variance);
  out += fmt::format(
      "parameters: M = {} (encoder, FFNs and readout MLP, as the theory counts); attention {}; "
      "total {}\n",
      c.counts.theory(), c.counts.attention, c.counts.total);
  out += fmt::format("beta {}, FFN width {} ({} units used at most, {} knots per interpolated "
                     "function at least)\n",
                     o.beta, o.ffn_width, c.ffn_units, c.knots);
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

/// The train command that starts from a written construction: the same model, its options.
std::string starting_hint(const std::string& source, const targets::TargetSpec& spec,
                          const numeric::ModelConfig& m, std::uint64_t task_seed,
                          const std::string& checkpoint) {
  std::string heads;
  for (const long h : m.heads) heads += (heads.empty() ? "" : ",") + std::to_string(h);
  std::string sets;
  for (const auto& [name, value] : spec.set) {
    if (name != "T") sets += fmt::format(" --set {}={}", name, value);
  }
  const std::string target = std::filesystem::exists(source)
                                 ? fmt::format("--target {} --name {}", source, spec.name)
                                 : fmt::format("--formula '{}'", source);
  return fmt::format(
      "checkpoint: {} (train from it: infoflow train {}{} --task-seed {} --T {} --d {} --heads {} "
      "--E {} --head-dim {} --ffn-width {} --readout-width {} --activation relu --pe {} "
      "--scale 1 --checkpoint {})\n",
      checkpoint, target, sets, task_seed, m.tokens, m.token_dim, heads, m.embedding, m.head_dim,
      m.ffn_width, m.readout_width, numeric::to_string(m.positional), checkpoint);
}

}  // namespace

void add_construct(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand(
      "construct",
      "the engine's plan compiled into the weights of its architecture and measured on fresh "
      "inputs, no training, e.g. construct 'min(t) dot(a, x[t])' --heads 1");
  auto t = std::make_shared<session::TargetRequest>();
  auto arch = std::make_shared<ArchitectureArguments>();
  auto options = std::make_shared<construct::ConstructOptions>();
  auto format = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  auto sweep = std::make_shared<bool>(false);
  auto betas = std::make_shared<std::vector<double>>();
  auto widths = std::make_shared<std::vector<long>>();
  auto lengths = std::make_shared<std::vector<long>>();
  auto checkpoint = std::make_shared<std::string>();
  cmd->add_option("target", t->source, "a formula, or a target file (TOML)")->required();
  add_target_options(cmd, *t);
  arch->add(cmd);
  cmd->add_option("--beta", options->beta, "attention scale (softmax near hardmax)")
      ->capture_default_str();
  cmd->add_option("--ffn-width", options->ffn_width,
                  "hidden width W of every FFN and of the readout MLP")
      ->capture_default_str();
  cmd->add_option("--samples", options->samples, "fresh sequences the NMSE is measured on")
      ->capture_default_str();
  cmd->add_option("--seed", options->seed, "seed of the measured sequences")->capture_default_str();
  cmd->add_option("--task-seed", options->task_seed, "seed of the target's parameters (a, A[i])")
      ->capture_default_str();
  cmd->add_flag("--sweep", *sweep,
                "NMSE against parameters over --betas x --widths (and against T over --Ts)");
  cmd->add_option("--betas", *betas, "with --sweep: attention scales")->delimiter(',');
  cmd->add_option("--widths", *widths, "with --sweep: FFN widths")->delimiter(',');
  cmd->add_option("--Ts", *lengths, "with --sweep: sequence lengths")->delimiter(',');
  cmd->add_option("--checkpoint", *checkpoint,
                  "write the built network here, a checkpoint `train --checkpoint` starts from");
  add_format_option(cmd, *format, {"text", "json"});
  add_output_option(cmd, *output);
  cmd->callback([&ctx, t, arch, options, format, output, sweep, betas, widths, lengths, checkpoint] {
    if (arch->heads.empty()) throw InputError("construct needs --heads (the architecture to build)");
    options->validate();
    if (*sweep && !checkpoint->empty())
      throw InputError("--checkpoint writes one construction; a --sweep builds many");
    targets::TargetSpec spec = t->resolve(true).front();
    if (spec.set.count("T") == 0) spec.set["T"] = 8;
    const theorems::Catalogue catalogue = ctx.load();
    theorems::Engine engine(catalogue);
    auto build = [&](const targets::TargetSpec& s, const construct::ConstructOptions& o) {
      const theorems::Target target = theorems::to_target(s);
      const theorems::Plan plan = engine.plan(
          target, theorems::architecture_for(s, arch->embedding, arch->head_dim, arch->heads));
      return construct::construct(s, target, plan, o);
    };
    if (!*sweep) {
      const construct::Construction c = build(spec, *options);
      std::string text = *format == "json" ? to_json(c, *options).dump(2) + "\n" : to_text(c, *options);
      if (c.built && !checkpoint->empty()) {
        numeric::save_checkpoint(*checkpoint, numeric::starting_checkpoint(c.config, c.parameters));
        if (*format == "text") text += starting_hint(t->source, spec, c.config, options->task_seed, *checkpoint);
      }
      emit(text, *output);
      if (!c.built) ctx.exit_code = 1;
      return;
    }
    if (betas->empty()) betas->push_back(options->beta);
    if (widths->empty()) widths->push_back(options->ffn_width);
    if (lengths->empty()) lengths->push_back(spec.set.at("T"));
    std::vector<construct::SweepPoint> points;
    nlohmann::json rows = nlohmann::json::array();
    std::string text = fmt::format("{:>10} {:>8} {:>6} {:>10} {:>6} {:>12}\n", "beta", "width", "T",
                                   "M", "knots", "NMSE");
    for (const long tokens : *lengths) {
      for (const double beta : *betas) {
        for (const long width : *widths) {
          targets::TargetSpec s = spec;
          s.set["T"] = tokens;
          construct::ConstructOptions o = *options;
          o.beta = beta;
          o.ffn_width = width;
          const construct::Construction c = build(s, o);
          construct::SweepPoint p{beta, width, tokens, c.built, c.nmse, c.counts.theory(), c.knots};
          points.push_back(p);
          rows.push_back(to_json(c, o));
          text += c.built ? fmt::format("{:>10} {:>8} {:>6} {:>10} {:>6} {:>12.3g}\n", beta, width,
                                        tokens, p.parameters, p.knots, p.nmse)
                          : fmt::format("{:>10} {:>8} {:>6} {:>10} {:>6} not built: {}\n", beta,
                                        width, tokens, p.parameters, "-", c.failure);
        }
      }
    }
    const std::optional<construct::Slope> slope = construct::fitted_slope(points, options->seed);
    if (slope) {
      text += fmt::format("log NMSE against log M: slope {:.3g} [{:.3g}, {:.3g}] over {} points "
                          "(95 % bootstrap over the points, seed {})\n",
                          slope->slope, slope->low, slope->high, slope->points, options->seed);
    }
    nlohmann::json j = {{"points", rows}};
    j["slope"] = slope ? nlohmann::json{{"slope", slope->slope},
                                         {"low", slope->low},
                                         {"high", slope->high},
                                         {"points", slope->points}}
                       : nlohmann::json(nullptr);
    emit(*format == "json" ? j.dump(2) + "\n" : text, *output);
  });
}

}  // namespace infoflow::app
