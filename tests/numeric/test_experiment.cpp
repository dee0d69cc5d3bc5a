// Experiment specs, their expansion and keys, and the results store: resume, shards, merge,
// corrupt lines.
#include <filesystem>
#include <fstream>
#include <set>

#include <boost/test/unit_test.hpp>

#include "infoflow/core/error.hpp"
#include "infoflow/numeric/experiment.hpp"

#include "common/temp_dir.hpp"

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
    (void)nm::ExperimentSpec::load(d.write("bad.toml", text));
  } catch (const infoflow::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(experiments)

BOOST_AUTO_TEST_CASE(a_profile_expands_to_its_grid_with_stable_keys) {
  TempDir d;
  const nm::ExperimentSpec spec = nm::ExperimentSpec::load(d.write("tiny.toml", kSpec));
  BOOST_TEST(spec.profiles == (std::vector<std::string>{"full", "quick"}));
  const std::vector<nm::RunConfig> runs = spec.runs("quick");
  BOOST_TEST_REQUIRE(runs.size() == 2u * 2u * 2u);  // D x heads x seeds
  std::set<std::string> keys;
  for (const nm::RunConfig& r : runs) keys.insert(r.key);
  BOOST_TEST(keys.size() == runs.size());
  BOOST_TEST(runs[0].labels.at("D") == "2");
  BOOST_TEST(runs[0].labels.at("heads") == "(2,2)");
  BOOST_TEST(runs[2].labels.at("heads") == "(1,2)");
  BOOST_TEST(runs[7].labels.at("heads") == "(2,3)");
  BOOST_TEST(runs[0].training.threads == 1);
  // Same configuration, same key; the full profile's D = 2, T = 4 run is the quick one.
  BOOST_TEST(nm::ExperimentSpec::load(d.dir() / "tiny.toml").runs("quick")[3].key == runs[3].key);
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
  const nm::ExperimentSpec spec = nm::ExperimentSpec::load(d.write("tiny.toml", kSpec));
  const nm::ResultStore store(d.dir() / "results.jsonl");
  nm::SweepOptions o;
  o.shard = 0;
  o.shards = 2;
  const nm::SweepSummary first = nm::run_sweep(spec, store, o);
  BOOST_TEST(first.runs == 4);
  BOOST_TEST(first.completed == 4);
  o.shard = 1;
  BOOST_TEST(nm::run_sweep(spec, store, o).completed == 4);
  o.shards = 1;
  o.shard = 0;
  const nm::SweepSummary again = nm::run_sweep(spec, store, o);
  BOOST_TEST(again.skipped == 8);
  BOOST_TEST(again.completed == 0);
  const std::vector<nm::RunRecord> records = store.read();
  BOOST_TEST(records.size() == 8u);
  for (const nm::RunRecord& r : records) {
    BOOST_TEST((r.status != nm::RunStatus::kDiverged));
    BOOST_TEST(!r.curve.empty());  // the validation curve is stored with the run
  }
}

BOOST_AUTO_TEST_CASE(corrupt_lines_are_reported_and_skipped_and_a_torn_line_stays_apart) {
  TempDir d;
  const nm::ExperimentSpec spec = nm::ExperimentSpec::load(d.write("tiny.toml", kSpec));
  const nm::ResultStore store(d.dir() / "results.jsonl");
  nm::SweepOptions o;
  o.profile = "full";
  (void)nm::run_sweep(spec, store, o);
  { std::ofstream(store.file(), std::ios::app) << "{\"key\": \"torn"; }  // a crash mid-line
  std::vector<std::string> warnings;
  BOOST_TEST(store.read(&warnings).size() == 2u);
  BOOST_TEST_REQUIRE(warnings.size() == 1u);
  BOOST_TEST(warnings[0].find("results.jsonl:3: corrupt record skipped") != std::string::npos);
  // The next run appends on a line of its own: the torn text does not swallow it.
  o.profile = "quick";
  const nm::SweepSummary s = nm::run_sweep(spec, store, o);
  BOOST_TEST(s.skipped == 1);  // the quick profile's D = 2, T = 4, (2,2), seed 1 run
  BOOST_TEST(store.read().size() == 2u + 7u);
  // Merging drops the corrupt line and duplicates.
  const std::vector<std::string> w =
      nm::merge_results({store.file(), store.file()}, d.dir() / "merged.jsonl");
  BOOST_TEST(w.size() == 2u);
  BOOST_TEST(nm::ResultStore(d.dir() / "merged.jsonl").read().size() == 9u);
}

BOOST_AUTO_TEST_CASE(shard_syntax) {
  BOOST_TEST(nm::parse_shard("1/4").first == 1);
  BOOST_TEST(nm::parse_shard("1/4").second == 4);
  BOOST_CHECK_THROW(nm::parse_shard("4/4"), infoflow::InputError);
  BOOST_CHECK_THROW(nm::parse_shard("a/4"), infoflow::InputError);
  BOOST_CHECK_THROW(nm::parse_shard("1"), infoflow::InputError);
}

BOOST_AUTO_TEST_SUITE_END()
