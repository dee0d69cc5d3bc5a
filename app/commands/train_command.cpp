// train: one training run of the numeric core on a built-in task, a formula or a target file.

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "infoflow/numeric.hpp"
#include "infoflow/session/train.hpp"

#include "commands/commands.hpp"
#include "commands/progress_line.hpp"

namespace infoflow::app {

namespace {

struct TrainArguments {
  session::TrainRequest request;
  // The run's settings as given, by key (numeric/run_settings.hpp): read by the keys' own
  // parsers and checks after CLI11, as Python's keywords and a spec's keys are.
  std::map<std::string_view, std::string> values;
  std::map<std::string_view, bool> flags;
  std::string format = "text";  // text or json
  std::string output;
  // Inside the trained network (numeric/inspect.hpp).
  bool probe = false;
  std::string attention_file;
  numeric::Index attention_layer = 1;
  numeric::Index attention_head = 1;
  numeric::Index inspect_sequences = 512;
};

/// An option for each key of the vocabulary, its default from RunSettings{}.
void add_setting_options(CLI::App* cmd, TrainArguments& a) {
  static const numeric::RunSettings kDefaults;
  static const std::map<numeric::SettingType, std::string> type_names{
      {numeric::SettingType::kInteger, "INT"},
      {numeric::SettingType::kSeed, "SEED"},
      {numeric::SettingType::kNumber, "FLOAT"},
      {numeric::SettingType::kText, "TEXT"},
      {numeric::SettingType::kHeads, "H,H,..."}};
  for (const numeric::Setting& s : numeric::run_settings()) {
    const std::string help(s.help);
    if (s.type == numeric::SettingType::kFlag) {
      cmd->add_flag(s.option(), a.flags[s.name], help);
      continue;
    }
    CLI::Option* o =
        cmd->add_option(s.option(), a.values[s.name], help)->type_name(type_names.at(s.type));
    if (s.shows_default) o->default_str(numeric::setting_text(s.get(kDefaults)));
  }
}

/// The given settings, through each key's parser and check; errors name the option.
void apply_settings(CLI::App* cmd, TrainArguments& a) {
  numeric::RunSettings& settings = a.request.settings;
  for (const numeric::Setting& s : numeric::run_settings()) {
    if (cmd->count(s.option()) == 0) continue;
    try {
      s.set(settings, s.type == numeric::SettingType::kFlag
                          ? numeric::SettingValue(a.flags[s.name])
                          : numeric::parse_setting(s, a.values[s.name]));
    } catch (const InputError& e) {
      throw InputError(s.option() + ": " + e.message());
    }
  }
  a.request.tokens_given = cmd->count("--T") > 0;
}

/// What --probe and --attention found, with the seed of the sequences they used.
struct Inspection {
  std::uint64_t seed = 0;
  std::vector<numeric::ProbeScore> initial;
  std::vector<numeric::ProbeScore> trained;
  Eigen::MatrixXd attention;  ///< sequences x T; empty unless asked
};

/// The readout's attention as CSV (a row per sequence, a column per input position: the readout
/// token is never a key) and a pgfplots heat map of its first 32 rows beside it (FILE.tex).
void write_attention(const TrainArguments& a, const Eigen::MatrixXd& w) {
  std::string csv;
  for (numeric::Index j = 0; j < w.cols(); ++j) csv += fmt::format("{}x{}", j == 0 ? "" : ",", j + 1);
  csv += "\n";
  for (numeric::Index i = 0; i < w.rows(); ++i) {
    for (numeric::Index j = 0; j < w.cols(); ++j) csv += fmt::format("{}{:.6f}", j ? "," : "", w(i, j));
    csv += "\n";
  }
  emit(csv, a.attention_file);
  const numeric::Index rows = std::min<numeric::Index>(w.rows(), 32);
  std::string tex = fmt::format(
      "% The readout's attention in layer {}, head {}: {} sequences (rows) by input position.\n"
      "\\begin{{tikzpicture}}\n\\begin{{axis}}[width=11cm, height=7cm, enlargelimits=false, "
      "colorbar, colormap/viridis, point meta min=0, point meta max=1, xlabel={{position}}, "
      "ylabel={{sequence}}, xtick={{1,...,{}}}, y dir=reverse]\n"
      "\\addplot[matrix plot*, mesh/cols={}, point meta=explicit] table[meta=w] {{\nx y w\n",
      a.attention_layer, a.attention_head, rows, w.cols(), w.cols());
  for (numeric::Index i = 0; i < rows; ++i) {
    for (numeric::Index j = 0; j < w.cols(); ++j) tex += fmt::format("{} {} {:.4f}\n", j + 1, i + 1, w(i, j));
  }
  tex += "};\n\\end{axis}\n\\end{tikzpicture}\n";
  emit(tex, a.attention_file + ".tex");
}

Inspection inspect(const TrainArguments& a, const session::PreparedRun& run,
                   const std::filesystem::path& checkpoint) {
  const numeric::ModelConfig& m = run.settings.model;
  const numeric::Task& task = *run.task;
  const std::uint64_t seed = run.settings.training.seed;
  Inspection out;
  // Sequences of their own stream, not the training or validation ones.
  out.seed = derive_seed(seed, {0x1e5bec7});
  const numeric::Transformer<double> trained = numeric::model_from_checkpoint(m, checkpoint);
  if (a.probe) {
    out.initial = numeric::probe_first_layer(numeric::initial_model(m, seed), task,
                                             a.inspect_sequences, out.seed);
    out.trained = numeric::probe_first_layer(trained, task, a.inspect_sequences, out.seed);
  }
  if (!a.attention_file.empty()) {
    out.attention = numeric::readout_attention(trained, task, a.inspect_sequences, out.seed,
                                               a.attention_layer - 1, a.attention_head - 1);
    write_attention(a, out.attention);
  }
  return out;
}

nlohmann::json to_json(const Inspection& in) {
  nlohmann::json out = {{"sequences_seed", in.seed}};
  if (!in.trained.empty()) {
    nlohmann::json heads = nlohmann::json::array();
    for (std::size_t i = 0; i < in.trained.size(); ++i) {
      const numeric::ProbeScore& b = in.initial[i];
      const numeric::ProbeScore& t = in.trained[i];
      heads.push_back({{"head", t.head + 1},
                       {"initial", {{"largest", b.to_largest}, {"second", b.to_second}}},
                       {"trained", {{"largest", t.to_largest}, {"second", t.to_second}}},
                       {"ratio_largest", t.to_largest / b.to_largest},
                       {"ratio_second", t.to_second / b.to_second}});
    }
    out["probe"] = heads;
  }
  if (in.attention.size() > 0) {
    const Eigen::VectorXd mean = in.attention.colwise().mean();
    out["attention_mean"] = std::vector<double>(mean.data(), mean.data() + mean.size());
  }
  return out;
}

std::string summary(const Inspection& in) {
  std::string out;
  for (std::size_t i = 0; i < in.trained.size(); ++i) {
    const numeric::ProbeScore& b = in.initial[i];
    const numeric::ProbeScore& t = in.trained[i];
    out += fmt::format(
        "probe, layer 1 head {}: to the largest-weight token NMSE {:.3f} (initial {:.3f}, ratio "
        "{:.2f}); to the second {:.3f} (initial {:.3f}, ratio {:.2f})\n",
        t.head + 1, t.to_largest, b.to_largest, t.to_largest / b.to_largest, t.to_second,
        b.to_second, t.to_second / b.to_second);
  }
  if (in.attention.size() > 0) {
    const Eigen::VectorXd mean = in.attention.colwise().mean();
    std::string weights;
    for (numeric::Index j = 0; j < mean.size(); ++j)
      weights += fmt::format("{}{:.3f}", j ? " " : "", mean(j));
    out += fmt::format("readout attention, mean over {} sequences, positions 1..{} and readout: {}\n",
                       in.attention.rows(), mean.size() - 1, weights);
  }
  if (!out.empty()) out += fmt::format("(inspection sequences seed {})\n", in.seed);
  return out;
}

}  // namespace

void add_train(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand(
      "train",
      "train a Transformer on a built-in task and report its validation NMSE, e.g. "
      "train --task intrinsic_dim --D 2 --T 8 --heads 2,2 --E 16 --steps 3000");
  auto a = std::make_shared<TrainArguments>();
  const std::string tasks = fmt::format("{}", fmt::join(numeric::task_names(), ", "));
  session::TrainRequest& r = a->request;
  cmd->add_option("--task", r.task, "a built-in target: " + tasks);
  cmd->add_option("--target", r.target_file,
                  "or a target file (TOML); --name picks one of its targets");
  cmd->add_option("--formula", r.formula, "or a formula, e.g. 'min(s != t) dot(x[s], x[t])'");
  cmd->add_option("--name", r.target_name, "which target of the --target file");
  cmd->add_option("--set", r.sets,
                  "a value of the formula's integers, e.g. --set D=3 (repeatable)")
      ->allow_extra_args(false);  // one value an occurrence, as derive's (target_arguments.cpp)
  add_setting_options(cmd, *a);
  cmd->add_flag("--probe", a->probe,
                "after training: linear probes from the input tokens' states after layer 1 to "
                "the tokens of largest and second-largest attention weight, trained against "
                "initial (needs L >= 2)");
  cmd->add_option("--attention", a->attention_file,
                  "after training: the readout's attention weights per sequence as CSV in this "
                  "file, with a pgfplots heat map in FILE.tex")
      ->check(output_file());
  cmd->add_option("--attention-layer", a->attention_layer, "--attention: the layer (from 1)")
      ->capture_default_str();
  cmd->add_option("--attention-head", a->attention_head, "--attention: the head (from 1)")
      ->capture_default_str();
  cmd->add_option("--inspect-sequences", a->inspect_sequences,
                  "sequences drawn for --probe and --attention")
      ->check(CLI::Range(numeric::Index{8}, numeric::Index{1} << 16))
      ->capture_default_str();
  // json: configuration, parameter count, timings, NMSE, curve.
  add_format_option(cmd, a->format, {"text", "json"}, /*json_alias=*/true);
  add_output_option(cmd, a->output);
  cmd->callback([a, cmd, &ctx] {
    // Everything is validated before any work starts.
    apply_settings(cmd, *a);
    const session::PreparedRun run = session::prepare_training(a->request);
    const numeric::ModelConfig& model = run.settings.model;
    numeric::TrainOptions training = run.settings.training;

    numeric::ProgressCallback progress;
    if (progress_wanted()) {
      progress = [](const numeric::Progress& p) {
        const double eta = p.step > 0 ? p.seconds * static_cast<double>(p.total - p.step) /
                                            static_cast<double>(p.step)
                                      : 0.0;
        std::cerr << fmt::format(
                         "\r\033[Kstep {}/{}  train NMSE {:.2e}  best val {:.2e}  "
                         "{:.0f} s, ETA {:.0f} s",
                         p.step, p.total, p.train_nmse, p.best_validation_nmse, p.seconds, eta)
                  << std::flush;
      };
    }
    // Inspection reads the trained parameters from the run's checkpoint (a scratch one if the
    // run keeps none); the checks come first, so that a bad request costs no training.
    const bool inspecting = a->probe || !a->attention_file.empty();
    if (a->probe && model.layers() < 2)
      throw InputError("--probe needs at least two layers (--heads with two or more values)");
    if (!a->attention_file.empty() &&
        (a->attention_layer < 1 || a->attention_layer > model.layers() || a->attention_head < 1 ||
         a->attention_head > model.heads[static_cast<std::size_t>(a->attention_layer - 1)]))
      throw InputError(fmt::format("--attention-layer {} --attention-head {}: no such head in "
                                   "heads {}",
                                   a->attention_layer, a->attention_head, model.heads_text()));
    struct Scratch {  // removed however the command ends
      std::filesystem::path file;
      ~Scratch() {
        std::error_code ignored;
        if (!file.empty()) std::filesystem::remove(file, ignored);
      }
    } scratch;
    if (inspecting && training.checkpoint.empty()) {
      scratch.file = std::filesystem::temp_directory_path() /
                     fmt::format("infoflow-inspect-{}.ckpt", ::getpid());
      training.checkpoint = scratch.file;
    }
    const numeric::TrainResult result = numeric::train(model, *run.task, training, progress);
    if (progress) std::cerr << "\r\033[K" << std::flush;
    std::optional<Inspection> inspection;
    if (inspecting && result.status != numeric::RunStatus::kDiverged)
      inspection = inspect(*a, run, training.checkpoint);
    if (a->format == "json") {
      nlohmann::json j = session::training_json(run, result);
      if (inspection) j["inspection"] = to_json(*inspection);
      emit(j.dump(2) + "\n", a->output);
    } else {
      emit(session::training_summary(run, result) +
               (inspection ? summary(*inspection) : std::string()),
           a->output);
    }
    if (result.status == numeric::RunStatus::kDiverged) {
      ctx.exit_code = static_cast<int>(ExitCode::kFindings);
    }
  });
}

}  // namespace infoflow::app
