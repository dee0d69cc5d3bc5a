// derive and plan: the InfoFlow engine on a target written as a formula or kept in a file; passes:
// the engine's passes in the order it runs them.

#include "infoflow/report.hpp"
#include "infoflow/session/derive.hpp"
#include "infoflow/session/plan.hpp"

#include "commands/commands.hpp"
#include "commands/progress_line.hpp"
#include "commands/target_arguments.hpp"

namespace infoflow::app {

void add_derive(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand(
      "derive",
      "a target's comparison structure, predicted rate, verdict and smallest efficient "
      "architecture, e.g. derive 'min(s != t) dot(x[s], x[t])' --heads 1");
  auto t = std::make_shared<session::TargetRequest>();
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
    const theorems::Catalogue catalogue = ctx.load();
    theorems::Engine engine(catalogue);
    const session::Derived d = [&] {
      const ProgressLine progress("derive");
      return session::derive(engine, *t, arch->request(), *format == "text");
    }();
    if (!d.unset.empty() || *format == "text") {
      emit(session::derived_text(d), *output);
    } else if (*format == "toml") {
      emit(report::derived_catalogue_toml(engine, d.derivations), *output);
    } else if (*format == "json") {
      emit(session::derived_json(d).dump(2) + "\n", *output);
    } else {
      emit(latex->finish(report::derivations_latex(d.derivations, catalogue, latex->options),
                         catalogue),
           *output);
    }
  });
}

void add_plan(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand(
      "plan",
      "the engine's plan, layer by layer: which head does what, the information sets, the "
      "costs, e.g. plan 'sum(i = 1..D) max(s, t) bilinear(A[i], x[s], x[t])' --set D=2 --heads "
      "2,2");
  auto t = std::make_shared<session::TargetRequest>();
  auto arch = std::make_shared<ArchitectureArguments>();
  auto format = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  cmd->add_option("target", t->source, "a formula, or a target file (TOML)")->required();
  add_target_options(cmd, *t);
  arch->add(cmd);
  add_format_option(cmd, *format, {"text", "json"});
  add_output_option(cmd, *output);
  cmd->callback([&ctx, t, arch, format, output] {
    const theorems::Catalogue catalogue = ctx.load();
    theorems::Engine engine(catalogue);
    const session::Planned p = [&] {
      const ProgressLine progress("plan");
      return session::plan(engine, *t, arch->request());
    }();
    emit(*format == "json" ? session::planned_json(p).dump(2) + "\n" : session::planned_text(p),
         *output);
  });
}

void add_passes(CLI::App& app, Context& /*ctx*/) {
  CLI::App* cmd = app.add_subcommand(
      "passes", "the InfoFlow engine's passes, in the order it runs them, each with its rule");
  cmd->callback([] { emit(theorems::passes_text(), ""); });
}

}  // namespace infoflow::app
