// train: one training run of the numeric core on a built-in task, a formula or a target file.

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "infoflow/core/limits.hpp"
#include "infoflow/numeric.hpp"

#include "commands/commands.hpp"
#include "commands/target_arguments.hpp"
#include <unistd.h>

namespace infoflow::app {

namespace {

/// A seed as written: CLI11 would wrap -1 to 2^64 - 1 and saturate longer numbers to it.
const CLI::Validator kSeed(
    [](std::string& text) -> std::string {
      std::uint64_t value = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec == std::errc() && end == text.data() + text.size()) return "";
      if (text.starts_with('-')) return "a seed must be zero or positive (got " + text + ")";
      return "a seed is an integer from 0 to 18446744073709551615 (got " + text + ")";
    },
    "SEED");

struct TrainArguments {
  numeric::TaskOptions task{.name = ""};
  std::string target_file;
  std::string formula;
  std::string target_name;
  std::vector<std::string> sets;
  numeric::ModelConfig model;
  numeric::TrainOptions training;
  std::vector<numeric::Index> heads{2, 2};
  std::string activation = "gelu";
  std::string positional;  // empty: the task's recommendation
  std::string norm = "squared";
  std::string precision = "float32";
  std::string format = "text";  // text or json
  std::string output;
  // Inside the trained network (numeric/inspect.hpp).
  bool probe = false;
  std::string attention_file;
  numeric::Index attention_layer = 1;
  numeric::Index attention_head = 1;
  numeric::Index inspect_sequences = 512;
};

/// What --probe and --attention found, with the seed of the sequences they used.
struct Inspection {
  std::uint64_t seed = 0;
  std::vector<numeric::ProbeScore> initial;
  std::vector<numeric::ProbeScore> trained;
  Eigen::MatrixXd attention;  ///< sequences x S; empty unless asked
};

/// The readout's attention as CSV (a row per sequence, a column per position, the readout's own
/// weight last) and a pgfplots heat map of its first 32 rows beside it (FILE.tex).
void write_attention(const TrainArguments& a, const Eigen::MatrixXd& w) {
  std::string csv;
  for (numeric::Index j = 0; j < w.cols(); ++j)
    csv += (j == 0 ? "" : ",") + (j + 1 < w.cols() ? fmt::format("x{}", j + 1) : "readout");
  csv += "\n";
  for (numeric::Index i = 0; i < w.rows(); ++i) {
    for (numeric::Index j = 0; j < w.cols(); ++j) csv += fmt::format("{}{:.6f}", j ? "," : "", w(i, j));
    csv += "\n";
  }
  emit(csv, a.attention_file);
  const numeric::Index rows = std::min<numeric::Index>(w.rows(), 32);
  std::string ticks;  // the positions, then R for the readout token
  for (numeric::Index j = 1; j < w.cols(); ++j) ticks += fmt::format("{},", j);
  std::string tex = fmt::format(
      "% The readout's attention in layer {}, head {}: {} sequences (rows) by position (R: the "
      "readout token itself).\n"
      "\\begin{{tikzpicture}}\n\\begin{{axis}}[width=11cm, height=7cm, enlargelimits=false, "
      "colorbar, colormap/viridis, point meta min=0, point meta max=1, xlabel={{position}}, "
      "ylabel={{sequence}}, xtick={{1,...,{}}}, xticklabels={{{}R}}, y dir=reverse]\n"
      "\\addplot[matrix plot*, mesh/cols={}, point meta=explicit] table[meta=w] {{\nx y w\n",
      a.attention_layer, a.attention_head, rows, w.cols(), ticks, w.cols());
  for (numeric::Index i = 0; i < rows; ++i) {
    for (numeric::Index j = 0; j < w.cols(); ++j) tex += fmt::format("{} {} {:.4f}\n", j + 1, i + 1, w(i, j));
  }
  tex += "};\n\\end{axis}\n\\end{tikzpicture}\n";
  emit(tex, a.attention_file + ".tex");
}

Inspection inspect(const TrainArguments& a, const numeric::ModelConfig& m, const numeric::Task& task,
                   const std::filesystem::path& checkpoint) {
  Inspection out;
  // Sequences of their own stream, not the training or validation ones.
  out.seed = derive_seed(a.training.seed, {0x1e5bec7});
  const numeric::Transformer<double> trained = numeric::model_from_checkpoint(m, checkpoint);
  if (a.probe) {
    out.initial = numeric::probe_first_layer(numeric::initial_model(m, a.training.seed), task,
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

/// A training task from a formula or a target file: T from --T, else the file's `set`, else 8.
std::unique_ptr<numeric::Task> formula_task(const TrainArguments& a, bool tokens_given) {
  TargetArguments t;
  t.source = a.formula.empty() ? a.target_file : a.formula;
  t.name = a.target_name;
  t.sets = a.sets;
  t.token_dim = a.task.token_dim;
  t.file_only = !a.target_file.empty();
  targets::TargetSpec spec = t.resolve(true).front();
  if (tokens_given || spec.set.count("T") == 0) spec.set["T"] = a.task.tokens;
  targets::Evaluator evaluator(spec.formula, spec.set, spec.token_dim, a.task.seed);
  return numeric::make_formula_task(
      spec.name, std::move(evaluator),
      numeric::InputDistribution{spec.variance, spec.min_norm, spec.max_norm},
      spec.positional ? numeric::PositionalEncoding::kLearned : numeric::PositionalEncoding::kNone);
}

/// A progress line, redrawn in place, only when standard error is a terminal outside CI.
bool progress_wanted() {
  return ::isatty(STDERR_FILENO) == 1 && std::getenv("CI") == nullptr;
}

nlohmann::json to_json(const TrainArguments& a, const numeric::ModelConfig& m,
                       const numeric::TrainResult& r) {
  const numeric::TrainOptions& t = a.training;
  nlohmann::json curve = nlohmann::json::array();
  for (const numeric::CurvePoint& p : r.curve) {
    curve.push_back({{"step", p.step},
                     {"learning_rate", p.learning_rate},
                     {"train_nmse", p.train_nmse},
                     {"validation_nmse", p.validation_nmse}});
  }
  return {{"task",
           {{"name", r.task_name},
            {"formula", r.task_description},
            {"T", m.tokens},
            {"d", m.token_dim},
            {"D", a.task.comparisons},
            {"k", a.task.rank},
            {"T0", a.task.positions},
            {"norm", a.norm},
            {"task_seed", a.task.seed}}},
          {"model",
           {{"L", m.layers()},
            {"heads", m.heads},
            {"E", m.embedding},
            {"head_dim", m.head_dim},
            {"ffn_width", m.ffn_width},
            {"readout_width", m.readout_width},
            {"activation", numeric::to_string(m.activation)},
            {"positional", numeric::to_string(m.positional)},
            {"pre_layer_norm", m.pre_layer_norm},
            {"attention_scale", m.attention_scale}}},
          {"training",
           {{"steps", t.steps},
            {"batch", t.batch},
            {"learning_rate", t.adam.learning_rate},
            {"beta1", t.adam.beta1},
            {"beta2", t.adam.beta2},
            {"weight_decay", t.adam.weight_decay},
            {"warmup", t.warmup_steps()},
            {"min_lr_ratio", t.min_lr_ratio},
            {"clip", t.clip},
            {"eval_every", t.eval_interval()},
            {"validation_size", t.validation_size},
            {"seed", t.seed},
            {"chunks", t.chunks},
            {"threads", r.threads_used},
            {"precision", numeric::to_string(t.precision)},
            {"plateau_tolerance", t.plateau_tolerance},
            {"max_steps", t.budget()}}},
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

std::string summary(const TrainArguments& a, const numeric::ModelConfig& m,
                    const numeric::TrainResult& r) {
  std::string status =
      r.status != numeric::RunStatus::kDiverged
          ? fmt::format("best validation NMSE {:.3e} at step {}, final {:.3e} ({})",
                        r.best_validation_nmse, r.best_step, r.final_validation_nmse,
                        r.status == numeric::RunStatus::kConverged ? "converged"
                                                                   : "budget reached, not converged")
          : fmt::format("DIVERGED at step {} (loss or gradient not finite)", r.diverged_at);
  if (r.cooldown.start > 0)
    status += fmt::format("; cool-down from step {} ({})", r.cooldown.start,
                          r.cooldown.on_plateau ? "plateau" : "cap reached");
  return fmt::format(
      "train {} T={} d={} L={} heads={} E={}: {}; {} parameters (M = {}); {} steps in {:.1f} s "
      "({:.2f} ms/step, {} threads, {}); seed {}\n",
      r.task_name, m.tokens, m.token_dim, m.layers(), m.heads_string(), m.embedding, status,
      r.parameters.total, r.parameters.theory(), r.steps_done, r.seconds_total,
      1e3 * r.seconds_per_step(), r.threads_used, numeric::to_string(a.training.precision),
      a.training.seed);
}

}  // namespace

void add_train(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand(
      "train",
      "train a Transformer on a built-in task and report its validation NMSE, e.g. "
      "train --task intrinsic_dim --D 2 --T 8 --heads 2,2 --E 16 --steps 3000");
  auto a = std::make_shared<TrainArguments>();
  const std::string tasks = fmt::format("{}", fmt::join(numeric::task_names(), ", "));
  cmd->add_option("--task", a->task.name, "a built-in target: " + tasks);
  cmd->add_option("--target", a->target_file,
                  "or a target file (TOML); --name picks one of its targets");
  cmd->add_option("--formula", a->formula, "or a formula, e.g. 'min(s != t) dot(x[s], x[t])'");
  cmd->add_option("--name", a->target_name, "which target of the --target file");
  cmd->add_option("--set", a->sets,
                  "a value of the formula's integers, e.g. --set D=3 (repeatable)");
  cmd->add_option("--T", a->task.tokens, "number of input tokens")->capture_default_str();
  cmd->add_option("--d", a->task.token_dim, "token dimension (default: the task's)")
      ->check(CLI::Range(std::int64_t{1}, limits::kTokenDim));
  cmd->add_option("--D", a->task.comparisons, "intrinsic_dim, d_retrieval: number of comparisons")
      ->capture_default_str();
  cmd->add_option("--k", a->task.rank, "kth_max: the rank retrieved")->capture_default_str();
  cmd->add_option("--T0", a->task.positions, "fixed_positions: positions summed")
      ->capture_default_str();
  cmd->add_option("--norm", a->norm, "triangle: squared or plain")
      ->check(CLI::IsMember({"squared", "plain"}))
      ->capture_default_str();
  cmd->add_option("--task-seed", a->task.seed, "seed of the task's random parameters")
      ->check(kSeed)
      ->capture_default_str();
  cmd->add_option("--heads", a->heads, "heads per layer, comma-separated (L = their number)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--E", a->model.embedding, "embedding dimension")->capture_default_str();
  cmd->add_option("--head-dim", a->model.head_dim, "per-head dimension n (0: E / h)")
      ->capture_default_str();
  cmd->add_option("--ffn-width", a->model.ffn_width, "FFN hidden width")->capture_default_str();
  cmd->add_option("--readout-width", a->model.readout_width, "readout MLP width")
      ->capture_default_str();
  cmd->add_option("--activation", a->activation, "gelu or relu")->capture_default_str();
  cmd->add_option("--pe", a->positional,
                  "positional encoding: none (or off), learned or sinusoidal "
                  "(default: the task's)");
  cmd->add_flag("--pre-ln", a->model.pre_layer_norm, "pre-LayerNorm blocks");
  cmd->add_option("--scale", a->model.attention_scale, "attention scale (0: 1/sqrt(n))")
      ->capture_default_str();
  numeric::TrainOptions& t = a->training;
  cmd->add_option("--steps", t.steps, "training steps")->capture_default_str();
  cmd->add_option("--batch", t.batch, "sequences per step")->capture_default_str();
  cmd->add_option("--lr", t.adam.learning_rate, "peak learning rate")->capture_default_str();
  cmd->add_option("--beta1", t.adam.beta1, "AdamW beta1")->capture_default_str();
  cmd->add_option("--beta2", t.adam.beta2, "AdamW beta2")->capture_default_str();
  cmd->add_option("--weight-decay", t.adam.weight_decay, "decoupled weight decay")
      ->capture_default_str();
  cmd->add_option("--warmup", t.warmup, "warm-up steps (-1: 2 % of the steps)")
      ->capture_default_str();
  cmd->add_option("--min-lr-ratio", t.min_lr_ratio, "final learning rate / peak")
      ->capture_default_str();
  cmd->add_option("--clip", t.clip, "gradient norm clip (0: off)")->capture_default_str();
  cmd->add_option("--eval-every", t.eval_every, "steps between evaluations (0: 20 in a run)")
      ->capture_default_str();
  cmd->add_option("--val-size", t.validation_size, "held-out sequences")->capture_default_str();
  cmd->add_option("--seed", t.seed, "seed of the run (init, data, validation)")
      ->check(kSeed)
      ->capture_default_str();
  cmd->add_option("--threads", t.threads, "threads (0: all cores)")->capture_default_str();
  cmd->add_option("--chunks", t.chunks,
                  "fixed pieces of each batch (results depend on it, "
                  "not on --threads)")
      ->capture_default_str();
  cmd->add_option("--precision", a->precision, "float32 or float64")->capture_default_str();
  cmd->add_option("--until-plateau", t.max_steps,
                  "train at the peak learning rate until the validation curve plateaus (from "
                  "--steps on, at most 4/5 of this many steps), then cool down over a quarter of "
                  "the steps so far");
  cmd->add_option("--plateau-tolerance", t.plateau_tolerance,
                  "converged: the best validation NMSE improved by less than this fraction over "
                  "the last quarter of the steps")
      ->capture_default_str();
  cmd->add_option("--checkpoint", t.checkpoint,
                  "keep a checkpoint in this file and resume from it if it exists");
  cmd->add_option("--checkpoint-every", t.checkpoint_every, "steps between checkpoints")
      ->capture_default_str();
  cmd->add_flag("--probe", a->probe,
                "after training: linear probes from the input tokens' states after layer 1 to "
                "the tokens of largest and second-largest attention weight, trained against "
                "initial (needs L >= 2)");
  cmd->add_option("--attention", a->attention_file,
                  "after training: the readout's attention weights per sequence as CSV in this "
                  "file, with a pgfplots heat map in FILE.tex");
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
    a->task.norm = a->norm == "plain" ? numeric::NormKind::kPlain : numeric::NormKind::kSquared;
    const int sources = (a->task.name.empty() ? 0 : 1) + (a->target_file.empty() ? 0 : 1) +
                        (a->formula.empty() ? 0 : 1);
    if (sources != 1) throw InputError("give exactly one of --task, --target and --formula");
    if (!a->task.name.empty() && !a->sets.empty()) {
      throw InputError("--set " + a->sets.front() +
                       ": --set gives values to a formula's integers (--formula or --target); "
                       "the built-in task " + a->task.name + " takes --T, --D, --k or --T0");
    }
    const std::unique_ptr<numeric::Task> task = a->task.name.empty()
                                                    ? formula_task(*a, cmd->count("--T") > 0)
                                                    : numeric::make_task(a->task);
    numeric::ModelConfig model = a->model;
    model.tokens = task->tokens();
    model.token_dim = task->token_dim();
    model.heads = a->heads;
    model.activation = numeric::parse_activation(a->activation);
    model.positional = a->positional.empty() ? task->recommended_positional()
                                             : numeric::parse_positional_encoding(a->positional);
    model.validate();
    a->training.precision = numeric::parse_precision(a->precision);
    // The task's random parameters are not in its description: the tag refuses a checkpoint
    // of another task seed.
    a->training.checkpoint_tag =
        fmt::format("task_seed={} D={} k={} T0={} norm={}", a->task.seed, a->task.comparisons,
                    a->task.rank, a->task.positions, a->norm);
    a->training.validate();

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
                                   a->attention_layer, a->attention_head, model.heads_string()));
    struct Scratch {  // removed however the command ends
      std::filesystem::path file;
      ~Scratch() {
        std::error_code ignored;
        if (!file.empty()) std::filesystem::remove(file, ignored);
      }
    } scratch;
    if (inspecting && a->training.checkpoint.empty()) {
      scratch.file = std::filesystem::temp_directory_path() /
                     fmt::format("infoflow-inspect-{}.ckpt", ::getpid());
      a->training.checkpoint = scratch.file;
    }
    const numeric::TrainResult result = numeric::train(model, *task, a->training, progress);
    if (progress) std::cerr << "\r\033[K" << std::flush;
    std::optional<Inspection> inspection;
    if (inspecting && result.status != numeric::RunStatus::kDiverged)
      inspection = inspect(*a, model, *task, a->training.checkpoint);
    if (a->format == "json") {
      nlohmann::json j = to_json(*a, model, result);
      if (inspection) j["inspection"] = to_json(*inspection);
      emit(j.dump(2) + "\n", a->output);
    } else {
      emit(summary(*a, model, result) + (inspection ? summary(*inspection) : std::string()),
           a->output);
    }
    if (result.status == numeric::RunStatus::kDiverged) {
      ctx.exit_code = static_cast<int>(ExitCode::kFindings);
    }
  });
}

}  // namespace infoflow::app
