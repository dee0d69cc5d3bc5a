// Experiment specs, their expansion and keys, and the results store: resume, shards, merge,
// corrupt lines.
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

#include <boost/test/unit_test.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "infoflow/core/error.hpp"
#include "infoflow/experiments/results.hpp"
#include "infoflow/experiments/spec.hpp"
#include "infoflow/experiments/sweep.hpp"
#include "infoflow/numeric/build.hpp"
#include "infoflow/numeric/tasks.hpp"
#include "infoflow/numeric/train.hpp"

#include "common/temp_dir.hpp"
#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ex = infoflow::experiments;
namespace nm = infoflow::numeric;
namespace fs = std::filesystem;

namespace {

using infoflow::testing::TempDir;

const char* kSpec = R"([experiment]
name = "tiny"
title = "a tiny sweep"
claim = "heads_phase"
task = "intrinsic_dim"
group = "D"
arm = "heads"

[profile.quick]
D = [2, 3]
T = [4]
heads = ["D,D", "D-1,D"]
E = 12
seeds = [1, 2]
steps = 4
batch = 4
val_size = 8
eval_every = 2

[profile.full]
D = 2
T = [4, 5]
heads = "D,D"
E = 12
seeds = [1]
steps = 4
batch = 4
val_size = 8
eval_every = 2
)";

std::string error_of(const TempDir& d, const std::string& text) {
  try {
    (void)ex::ExperimentSpec::load(d.write("bad.toml", text));
  } catch (const infoflow::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(experiments)

BOOST_AUTO_TEST_CASE(a_profile_expands_to_its_grid_with_stable_keys) {
  TempDir d;
  const ex::ExperimentSpec spec = ex::ExperimentSpec::load(d.write("tiny.toml", kSpec));
  BOOST_TEST(spec.profiles == (std::vector<std::string>{"full", "quick"}));
  const std::vector<ex::RunConfig> runs = spec.runs("quick");
  BOOST_TEST_REQUIRE(runs.size() == 2u * 2u * 2u);  // D x heads x seeds
  std::set<std::string> keys;
  for (const ex::RunConfig& r : runs) keys.insert(r.key);
  BOOST_TEST(keys.size() == runs.size());
  BOOST_TEST(runs[0].labels.at("D") == "2");
  BOOST_TEST(runs[0].labels.at("heads") == "(2,2)");
  BOOST_TEST(runs[2].labels.at("heads") == "(1,2)");
  BOOST_TEST(runs[7].labels.at("heads") == "(2,3)");
  BOOST_TEST(runs[0].training.threads == 1);
  // Same configuration, same key; the full profile's D = 2, T = 4 run is the quick one.
  BOOST_TEST(ex::ExperimentSpec::load(d.dir() / "tiny.toml").runs("quick")[3].key == runs[3].key);
  BOOST_TEST(spec.runs("full")[0].key == runs[0].key);
}

BOOST_AUTO_TEST_CASE(bad_specs_are_rejected_with_file_and_line) {
  TempDir d;
  std::string s = kSpec;
  BOOST_TEST(error_of(d, s + "colour = 3\n")
                 .find("bad.toml:30:10: error: profile.full: unknown key 'colour'") !=
             std::string::npos);
  s = kSpec;
  s.replace(s.find("heads = [\"D,D\""), 14, "heads = [\"X,D\"");
  BOOST_TEST(error_of(d, s).find("bad.toml:12:10: error: profile.quick (D = 2, heads = X,D, seed = "
                                 "1): heads 'X,D': 'X' is neither a number") != std::string::npos);
  s = kSpec;
  s.replace(s.find("E = 12"), 6, "E = 10");  // 3 heads do not divide 10
  BOOST_TEST(error_of(d, s).find("3 heads do not divide E = 10") != std::string::npos);
  s = kSpec;
  s.replace(s.find("claim = \"heads_phase\""), 21, "claim = \"vibes\"");
  BOOST_TEST(error_of(d, s).find("bad.toml:4:9: error: experiment: claim 'vibes'") !=
             std::string::npos);
  BOOST_TEST(error_of(d, "[experiment\n").find("bad.toml:1:") != std::string::npos);
  s = kSpec;
  s.replace(s.find("arm = \"heads\""), 14, "arm = \"heads\"\ninputs = { varience = 2.0 }");
  BOOST_TEST(error_of(d, s).find("bad.toml:8:23: error: experiment: unknown key inputs.varience") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_sweep_resumes_and_never_repeats_a_run) {
  TempDir d;
  const ex::ExperimentSpec spec = ex::ExperimentSpec::load(d.write("tiny.toml", kSpec));
  const ex::ResultStore store(d.dir() / "results.jsonl");
  ex::SweepOptions o;
  o.shard = 0;
  o.shards = 2;
  const ex::SweepSummary first = ex::run_sweep(spec, store, o);
  BOOST_TEST(first.runs == 4);
  BOOST_TEST(first.completed == 4);
  o.shard = 1;
  BOOST_TEST(ex::run_sweep(spec, store, o).completed == 4);
  o.shards = 1;
  o.shard = 0;
  const ex::SweepSummary again = ex::run_sweep(spec, store, o);
  BOOST_TEST(again.skipped == 8);
  BOOST_TEST(again.completed == 0);
  const std::vector<ex::RunRecord> records = store.read();
  BOOST_TEST(records.size() == 8u);
  for (const ex::RunRecord& r : records) {
    BOOST_TEST((r.status != nm::RunStatus::kDiverged));
    BOOST_TEST(!r.curve.empty());  // the validation curve is stored with the run
  }
}

BOOST_AUTO_TEST_CASE(corrupt_lines_are_reported_and_skipped_and_a_torn_line_stays_apart) {
  TempDir d;
  const ex::ExperimentSpec spec = ex::ExperimentSpec::load(d.write("tiny.toml", kSpec));
  const ex::ResultStore store(d.dir() / "results.jsonl");
  ex::SweepOptions o;
  o.profile = "full";
  (void)ex::run_sweep(spec, store, o);
  { std::ofstream(store.file(), std::ios::app) << "{\"key\": \"torn"; }  // a crash mid-line
  std::vector<std::string> warnings;
  BOOST_TEST(store.read(&warnings).size() == 2u);
  BOOST_TEST_REQUIRE(warnings.size() == 1u);
  BOOST_TEST(warnings[0].find("results.jsonl:3: corrupt record skipped") != std::string::npos);
  // The next run appends on a line of its own: the torn text does not swallow it.
  o.profile = "quick";
  const ex::SweepSummary s = ex::run_sweep(spec, store, o);
  BOOST_TEST(s.skipped == 1);  // the quick profile's D = 2, T = 4, (2,2), seed 1 run
  BOOST_TEST(store.read().size() == 2u + 7u);
  // Merging drops the corrupt line and duplicates.
  const std::vector<std::string> w =
      ex::merge_results({store.file(), store.file()}, d.dir() / "merged.jsonl");
  BOOST_TEST(w.size() == 2u);
  BOOST_TEST(ex::ResultStore(d.dir() / "merged.jsonl").read().size() == 9u);
}

BOOST_AUTO_TEST_CASE(a_record_whose_integers_are_fractions_or_out_of_range_is_corrupt) {
  TempDir d;
  const auto record = [](const std::string& steps, const std::string& seed) {
    return R"({"key": "k)" + steps + seed + R"(", "experiment": "x", "labels": {}, )"
           R"("status": "converged", "best_validation_nmse": 0.5, "final_validation_nmse": 0.5, )"
           R"("steps_done": )" + steps + R"(, "diverged_at": -1, "parameters": 10, )"
           R"("parameters_theory": 10, "seconds": 1.0, "config": {"training": {"seed": )" +
           seed + "}}}\n";
  };
  // Converting 1e300 or -1.5 to an integer would be undefined behaviour.
  const fs::path file = d.write("results.jsonl", record("100", "1") + record("1e300", "1") +
                                                     record("2.5", "1") + record("100", "-1.5") +
                                                     record("100", "-1") +
                                                     record("9223372036854775808", "1"));
  std::vector<std::string> warnings;
  const std::vector<ex::RunRecord> records = ex::ResultStore(file).read(&warnings);
  BOOST_TEST_REQUIRE(records.size() == 1u);
  BOOST_TEST(records[0].steps_done == 100);
  BOOST_TEST(warnings.size() == 5u);
}

BOOST_AUTO_TEST_CASE(a_failed_append_is_cut_back_to_the_last_whole_record_and_names_its_cause) {
  TempDir d;
  const ex::ExperimentSpec spec = ex::ExperimentSpec::load(d.write("tiny.toml", kSpec));
  const ex::ResultStore store(d.dir() / "results.jsonl");
  ex::SweepOptions o;
  o.profile = "full";
  (void)ex::run_sweep(spec, store, o);
  const auto before = fs::file_size(store.file());
  const ex::RunConfig run = spec.runs("full").front();
  // A child process whose file-size limit leaves room for part of a record only: the write
  // is cut short as on a full disk.
  const pid_t child = ::fork();
  BOOST_TEST_REQUIRE(child >= 0);
  if (child == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{static_cast<rlim_t>(before + 40), static_cast<rlim_t>(before + 40)};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    try {
      store.append(run, nm::TrainResult{});
    } catch (const infoflow::InputError& e) {
      const std::string what = e.what();
      ::_exit(what.find("results.jsonl: error: cannot append to the results file: File too large") !=
                      std::string::npos
                  ? 0
                  : 2);
    }
    ::_exit(1);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  BOOST_TEST(WIFEXITED(status));
  BOOST_TEST(WEXITSTATUS(status) == 0);  // refused, with the system's reason
  BOOST_TEST(fs::file_size(store.file()) == before);  // the fragment is gone
  std::vector<std::string> warnings;
  BOOST_TEST(store.read(&warnings).size() == 2u);
  BOOST_TEST(warnings.empty());
}

BOOST_AUTO_TEST_CASE(a_results_file_held_by_a_sweep_is_refused_to_a_second_one) {
  TempDir d;
  const ex::ExperimentSpec spec = ex::ExperimentSpec::load(d.write("tiny.toml", kSpec));
  const ex::ResultStore store(d.dir() / "results.jsonl");
  const int fd = ::open(store.file().c_str(), O_RDONLY | O_CREAT, 0644);
  BOOST_TEST_REQUIRE(fd >= 0);
  BOOST_TEST_REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);  // as the first sweep holds it
  try {
    (void)ex::run_sweep(spec, store, ex::SweepOptions{});
    BOOST_ERROR("the second sweep ran");
  } catch (const infoflow::InputError& e) {
    BOOST_TEST(std::string(e.what()).find("another sweep is writing this results file") !=
               std::string::npos);
  }
  ::close(fd);
  BOOST_TEST(fs::file_size(store.file()) == 0u);  // nothing ran
  ex::SweepOptions o;
  o.profile = "full";
  BOOST_TEST(ex::run_sweep(spec, store, o).completed == 2);  // free again once released
}

BOOST_AUTO_TEST_CASE(a_diverged_run_is_recorded_with_no_final_nmse) {
  TempDir d;
  const ex::ExperimentSpec spec = ex::ExperimentSpec::load(d.write("tiny.toml", kSpec));
  const ex::ResultStore store(d.dir() / "results.jsonl");
  nm::TrainResult diverged;
  diverged.status = nm::RunStatus::kDiverged;
  diverged.diverged_at = 3;
  diverged.steps_done = 2;
  diverged.best_validation_nmse = std::numeric_limits<double>::infinity();
  diverged.final_validation_nmse = std::numeric_limits<double>::quiet_NaN();
  store.append(spec.runs("full").front(), diverged);
  std::ifstream in(store.file());
  std::string line;
  std::getline(in, line);
  const nlohmann::json j = nlohmann::json::parse(line);
  BOOST_TEST(j.at("final_validation_nmse").is_null());  // not 0.0, which reads as perfect
  BOOST_TEST(j.at("diverged_at").get<long>() == 3);
  BOOST_TEST(j.at("steps_done").get<long>() == 2);
  BOOST_TEST(std::isinf(store.read().front().final_validation_nmse));
}

BOOST_AUTO_TEST_CASE(a_run_trained_until_the_plateau_records_its_cool_down_and_its_own_key) {
  TempDir d;
  std::string text = kSpec;
  text.insert(text.rfind("steps = 4"), "until_plateau = 100\n");
  const ex::ExperimentSpec fixed = ex::ExperimentSpec::load(d.write("tiny.toml", kSpec));
  const ex::ExperimentSpec until = ex::ExperimentSpec::load(d.write("until.toml", text));
  // The rule of training until the plateau is part of the configuration, hence of the key.
  BOOST_TEST(fixed.runs("full").front().key != until.runs("full").front().key);
  const ex::ResultStore store(d.dir() / "results.jsonl");
  ex::SweepOptions o;
  o.profile = "full";
  BOOST_TEST(ex::run_sweep(until, store, o).completed == 2);
  for (const ex::RunRecord& r : store.read()) {
    BOOST_TEST(r.cooldown_start >= 4);   // from `steps` on
    BOOST_TEST(r.cooldown_start <= 80);  // at the latest at the cap, 4/5 of 100
    BOOST_TEST(r.steps_done == r.cooldown_start + (r.cooldown_start + 3) / 4);
  }
  std::ifstream in(store.file());
  std::string line;
  std::getline(in, line);
  BOOST_TEST(nlohmann::json::parse(line).at("config").at("training").at("cooldown").get<double>() ==
             0.25);
  // A fixed-budget run's record has no cool-down, and reads as 0.
  const ex::ResultStore plain(d.dir() / "plain.jsonl");
  BOOST_TEST(ex::run_sweep(fixed, plain, o).completed == 2);
  std::ifstream plain_in(plain.file());
  std::getline(plain_in, line);
  BOOST_TEST(!nlohmann::json::parse(line).contains("cooldown_start"));
  BOOST_TEST(plain.read().front().cooldown_start == 0);
}

BOOST_AUTO_TEST_CASE(a_sweep_runs_only_the_slice_where_selects) {
  TempDir d;
  const ex::ExperimentSpec spec = ex::ExperimentSpec::load(d.write("tiny.toml", kSpec));
  const ex::ResultStore store(d.dir() / "results.jsonl");
  ex::SweepOptions o;
  o.where["D"] = {"3"};
  o.where["heads_pattern"] = {"D,D", "D-1,D"};
  o.where["seed"] = {"2"};
  BOOST_TEST(ex::run_sweep(spec, store, o).completed == 2);
  for (const ex::RunRecord& r : store.read()) {
    BOOST_TEST(r.labels.at("D") == "3");
    BOOST_TEST(r.labels.at("seed") == "2");
  }
  // The rest of the profile is what the next, unfiltered sweep runs.
  BOOST_TEST(ex::run_sweep(spec, store, ex::SweepOptions{}).completed == 6);
  o.where = {{"colour", {"red"}}};
  BOOST_CHECK_THROW(ex::run_sweep(spec, store, o), infoflow::InputError);
  o.where = {{"D", {"7"}}};
  BOOST_CHECK_THROW(ex::run_sweep(spec, store, o), infoflow::InputError);
  BOOST_TEST(ex::parse_where("heads=(1,1)").second == "(1,1)");
  BOOST_CHECK_THROW(ex::parse_where("D"), infoflow::InputError);
  BOOST_CHECK_THROW(ex::parse_where("=3"), infoflow::InputError);
}

BOOST_AUTO_TEST_CASE(a_stored_run_of_this_code_version_is_reproduced_bit_for_bit) {
  // tests/data/golden/reproduced_run.json holds the validation curve of one run, written by this
  // code version: training it again must give the same bits. If not, a change of the numeric
  // core did not bump kCodeVersion (bump it, archive the results, and rewrite the file with
  // INFOFLOW_UPDATE_GOLDEN=1). The shipped results are keyed by the code version, so this is
  // what keeps them reproducible. The run: head_capacity's quick configuration, shortened.
  if (!nm::default_numeric_build()) {
    BOOST_TEST_MESSAGE("skipped: built for -march=" << nm::instruction_set() << ", build type "
                                                     << nm::build_type()
                                                     << ", whose runs are keyed apart");
    return;
  }
  nm::TaskOptions t;
  t.name = "intrinsic_dim";
  t.comparisons = 3;
  t.tokens = 16;
  const std::unique_ptr<nm::Task> task = nm::make_task(t);
  nm::ModelConfig m;
  m.tokens = 16;
  m.token_dim = task->token_dim();
  m.heads = {1, 2};
  m.embedding = 32;
  m.head_dim = 8;
  nm::TrainOptions o;
  o.steps = 200;
  o.batch = 64;
  o.adam.learning_rate = 3e-3;
  o.validation_size = 256;
  o.threads = 1;  // results depend on the seed and the chunks, never on the threads
  const nm::TrainResult r = nm::train(m, *task, o);
  nlohmann::json run = {{"code_version", nm::kCodeVersion}, {"curve", nlohmann::json::array()}};
  for (const nm::CurvePoint& p : r.curve) run["curve"].push_back(fmt::format("{:a}", p.validation_nmse));
  const fs::path file = fs::path(INFOFLOW_TEST_DATA_DIR) / "golden" / "reproduced_run.json";
  if (std::getenv("INFOFLOW_UPDATE_GOLDEN") != nullptr) std::ofstream(file) << run.dump(1) << "\n";
  std::ifstream in(file);
  BOOST_TEST_REQUIRE(in.good(), file << " is missing");
  const nlohmann::json stored = nlohmann::json::parse(in);
  BOOST_TEST_REQUIRE(stored.at("code_version") == nm::kCodeVersion,
                     file << " was written by " << stored.at("code_version"));
  BOOST_TEST(run.at("curve").size() == 20u);  // 20 evaluations over the run
  BOOST_TEST(run.at("curve") == stored.at("curve"));
}

namespace {

/// A record of run `key` of schema 1, as the earliest sweeps wrote it (no `schema` field, no
/// `converged`, `curve`, `best_step`, `code_version`, ...), with `fields` set over it.
std::string old_record(const std::string& key, const nlohmann::json& fields = {}) {
  nlohmann::json j = nlohmann::json::parse(
      R"({"key":"","experiment":"e","labels":{},"status":"converged","best_validation_nmse":0.5,)"
      R"("final_validation_nmse":0.5,"steps_done":2,"diverged_at":-1,"parameters":1,)"
      R"("parameters_theory":1,"seconds":1.0,"config":{"training":{"seed":1}}})");
  j["key"] = key;
  if (fields.is_object()) j.update(fields);
  return j.dump() + "\n";
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_record_carries_its_schema_and_one_without_is_read_as_schema_1) {
  TempDir d;
  const ex::ExperimentSpec spec = ex::ExperimentSpec::load(d.write("tiny.toml", kSpec));
  const ex::ResultStore store(d.dir() / "results.jsonl");
  ex::SweepOptions o;
  o.profile = "full";
  (void)ex::run_sweep(spec, store, o);
  std::ifstream in(store.file());
  std::string line;
  std::getline(in, line);
  const nlohmann::json j = nlohmann::json::parse(line);
  BOOST_TEST(j.at("schema").get<int>() == 2);
  BOOST_TEST(j.at("code_version").get<std::string>() == nm::kCodeVersion);
  // The schema tells how a run was written down, not what it found: a copy without is the same.
  nlohmann::json unversioned = j;
  unversioned.erase("schema");
  std::vector<std::string> same;
  const fs::path copies = d.write("copies.jsonl", j.dump() + "\n" + unversioned.dump() + "\n");
  BOOST_TEST(ex::ResultStore(copies).read(&same).front().conflict.empty());
  BOOST_TEST(same.empty());
  // The shipped records have no schema: they are of schema 1, whose optional fields they lack.
  const fs::path file = d.write(
      "old.jsonl", old_record("a") + old_record("b", {{"schema", 2}}) +
                       old_record("c", {{"schema", 3}}) + old_record("d", {{"schema", "2"}}));
  std::vector<std::string> warnings;
  const std::vector<ex::RunRecord> records = ex::ResultStore(file).read(&warnings);
  BOOST_TEST_REQUIRE(records.size() == 1u);
  BOOST_TEST(records[0].key == "a");
  BOOST_TEST_REQUIRE(warnings.size() == 3u);
  BOOST_TEST(warnings[0].find("old.jsonl:2: corrupt record skipped (code_version: missing)") !=
             std::string::npos);
  BOOST_TEST(warnings[1].find("old.jsonl:3: corrupt record skipped (schema 3 is later than this "
                              "build reads (up to 2))") != std::string::npos);
  BOOST_TEST(warnings[2].find("old.jsonl:4: corrupt record skipped (schema: expected an integer") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_field_of_the_wrong_type_is_a_corrupt_line_with_its_file_and_line) {
  TempDir d;
  const fs::path file = d.write(
      "results.jsonl",
      old_record("a", {{"best_step", "9500"}}) + old_record("b", {{"converged", 0}}) +
          old_record("c", {{"converged", false}}) + old_record("d", {{"labels", {{"seed", 1}}}}) +
          old_record("e", {{"curve", {{"x", 1}}}}) + old_record("f", {{"code_version", 3}}) +
          old_record("g", {{"converged", true}, {"best_step", 2}, {"curve", {{2, 0.5}}}}));
  std::vector<std::string> warnings;
  const std::vector<ex::RunRecord> records = ex::ResultStore(file).read(&warnings);
  BOOST_TEST_REQUIRE(records.size() == 1u);
  BOOST_TEST(records[0].key == "g");
  const std::vector<std::string> expected{
      "results.jsonl:1: corrupt record skipped (best_step: expected an integer >= 0, found "
      "\"9500\")",
      "results.jsonl:2: corrupt record skipped (converged: expected true or false, found 0)",
      "results.jsonl:3: corrupt record skipped (converged: false against status converged)",
      "results.jsonl:4: corrupt record skipped (labels: expected a text, found 1)",
      "results.jsonl:5: corrupt record skipped (curve: expected a list)",
      "results.jsonl:6: corrupt record skipped (code_version: expected a text, found 3)"};
  BOOST_TEST_REQUIRE(warnings.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    BOOST_TEST(warnings[i].find(expected[i]) != std::string::npos, warnings[i]);
}

BOOST_AUTO_TEST_CASE(a_run_recorded_with_two_results_is_a_finding_and_no_evidence) {
  TempDir d;
  const fs::path file = d.write(
      "results.jsonl",
      old_record("k") + old_record("k", {{"seconds", 9.0}, {"resumed_from", 5}}) +  // bookkeeping
          old_record("k", {{"best_validation_nmse", 0.25}}) + old_record("m"));
  std::vector<std::string> warnings;
  const std::vector<ex::RunRecord> records = ex::ResultStore(file).read(&warnings);
  BOOST_TEST_REQUIRE(records.size() == 2u);
  const std::string conflict = "run k at " + file.string() + ":1 and at " + file.string() +
                               ":3 differs: best_validation_nmse 0.5 against 0.25";
  BOOST_TEST(records[0].conflict == conflict);
  BOOST_TEST(records[1].conflict.empty());
  BOOST_TEST_REQUIRE(warnings.size() == 1u);
  BOOST_TEST(warnings[0] ==
             conflict + "; neither record counts as evidence (remove the one that is wrong)");
}

BOOST_AUTO_TEST_CASE(a_diverged_record_with_a_finite_final_nmse_is_a_warning_and_read_diverged) {
  TempDir d;
  const fs::path file = d.write(
      "results.jsonl",
      old_record("a", {{"diverged_at", 3}}) +
          old_record("b", {{"status", "diverged"}, {"best_validation_nmse", 0.5},
                           {"final_validation_nmse", 0.25}, {"diverged_at", 3}}) +
          // as a diverged run is written: a best NMSE from before, no final one
          old_record("c", {{"status", "diverged"}, {"final_validation_nmse", nullptr},
                           {"diverged_at", 3}}));
  std::vector<std::string> warnings;
  const std::vector<ex::RunRecord> records = ex::ResultStore(file).read(&warnings);
  BOOST_TEST_REQUIRE(records.size() == 3u);
  for (const ex::RunRecord& r : records) BOOST_TEST((r.status == nm::RunStatus::kDiverged));
  BOOST_TEST_REQUIRE(warnings.size() == 2u);
  BOOST_TEST(warnings[0] == file.string() +
                                ":1: run a is marked diverged (status converged, diverged_at 3) "
                                "but its final NMSE 0.5 is finite; it is read as diverged, not as "
                                "converged evidence");
  BOOST_TEST(warnings[1].find(":2: run b is marked diverged (status diverged, diverged_at 3) but "
                              "its final NMSE 0.25 is finite") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(shard_syntax) {
  BOOST_TEST(ex::parse_shard("1/4").first == 1);
  BOOST_TEST(ex::parse_shard("1/4").second == 4);
  BOOST_CHECK_THROW(ex::parse_shard("4/4"), infoflow::InputError);
  BOOST_CHECK_THROW(ex::parse_shard("a/4"), infoflow::InputError);
  BOOST_CHECK_THROW(ex::parse_shard("1"), infoflow::InputError);
}

BOOST_AUTO_TEST_SUITE_END()
