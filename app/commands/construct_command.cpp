// construct: the engine's plan compiled into weights and measured (docs/constructions.md).

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "infoflow/numeric/checkpoint.hpp"
#include "infoflow/session/construct.hpp"

#include "commands/commands.hpp"
#include "commands/progress_line.hpp"
#include "commands/target_arguments.hpp"

namespace infoflow::app {

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
  auto sweep = std::make_shared<session::ConstructionSweep>();
  auto sweeping = std::make_shared<bool>(false);
  auto checkpoint = std::make_shared<std::string>();
  cmd->add_option("target", t->source, "a formula, or a target file (TOML)")->required();
  add_target_options(cmd, *t);
  arch->add(cmd);
  cmd->add_option("--beta", options->beta, "attention scale (softmax near hardmax)")
      ->capture_default_str();
  cmd->add_option("--ffn-width", options->ffn_width,
                  "hidden width W of every FFN and of the readout MLP")
      ->capture_default_str();
  cmd->add_option("--readout-width", options->readout_width,
                  "hidden width of the readout MLP (0: the FFN width)")
      ->capture_default_str();
  cmd->add_option("--encoder-width", options->encoder_width,
                  "hidden width of the MLP encoder, used where layer 1 reads a token-wise feature "
                  "that is not linear in x (0: the FFN width)")
      ->capture_default_str();
  cmd->add_option("--mask-features", options->mask_features,
                  "content features of a mask without positions (s != t): hat functions of one "
                  "projection of the token, a stream coordinate and a key dimension each; more "
                  "make the mask's error rarer")
      ->capture_default_str();
  cmd->add_option("--samples", options->samples, "fresh sequences the NMSE is measured on")
      ->capture_default_str();
  // Seeds by train's own parser (a sign is refused, not wrapped around), as Python's.
  cmd->add_option_function<std::string>(
         "--seed", [options](const std::string& s) { options->seed = session::parse_seed(s); },
         "seed of the measured sequences")
      ->type_name("SEED")
      ->default_str(std::to_string(options->seed));
  cmd->add_option_function<std::string>(
         "--task-seed",
         [options](const std::string& s) { options->task_seed = session::parse_seed(s); },
         "seed of the target's parameters (a, A[i])")
      ->type_name("SEED")
      ->default_str(std::to_string(options->task_seed));
  cmd->add_flag("--sweep", *sweeping,
                "every combination of --betas, --widths and --Ts, with the slope of log NMSE "
                "against log M (one T) or against T (one beta and width)");
  cmd->add_option("--betas", sweep->betas, "with --sweep: attention scales")->delimiter(',');
  cmd->add_option("--widths", sweep->widths, "with --sweep: FFN widths")->delimiter(',');
  cmd->add_option("--Ts", sweep->lengths, "with --sweep: sequence lengths")->delimiter(',');
  cmd->add_option("--checkpoint", *checkpoint,
                  "write the built network here, a checkpoint `train --checkpoint` starts from")
      ->check(output_file());
  add_format_option(cmd, *format, {"text", "json"});
  add_output_option(cmd, *output);
  cmd->callback([&ctx, t, arch, options, format, output, sweep, sweeping, checkpoint] {
    if (*sweeping && !checkpoint->empty())
      throw InputError("--checkpoint writes one construction; a --sweep builds many");
    const session::ArchitectureRequest architecture = arch->request();
    if (*sweeping) {
      const theorems::Catalogue catalogue = ctx.load();
      theorems::Engine engine(catalogue);
      const session::ConstructionSweepResult r = [&] {
        const ProgressLine progress("construct --sweep");
        return session::construct_sweep(engine, *t, architecture, *options, *sweep);
      }();
      emit(*format == "json" ? session::sweep_json(r).dump(2) + "\n" : session::sweep_text(r),
           *output);
      return;
    }
    const targets::TargetSpec spec = session::construction_target(*t, architecture, *options);
    const theorems::Catalogue catalogue = ctx.load();
    theorems::Engine engine(catalogue);
    const construct::Construction c = [&] {
      const ProgressLine progress("construct");
      return session::construct(engine, spec, architecture, *options);
    }();
    std::string text = *format == "json" ? session::construction_json(c, *options).dump(2) + "\n"
                                         : session::construction_text(c, *options);
    if (c.built && !checkpoint->empty()) {
      numeric::save_checkpoint(*checkpoint, numeric::starting_checkpoint(c.config, c.parameters));
      if (*format == "text")
        text += session::training_command(*t, spec, c.config, options->task_seed, *checkpoint);
    }
    emit(text, *output);
    if (!c.built) ctx.exit_code = 1;
  });
}

}  // namespace infoflow::app
