// Run keys across the change of vocabulary (numeric/run_settings.hpp): the shipped results are
// of the current code version and found by the specs that made them (a sweep resumes from
// them), and a spec written with the old names of `train --format json` makes the same runs as
// one written with the keys' names.
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "infoflow/experiments/results.hpp"
#include "infoflow/experiments/spec.hpp"
#include "infoflow/numeric/build.hpp"

#include "common/temp_dir.hpp"
#include "claims/claim_kind.hpp"
#include "ladder.hpp"
#include "recorded_runs.hpp"

namespace ex = infoflow::experiments;
namespace nm = infoflow::numeric;
namespace fs = std::filesystem;

BOOST_AUTO_TEST_SUITE(run_keys)

BOOST_AUTO_TEST_CASE(every_shipped_record_is_of_this_code_version_and_found_by_its_spec) {
  if (!nm::default_numeric_build()) {
    BOOST_TEST_MESSAGE("skipped: this build's runs are keyed apart (-march or build type)");
    return;
  }
  const fs::path dir = INFOFLOW_EXPERIMENTS_DIR;
  long checked = 0;
  for (const fs::directory_entry& profile_dir : fs::directory_iterator(dir / "results")) {
    if (!profile_dir.is_directory()) continue;  // its README
    // A folder is named as its profile, or GROUP-PROFILE: engine-quick holds the engine
    // experiments' quick profile, mstar-quick that of the specs in experiments/mstar/.
    const std::string folder = profile_dir.path().filename().string();
    const std::size_t dash = folder.rfind('-');
    const std::string profile = dash == std::string::npos ? folder : folder.substr(dash + 1);
    const fs::path group = dash == std::string::npos ? "" : folder.substr(0, dash);
    const fs::path specs = fs::is_directory(dir / group) && !group.empty() ? dir / group : dir;
    for (const fs::directory_entry& file : fs::directory_iterator(profile_dir.path())) {
      if (file.path().extension() != ".jsonl") continue;
      const ex::ExperimentSpec spec =
          ex::ExperimentSpec::load(specs / (file.path().stem().string() + ".toml"));
      // The profile's runs, and those a budget adds that verification counts: other seeds of
      // its configurations, longer runs, rungs past a ladder's widest.
      const ex::ResultStore store(file.path());
      std::set<std::string> keys;
      for (const ex::RunConfig& r :
           ex::with_recorded_runs(spec.runs(profile), store.read(),
                                  ex::searches_ladder(spec) ? ex::ladder_key(spec) : ""))
        keys.insert(r.key);
      std::ifstream in(file.path());
      std::string line;
      while (std::getline(in, line)) {
        const nlohmann::json j = nlohmann::json::parse(line);
        // An earlier core's records move to experiments/archive/ when the version is bumped.
        BOOST_TEST(j.value("code_version", "") == nm::kCodeVersion,
                   file.path().string() << ": a record of " << j.value("code_version", "")
                                        << " (archive it)");
        BOOST_TEST(keys.count(j.at("key").get<std::string>()) == 1u,
                   file.path().string()
                       << ": key " << j.at("key") << " is no run of profile " << profile);
        ++checked;
      }
    }
  }
  // None until the profiles are re-run under a new code version (experiments/archive/README.md).
  BOOST_TEST_MESSAGE(checked << " shipped records checked");
}

BOOST_AUTO_TEST_CASE(a_spec_with_the_old_names_makes_the_same_runs) {
  const infoflow::testing::TempDir d;
  const std::string head =
      "[experiment]\nname = \"tiny\"\nclaim = \"heads_phase\"\n"
      "task = \"intrinsic_dim\"\ngroup = \"D\"\narm = \"heads\"\n\n"
      "[profile.quick]\nD = [2, 3]\nT = 4\nheads = \"D,D\"\nE = 12\n"
      "seeds = [1]\nsteps = 4\nbatch = 4\n";
  const ex::ExperimentSpec named = ex::ExperimentSpec::load(
      d.write("named.toml", head + "val_size = 8\nlr = 0.003\nscale = 0.5\npe = \"learned\"\n"
                                   "pre_ln = true\n"));
  const ex::ExperimentSpec old = ex::ExperimentSpec::load(d.write(
      "old.toml", head + "validation_size = 8\nlearning_rate = 0.003\nattention_scale = 0.5\n"
                         "positional = \"learned\"\npre_layer_norm = true\n"));
  const std::vector<ex::RunConfig> a = named.runs("quick");
  const std::vector<ex::RunConfig> b = old.runs("quick");
  BOOST_TEST_REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) BOOST_TEST(a[i].key == b[i].key);
  BOOST_TEST(a[0].training.validation_size == 8);
  BOOST_TEST(a[0].model.pre_layer_norm);
}

BOOST_AUTO_TEST_SUITE_END()
