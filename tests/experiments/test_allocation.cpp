// A time budget spent where claims are undecided: durations, seeds beyond a profile's, what
// each undecided claim would need, and the loop that trains it.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

#include <boost/test/unit_test.hpp>

#include "infoflow/core/error.hpp"
#include "infoflow/experiments/allocation.hpp"
#include "infoflow/experiments/results.hpp"
#include "infoflow/experiments/verification.hpp"

#include "common/temp_dir.hpp"
#include "recorded_runs.hpp"

namespace ex = infoflow::experiments;
namespace nm = infoflow::numeric;
namespace th = infoflow::theorems;

namespace {

using infoflow::testing::TempDir;

// Two seeds: every interval has too few. 100 steps: the runs take milliseconds. The largest T,
// 16, is where the rates of k = 1 and k = 2 on one layer of n = 8 separate ((T - 3) / 9 > 1).
const char* kTwoSeeds = R"([experiment]
name = "two_seeds"
claim = "growth_in_T"
task = "kth_max"
[profile.quick]
k = [1, 2]
T = [3, 4, 5, 6, 7, 16]
heads = "1"
E = 8
seeds = [1, 2]
steps = 100
batch = 16
val_size = 64
eval_every = 25
)";

/// A record of `run` with this NMSE and status, as a sweep writes it.
ex::RunRecord record(const ex::RunConfig& run, double nmse, nm::RunStatus status) {
  ex::RunRecord rec;
  rec.key = run.key;
  rec.experiment = run.experiment;
  rec.labels = run.labels;
  rec.status = status;
  rec.best_validation_nmse = nmse;
  rec.curve = {{50, 1.0}, {100, nmse}};
  rec.seconds = 2;
  return rec;
}

struct Fixture {
  TempDir temp;
  th::Catalogue catalogue = th::Catalogue::load_directory(INFOFLOW_CATALOGUE_DIR);
  th::Engine engine{catalogue};
  ex::ExperimentSpec spec = ex::ExperimentSpec::load(temp.write("two_seeds.toml", kTwoSeeds));
};

}  // namespace

BOOST_AUTO_TEST_SUITE(allocation)

BOOST_AUTO_TEST_CASE(durations_and_what_is_not_one) {
  BOOST_TEST(ex::parse_duration("90s") == 90.0);
  BOOST_TEST(ex::parse_duration("15m") == 900.0);
  BOOST_TEST(ex::parse_duration("1h30m") == 5400.0);
  BOOST_TEST(ex::parse_duration("2.5h") == 9000.0);
  BOOST_TEST(ex::parse_duration("1h0m1s") == 3601.0);
  BOOST_TEST(ex::parse_duration("1s") == 1.0);
  BOOST_TEST(ex::parse_duration("8760h") == 31536000.0);  // a year, the limit
  // Issue 43: one grammar, a number and a unit; zero refused as every other duration below 1 s.
  for (const char* bad : {"", "abc", "-5m", "0", "5x", "1h-2m", "nan", "2.5", "90", "1e9",
                          "0x10s", "1e-9s", "0s", "0.5s", "30m1h", "1h1h", "+5m", ".5m", "5.m",
                          "8761h"})
    BOOST_CHECK_THROW((void)ex::parse_duration(bad), infoflow::InputError);
  BOOST_TEST(ex::duration_text(45) == "45 s");
  BOOST_TEST(ex::duration_text(900) == "15.0 min");
}

BOOST_FIXTURE_TEST_CASE(recorded_runs_of_other_seeds_count_when_their_key_matches, Fixture) {
  const std::vector<ex::RunConfig> runs = spec.runs("quick");
  const std::vector<ex::RunConfig> more = ex::more_seeds(runs, runs, {{"k", "1"}, {"T", "16"}}, 3);
  BOOST_TEST_REQUIRE(more.size() == 3u);
  BOOST_TEST(more[0].labels.at("seed") == "3");
  BOOST_TEST(more[2].training.seed == 5u);
  std::vector<ex::RunRecord> records;
  for (const ex::RunConfig& r : more) records.push_back(record(r, 0.5, nm::RunStatus::kConverged));
  ex::RunRecord other = records.back();
  other.key = "0123456789abcdef";  // the same labels, another configuration or code version
  other.labels["seed"] = "9";
  records.push_back(other);
  const std::vector<ex::RunConfig> all = ex::with_recorded_runs(runs, records);
  BOOST_TEST(all.size() == runs.size() + 3);
  const ex::ExperimentResult r = ex::verify(spec, "quick", records, engine);
  BOOST_TEST(r.rows.size() == runs.size() + 3);
  BOOST_TEST(r.runs.size() == r.rows.size());
}

BOOST_FIXTURE_TEST_CASE(a_run_trained_longer_takes_the_place_of_the_one_that_stopped, Fixture) {
  const std::vector<ex::RunConfig> runs = spec.runs("quick");
  std::vector<ex::RunRecord> records;
  for (const ex::RunConfig& r : runs)
    records.push_back(record(r, 0.9, nm::RunStatus::kBudgetReached));
  const ex::RunConfig twice = ex::longer(runs[0]);
  const ex::RunConfig four_times = ex::longer(twice);
  // A fixed budget of S steps is trained again until the plateau, from S on, at most 2S: a
  // fixed cosine's end almost never passes the plateau test, however long the run.
  BOOST_TEST(runs[0].training.max_steps == 0);
  BOOST_TEST(twice.training.steps == runs[0].training.steps);
  BOOST_TEST(twice.training.max_steps == 2 * runs[0].training.steps);
  BOOST_TEST(four_times.training.max_steps == 4 * runs[0].training.steps);
  BOOST_TEST(twice.labels == runs[0].labels);
  BOOST_TEST(twice.key != runs[0].key);
  BOOST_TEST(ex::doublings(four_times, runs[0]) == 2);
  records.push_back(record(four_times, 1e-3, nm::RunStatus::kConverged));
  records.push_back(record(twice, 0.5, nm::RunStatus::kConverged));
  const std::vector<ex::RunConfig> all = ex::with_recorded_runs(runs, records);
  BOOST_TEST_REQUIRE(all.size() == runs.size());
  BOOST_TEST(all[0].key == four_times.key);  // the longest wins, whatever the order
  const ex::ExperimentResult r = ex::verify(spec, "quick", records, engine);
  BOOST_TEST(r.rows[0].best_nmse == 1e-3);
  BOOST_TEST((*r.rows[0].status == nm::RunStatus::kConverged));
  // A seed past the profile's, trained longer, likewise takes its own run's place.
  const ex::RunConfig extra = ex::more_seeds(runs, runs, {}, 1)[0];
  const ex::RunConfig extra_twice = ex::longer(extra);
  records.push_back(record(extra, 0.9, nm::RunStatus::kBudgetReached));
  records.push_back(record(extra_twice, 2e-3, nm::RunStatus::kConverged));
  const std::vector<ex::RunConfig> with_extra = ex::with_recorded_runs(runs, records);
  BOOST_TEST_REQUIRE(with_extra.size() == runs.size() + 1);
  BOOST_TEST(with_extra.back().key == extra_twice.key);
  BOOST_TEST(ex::doublings(with_extra.back(), *ex::as_planned(runs, extra_twice)) == 1);
  // Recorded the other way round, the longer one still wins.
  std::vector<ex::RunRecord> reversed(records.rbegin(), records.rend());
  BOOST_TEST(ex::with_recorded_runs(runs, reversed).back().key == extra_twice.key);
  // A profile trained until the plateau is lengthened by its cap, not its minimum.
  ex::RunConfig plateau = runs[0];
  plateau.training.max_steps = 1000;
  BOOST_TEST(ex::longer(plateau).training.max_steps == 2000);
  BOOST_TEST(ex::longer(plateau).training.steps == plateau.training.steps);
}

BOOST_FIXTURE_TEST_CASE(each_undecided_claim_says_what_it_needs_and_its_cost, Fixture) {
  std::vector<ex::RunRecord> records;
  for (const ex::RunConfig& r : spec.runs("quick"))
    records.push_back(record(r, r.task.rank == 1 ? 1e-3 : 1e-3 * static_cast<double>(r.task.tokens),
                             nm::RunStatus::kConverged));
  const ex::BudgetOptions o;
  const ex::ExperimentResult seeds = ex::verify(spec, "quick", records, engine);
  for (const ex::Claim& c : seeds.claims) BOOST_TEST((c.need == ex::Need::kSeeds), c.why);
  const std::vector<ex::Request> asked = ex::requests(spec, seeds, o);
  BOOST_TEST_REQUIRE(asked.size() == 3u);
  BOOST_TEST(asked[0].runs.size() == 18u);  // 3 more seeds for each of 6 T
  BOOST_TEST(asked[0].seconds == 36.0);     // at the median 2 s a run
  BOOST_TEST(asked[0].text.find("3 more seeds for 6 configurations: 18 runs, about 36 s") == 0u,
             asked[0].text);
  // A run stopped at its budget: more steps, described, not trained.
  for (ex::RunRecord& rec : records) rec.status = nm::RunStatus::kBudgetReached;
  std::vector<ex::RunRecord> more = records;
  for (const ex::RunConfig& r : ex::more_seeds(spec.runs("quick"), spec.runs("quick"), {}, 1))
    more.push_back(record(r, r.task.rank == 1 ? 1e-3 : 1e-3 * static_cast<double>(r.task.tokens),
                          nm::RunStatus::kBudgetReached));
  const ex::ExperimentResult steps = ex::verify(spec, "quick", more, engine);
  const std::vector<ex::Request> longer = ex::requests(spec, steps, o);
  BOOST_TEST_REQUIRE(!longer.empty());
  BOOST_TEST((longer[1].need == ex::Need::kSteps), steps.claims[1].why);
  // The line's 12 runs of the profile and 6 of the seed past it, until the plateau, at most
  // twice as long.
  BOOST_TEST_REQUIRE(longer[1].runs.size() == 18u);
  BOOST_TEST(longer[1].runs[0].training.steps == 100);
  BOOST_TEST(longer[1].runs[0].training.max_steps == 200);
  BOOST_TEST(longer[1].runs[17].labels.at("seed") == "3");
  BOOST_TEST(longer[1].runs[17].training.max_steps == 200);
  BOOST_TEST(longer[1].text.find("more steps: 18 runs that did not pass the plateau test") == 0u,
             longer[1].text);
  // Runs already trained 16 times as long: nothing is left to lengthen, and it says so.
  std::vector<ex::RunRecord> capped;
  for (const ex::RunConfig& r : spec.runs("quick")) {
    ex::RunConfig at_cap = r;
    for (int i = 0; i < 4; ++i) at_cap = ex::longer(at_cap);
    capped.push_back(record(at_cap,
                            r.task.rank == 1 ? 1e-3 : 1e-3 * static_cast<double>(r.task.tokens),
                            nm::RunStatus::kBudgetReached));
  }
  const std::vector<ex::Request> at_cap =
      ex::requests(spec, ex::verify(spec, "quick", capped, engine), o);
  BOOST_TEST_REQUIRE(at_cap.size() > 1u);
  BOOST_TEST((at_cap[1].need == ex::Need::kSteps));
  BOOST_TEST(at_cap[1].runs.empty());
  BOOST_TEST(at_cap[1].text ==
             "more steps, but no run is left to lengthen; 12 runs trained 16 times as long as "
             "planned still did not pass the plateau test");
  // A growth line saturated from its smallest T: not trained here; the request names the
  // experiment that measures the parameters needed, which says whether any width reaches the
  // accuracy (for one layer's k = 2 none does in this model class).
  std::vector<ex::RunRecord> saturated;
  for (const ex::RunConfig& r : spec.runs("quick"))
    saturated.push_back(record(r, r.task.rank == 1 ? 1e-3 : 0.7, nm::RunStatus::kConverged));
  const ex::ExperimentResult flat = ex::verify(spec, "quick", saturated, engine);
  BOOST_TEST_REQUIRE(flat.claims.size() == 3u);
  BOOST_TEST((flat.claims[1].need == ex::Need::kWiderLadder), flat.claims[1].why);
  const std::vector<ex::Request> wider = ex::requests(spec, flat, o);
  const auto k2 = std::find_if(wider.begin(), wider.end(),
                               [](const ex::Request& q) { return q.need == ex::Need::kWiderLadder; });
  BOOST_TEST_REQUIRE((k2 != wider.end()));
  BOOST_TEST(k2->runs.empty());
  BOOST_TEST(k2->text.find("the parameters needed at each T (params_needed, experiments/mstar/), "
                           "which also says whether any width of this model class reaches the "
                           "accuracy") == 0u,
             k2->text);
  // A claim no run decides is listed, with its reason.
  ex::ExperimentResult none = seeds;
  none.claims[0].need = ex::Need::kNothing;
  none.claims[0].why = "the ladder starts too wide";
  const std::vector<ex::Request> nothing = ex::requests(spec, none, o);
  BOOST_TEST(nothing[0].runs.empty());
  BOOST_TEST(nothing[0].text ==
             "no more runs of this experiment decide it: the ladder starts too wide");
}

// Real training, milliseconds a run: the runs missing first, then seeds where intervals are
// too short, until no request can be trained; a second budget finds nothing more to do.
BOOST_FIXTURE_TEST_CASE(a_budget_trains_what_undecided_claims_need_then_stops, Fixture) {
  ex::BudgetOptions o;
  o.seconds = 120;
  o.sweep.workers = 2;
  o.sweep.checkpoint_every = 0;
  const ex::BudgetSummary first = ex::spend_budget({spec}, "quick", temp.dir(), engine, o);
  BOOST_TEST_REQUIRE(first.spent.size() >= 2u);
  BOOST_TEST(first.spent[0].find("two_seeds, L = 1, heads = (1), k = 1: runs, 12 runs") == 0u,
             first.spent[0]);
  BOOST_TEST(first.seconds < o.seconds);
  const ex::ResultStore store(temp.dir() / "two_seeds.jsonl");
  const std::vector<ex::RunRecord> records = store.read();
  BOOST_TEST(records.size() > 24u);  // the profile's 24 runs and more seeds
  std::set<std::string> seeds;
  for (const ex::RunRecord& r : records) seeds.insert(r.labels.at("seed"));
  BOOST_TEST(seeds.count("3") == 1u);
  // Every claim left says what it needs; none asks for more than the seeds allowed.
  for (const ex::Request& q : first.left) BOOST_TEST(!q.text.empty());
  const std::string text = ex::budget_text(first, o.seconds);
  BOOST_TEST(text.find("budget 2.0 min: ") == 0u, text);
  BOOST_TEST(text.find("still undecided, and what each would need:") != std::string::npos, text);
  const ex::BudgetSummary again = ex::spend_budget({spec}, "quick", temp.dir(), engine, o);
  BOOST_TEST(again.spent.empty());
  BOOST_TEST(store.read().size() == records.size());
}

BOOST_AUTO_TEST_SUITE_END()
