// sweep, merge, verify and report: the experiments (experiments/*.toml), their results
// (JSON lines, one file an experiment), prediction against measurement, the report folder.

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "infoflow/experiments/allocation.hpp"
#include "infoflow/experiments/cross_check.hpp"
#include "infoflow/experiments/results.hpp"
#include "infoflow/experiments/spec.hpp"
#include "infoflow/experiments/sweep.hpp"
#include "infoflow/experiments/verification.hpp"
#include "infoflow/report/experiment_report.hpp"
#include "infoflow/report/verdict_table.hpp"
#include "infoflow/report/verification_text.hpp"
#include "infoflow/session/sweep.hpp"
#include "infoflow/session/verify.hpp"
#include "infoflow/theorems/engine.hpp"

#include "commands/commands.hpp"
#include <unistd.h>

namespace infoflow::app {

namespace fs = std::filesystem;

namespace {

fs::path experiments_directory() {
  if (const char* env = std::getenv("INFOFLOW_EXPERIMENTS")) return env;
  return INFOFLOW_EXPERIMENTS_DIR;
}

bool on_terminal() {
  return ::isatty(STDERR_FILENO) == 1 && std::getenv("CI") == nullptr;
}

struct Common {
  std::vector<std::string> experiments;
  std::string profile = "quick";
  std::string results = "results";
  bool constructions = true;

  void add(CLI::App* cmd) {
    cmd->add_option("experiments", experiments,
                    "experiment files or shipped names (default: every shipped one)");
    cmd->add_option("--profile", profile, "quick or full (or any profile the spec has)")
        ->capture_default_str();
    cmd->add_option("--results", results, "the folder of results files, NAME.jsonl each")
        ->capture_default_str();
    cmd->add_flag("--constructions,!--no-constructions", constructions,
                  "build the plans of the configurations the engine calls efficient, beside "
                  "training (default; a few seconds for a quick profile, minutes for a full "
                  "one)");
  }
};

void sweep(const session::PreparedSweep& sweep) {
  const experiments::SweepOptions& o = sweep.options;
  for (const experiments::ExperimentSpec& s : sweep.specs) {
    std::function<void(const experiments::SweepProgress&)> progress;
    if (on_terminal()) {
      progress = [&s](const experiments::SweepProgress& p) {
        const double eta = p.done > 0 ? p.seconds / static_cast<double>(p.done) *
                                            static_cast<double>(p.total - p.done)
                                      : 0;
        std::cerr << fmt::format(
                         "\r\033[K{}: {}/{} runs ({} done before), {:.0f} s, ETA {:.0f} s, best "
                         "NMSE {:.2e}",
                         s.name, p.done, p.total, p.skipped, p.seconds, eta, p.best_nmse)
                  << std::flush;
      };
    }
    const experiments::SweepSummary r = experiments::run_sweep(s, sweep.store(s), o, progress);
    if (progress) std::cerr << "\r\033[K";
    for (const std::string& w : r.warnings) std::cerr << "infoflow: warning: " << w << "\n";
    std::cout
        << fmt::format(
               "{} ({}): {} runs{}: {} already done, {} run now ({} diverged) in {:.1f} s -> {}\n",
               s.name, o.profile, r.runs,
               o.shards > 1 ? fmt::format(" in shard {}/{}", o.shard, o.shards) : "", r.skipped,
               r.completed + r.diverged, r.diverged, r.seconds, sweep.store(s).file().string())
        << std::flush;
  }
}

/// --budget DURATION: where claims are undecided, train what would decide them (allocation.hpp),
/// with --workers runs side by side.
struct Budget {
  std::string duration;
  long workers = 0;

  void add(CLI::App* cmd) {
    cmd->add_option("--budget", duration,
                    "spend this much time training where claims are undecided, then say what "
                    "each still undecided one would need: numbers with the units h, m and s, "
                    "largest first, e.g. 90s, 15m, 2.5h or 1h30m; at least 1s")
        ->type_name("DURATION");
    cmd->add_option("--workers", workers, "runs side by side when training (0: one per core)")
        ->capture_default_str();
  }
  /// Refuses a malformed duration, a number of workers out of range, and --workers where
  /// nothing trains, before any run.
  void check(bool sweeps) const {
    session::check_workers(workers);
    if (!duration.empty()) (void)experiments::parse_duration(duration);
    if (workers != 0 && duration.empty() && !sweeps)
      throw InputError("--workers sets how many runs train side by side: give --budget too");
  }
};

/// Spends the budget, if one is given; its account, or "" without one.
std::string spend(const std::vector<experiments::ExperimentSpec>& specs, const Common& c,
                  const Budget& budget, const theorems::Catalogue& catalogue) {
  if (budget.duration.empty()) return "";
  const double seconds = experiments::parse_duration(budget.duration);
  theorems::Engine engine(catalogue);
  return experiments::budget_text(
      session::spend_budget(specs, c.profile, c.results, engine, seconds, budget.workers),
      seconds);
}

/// Each experiment verified, its results file's warnings on standard error.
std::vector<experiments::ExperimentResult> verify_all(
    const std::vector<experiments::ExperimentSpec>& specs, const Common& c,
    const theorems::Catalogue& catalogue) {
  theorems::Engine engine(catalogue);
  std::vector<experiments::ExperimentResult> out;
  for (session::Verified& v :
       session::verify(specs, c.profile, c.results, engine, c.constructions)) {
    for (const std::string& w : v.warnings) std::cerr << "infoflow: warning: " << w << "\n";
    out.push_back(std::move(v.result));
  }
  return out;
}

}  // namespace

void add_sweep(CLI::App& app, Context&) {
  CLI::App* cmd = app.add_subcommand("sweep",
                                     "run an experiment's grid, resuming: each finished run is "
                                     "appended to RESULTS/NAME.jsonl once");
  auto r = std::make_shared<session::SweepRequest>();
  cmd->add_option("experiments", r->experiments,
                  "experiment files or shipped names (default: every shipped one)");
  cmd->add_option("--profile", r->profile, "quick or full (or any profile the spec has)")
      ->capture_default_str();
  cmd->add_option("--results", r->results, "the folder of results files, NAME.jsonl each")
      ->capture_default_str();
  cmd->add_option("--shard", r->shard, "run only shard i of N (i/N), e.g. for a SLURM job array")
      ->capture_default_str();
  cmd->add_option("--where", r->where,
                  "run only the runs with this label value, LABEL=VALUE; repeated, one label's "
                  "values are alternatives, e.g. --where T=16 --where T=32 --where "
                  "heads_pattern=D,D");
  cmd->add_option("--workers", r->workers, "runs side by side (0: one per core)")
      ->capture_default_str();
  cmd->add_option("--checkpoint-every", r->checkpoint_every,
                  "steps between checkpoints of a run in progress, in RESULTS/checkpoints/ "
                  "(0: none); the next sweep resumes from them")
      ->capture_default_str();
  cmd->callback([r] { sweep(session::prepare_sweep(*r, experiments_directory())); });
}

void add_merge(CLI::App& app, Context&) {
  CLI::App* cmd =
      app.add_subcommand("merge", "join results files (e.g. of shards): every run once");
  auto inputs = std::make_shared<std::vector<std::string>>();
  auto output = std::make_shared<std::string>();
  cmd->add_option("inputs", *inputs, "results files")->required();
  cmd->add_option("-o,--output", *output,
                  "the merged file (written atomically, its missing folders made)")
      ->check(output_file())
      ->required();
  cmd->callback([inputs, output] {
    std::vector<fs::path> files(inputs->begin(), inputs->end());
    for (const std::string& w : experiments::merge_results(files, *output))
      std::cerr << "infoflow: warning: " << w << "\n";
    const std::size_t runs = experiments::ResultStore(*output).read().size();
    std::cout << fmt::format("merged {} file{} into {} ({} run{})\n", files.size(),
                             files.size() == 1 ? "" : "s", *output, runs, runs == 1 ? "" : "s");
  });
}

void add_verify(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand("verify",
                                     "each claim of an experiment: predicted, measured (with "
                                     "interval), agrees / disagrees / inconclusive, why");
  auto c = std::make_shared<Common>();
  auto format = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  auto budget = std::make_shared<Budget>();
  c->add(cmd);
  add_format_option(cmd, *format, {"text", "json"}, /*json_alias=*/true);
  add_output_option(cmd, *output);
  budget->add(cmd);
  cmd->callback([&ctx, c, format, output, budget] {
    budget->check(false);
    const std::vector<experiments::ExperimentSpec> specs =
        experiments::load_specs(c->experiments, experiments_directory());
    const theorems::Catalogue catalogue = ctx.load();
    const std::string account = spend(specs, *c, *budget, catalogue);
    if (!account.empty() && *format == "json") std::cerr << account;
    const std::vector<experiments::ExperimentResult> results = verify_all(specs, *c, catalogue);
    if (*format == "json") {
      nlohmann::json j = nlohmann::json::array();
      for (const experiments::ExperimentResult& r : results)
        j.push_back(session::verification_json(r));
      emit(j.dump(2) + "\n", *output);
      return;
    }
    std::string out;
    for (const experiments::ExperimentResult& r : results) out += report::verification_text(r);
    emit(out + account, *output);
  });
}

void add_report(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand("report",
                                     "sweep (resuming), verify and write the report folder: LaTeX "
                                     "tables, pgfplots figures, PDF, PNG, CSV");
  auto c = std::make_shared<Common>();
  auto output = std::make_shared<std::string>("report");
  auto no_sweep = std::make_shared<bool>(false);
  auto no_compile = std::make_shared<bool>(false);
  auto budget = std::make_shared<Budget>();
  c->add(cmd);
  budget->add(cmd);
  cmd->add_option("-o,--output", *output, "the report folder")->capture_default_str();
  cmd->add_flag("--no-sweep", *no_sweep, "report what the results files hold; run nothing");
  cmd->add_flag("--no-compile", *no_compile, "no PDF or PNG");
  cmd->callback([&ctx, c, output, no_sweep, no_compile, budget] {
    budget->check(!*no_sweep);
    if (*no_sweep && !budget->duration.empty())
      throw InputError("--no-sweep trains nothing and --budget trains: give one of them");
    const theorems::Catalogue catalogue = ctx.load();
    std::vector<experiments::ExperimentSpec> specs;
    if (*no_sweep) {
      specs = experiments::load_specs(c->experiments, experiments_directory());
    } else {
      session::SweepRequest request;
      request.experiments = c->experiments;
      request.profile = c->profile;
      request.results = c->results;
      request.workers = budget->workers;
      session::PreparedSweep prepared = session::prepare_sweep(request, experiments_directory());
      sweep(prepared);
      specs = std::move(prepared.specs);
    }
    const std::string account = spend(specs, *c, *budget, catalogue);
    const std::vector<experiments::ExperimentResult> results = verify_all(specs, *c, catalogue);
    const report::ReportFiles files = report::write_report(*output, results, !*no_compile, &catalogue);
    std::string summary;
    for (const experiments::ExperimentResult& r : results) {
      long agree = 0;
      long disagree = 0;
      for (const experiments::Claim& cl : r.claims) {
        agree += cl.verdict == experiments::Agreement::kAgrees ? 1 : 0;
        disagree += cl.verdict == experiments::Agreement::kDisagrees ? 1 : 0;
      }
      summary += fmt::format("  {}: {} claims, {} agree, {} disagree, {} inconclusive\n", r.name,
                             r.claims.size(), agree, disagree,
                             static_cast<long>(r.claims.size()) - agree - disagree);
    }
    // The counts, then claim by claim: what was predicted and measured, and why a claim is open.
    std::cout << summary << "\n"
              << report::verdict_table(results) << "\n"
              << account << (account.empty() ? "" : "\n")
              << fmt::format("wrote {} files to {}{}\n", files.written.size(), *output,
                             files.note.empty() ? "" : " (" + files.note + ")");
    if (!*no_compile && std::getenv("INFOFLOW_REQUIRE_PDFLATEX") != nullptr && !files.pdf) {
      throw Error("the report's PDF could not be made: " + files.note, ExitCode::kInternal);
    }
  });
}

}  // namespace infoflow::app
