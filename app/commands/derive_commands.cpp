// derive and plan: the InfoFlow engine on a target written as a formula or kept in a file.

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "infoflow/report.hpp"
#include "infoflow/theorems/engine.hpp"

#include "commands/commands.hpp"
#include "commands/target_arguments.hpp"

namespace infoflow::app {

void add_derive(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand(
      "derive",
      "a target's comparison structure, predicted rate, verdict and smallest efficient "
      "architecture, e.g. derive 'min(s != t) dot(x[s], x[t])' --heads 1");
  auto t = std::make_shared<TargetArguments>();
  auto arch = std::make_shared<ArchitectureArguments>();
  auto format = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  cmd->add_option("target", t->source, "a formula, or a target file (TOML)")->required();
  add_target_options(cmd, *t);
  arch->add(cmd);
  // toml: the derived bounds as a catalogue file, for --add.
  add_format_option(cmd, *format, {"text", "latex", "json", "toml"});
  add_output_option(cmd, *output);
  auto latex = std::make_shared<LatexArguments>();
  latex->add_to(cmd);
  cmd->callback([&ctx, t, arch, format, output, latex] {
    latex->check(*format == "latex");
    const std::vector<targets::TargetSpec> specs = t->resolve(false);
    const theorems::Catalogue catalogue = ctx.load();
    theorems::Engine engine(catalogue);
    const std::string unset =
        specs.size() == 1 ? targets::unset_integer_for_conditions(specs.front(), *format == "text")
                          : "";
    if (!unset.empty()) {
      const theorems::Architecture base = theorems::architecture_for(
          specs.front(), arch->embedding, arch->head_dim, std::vector<long>{1});
      emit(report::conditions_text(specs.front(), unset,
                                   theorems::conditions_by_depth(engine, specs.front(), unset, base)),
           *output);
      return;
    }
    std::vector<theorems::Target> targets;
    for (const targets::TargetSpec& s : specs) targets.push_back(theorems::to_target(s));
    std::vector<report::Derivation> ds;
    for (std::size_t i = 0; i < specs.size(); ++i) {
      report::Derivation d;
      d.target = &targets[i];
      // The search keeps the given E and n (n fixed, so any head count is allowed).
      const theorems::Architecture base =
          theorems::architecture_for(specs[i], arch->embedding, arch->head_dim,
                                     arch->heads.empty() ? std::vector<long>{1} : arch->heads);
      if (!arch->heads.empty()) d.plan = engine.plan(targets[i], base);
      d.search = engine.search(targets[i], base);
      ds.push_back(std::move(d));
    }
    if (*format == "toml") {
      emit(report::derived_catalogue_toml(engine, ds), *output);
    } else if (*format == "json") {
      nlohmann::json j = nlohmann::json::array();
      for (const report::Derivation& d : ds) j.push_back(report::to_json(d));
      emit((ds.size() == 1 ? j[0] : j).dump(2) + "\n", *output);
    } else if (*format == "latex") {
      emit(latex->finish(report::derivations_latex(ds, catalogue, latex->options), catalogue),
           *output);
    } else {
      std::string out;
      for (const report::Derivation& d : ds) out += report::derivation_text(d);
      emit(out, *output);
    }
  });
}

void add_plan(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand(
      "plan",
      "the engine's plan, layer by layer: which head does what, the information sets, the "
      "costs, e.g. plan 'sum(i = 1..D) max(s, t) bilinear(A[i], x[s], x[t])' --set D=2 --heads "
      "2,2");
  auto t = std::make_shared<TargetArguments>();
  auto arch = std::make_shared<ArchitectureArguments>();
  auto format = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  cmd->add_option("target", t->source, "a formula, or a target file (TOML)")->required();
  add_target_options(cmd, *t);
  arch->add(cmd);
  add_format_option(cmd, *format, {"text", "json"});
  add_output_option(cmd, *output);
  cmd->callback([&ctx, t, arch, format, output] {
    const targets::TargetSpec spec = t->resolve(true).front();
    const theorems::Catalogue catalogue = ctx.load();
    theorems::Engine engine(catalogue);
    const theorems::Target target = theorems::to_target(spec);
    std::string note;
    std::optional<theorems::Plan> chosen;
    if (arch->heads.empty()) {  // the smallest efficient architecture, if there is one
      theorems::Search s = engine.search(
          target, theorems::architecture_for(spec, arch->embedding, arch->head_dim, {1}));
      chosen = s.smallest;
      note = s.smallest    ? "(no --heads: the smallest efficient architecture)\n"
             : s.undecided ? "(no --heads, and the smallest efficient architecture undecided: one layer, one head)\n"
                           : "(no --heads and no efficient architecture: one layer, one head)\n";
    }
    const theorems::Plan p =
        chosen ? *chosen
               : engine.plan(target, theorems::architecture_for(
                                         spec, arch->embedding, arch->head_dim,
                                         arch->heads.empty() ? std::vector<long>{1} : arch->heads));
    if (*format == "json") {
      nlohmann::json j = report::to_json(p);
      j["target"] = report::to_json(*target.program);
      emit(j.dump(2) + "\n", *output);
    } else {
      emit(note + report::plan_text(target, p), *output);
    }
  });
}

}  // namespace infoflow::app
