// The parameters needed, M*: the bisection along a ladder of widths, the exponential fit, the
// verdicts on measurements made up to have a known answer, and the sweep that runs only the
// searches' runs and resumes them.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "infoflow/core/error.hpp"
#include "infoflow/experiments/allocation.hpp"
#include "infoflow/experiments/results.hpp"
#include "infoflow/experiments/sweep.hpp"
#include "infoflow/experiments/verification.hpp"
#include "infoflow/numeric/config.hpp"

#include "common/temp_dir.hpp"
#include "ladder.hpp"
#include "run_key.hpp"

namespace ex = infoflow::experiments;
namespace nm = infoflow::numeric;
namespace th = infoflow::theorems;
namespace fs = std::filesystem;

namespace {

using infoflow::testing::TempDir;

// k = 1 is efficient (the maximum), k = 2 not (Theorem 2); E is the ladder. At n = 4 Theorem 2's
// exponent (T - 3)/5 passes the decoding floor (1) at T = 8: over T = 6..12 the plan's price
// rises from eps^-1 to eps^(-9/5), 0.4 decade of M* at NMSE 0.1, more than a rung.
const char* kLadder = R"([experiment]
name = "mstar"
claim = "params_needed"
task = "kth_max"
arm = "E"
[profile.quick]
k = [1, 2]
T = [6, 8, 10, 12]
heads = "1"
E = [4, 8, 16, 32, 64]
seeds = [1, 2, 3]
)";

/// The searches' outcomes of a ladder: rung i passes when i >= first.
ex::Search run_search(std::size_t rungs, std::size_t first, std::vector<std::size_t>* visited,
                      std::size_t base) {
  std::set<std::size_t> done;
  while (true) {
    const ex::Search s = ex::bisect(
        rungs,
        [&](std::size_t i) -> std::optional<ex::Outcome> {
          if (done.count(i) == 0) return std::nullopt;
          return ex::Outcome{i >= first ? 0.01 : 0.5, true};
        },
        base);
    if (!s.next) return s;
    visited->push_back(*s.next);
    done.insert(*s.next);
  }
}

/// Whether a failing run's NMSE falls as its network widens.
enum class Failures { kFallWithWidth, kFlat };

/// A record for every run of the profile: NMSE 0.01 where `passes(run)`; else 0.6 (kFlat), or
/// 0.11 + 30 / sqrt(M), which falls with the width and stays above the accuracy 0.1.
std::vector<ex::RunRecord> measure_passing(
    const ex::ExperimentSpec& spec, const std::function<bool(const ex::RunConfig&)>& passes,
    const std::function<bool(const ex::RunConfig&)>& converged = [](const ex::RunConfig&) {
      return true;
    },
    Failures failures = Failures::kFallWithWidth) {
  std::vector<ex::RunRecord> out;
  for (const ex::RunConfig& r : spec.runs("quick")) {
    ex::RunRecord rec;
    rec.key = r.key;
    rec.experiment = r.experiment;
    rec.labels = r.labels;
    rec.status = converged(r) ? nm::RunStatus::kConverged : nm::RunStatus::kBudgetReached;
    rec.parameters = rec.parameters_theory = nm::ParameterLayout(r.model).count().theory();
    rec.best_validation_nmse =
        passes(r) ? 0.01
        : failures == Failures::kFlat
            ? 0.6
            : 0.11 + 30 / std::sqrt(static_cast<double>(rec.parameters_theory));
    rec.curve = {{100, 1.0}, {200, rec.best_validation_nmse}};
    out.push_back(rec);
  }
  return out;
}

/// The same where E reaches `needed(run)`.
std::vector<ex::RunRecord> measure(
    const ex::ExperimentSpec& spec, const std::function<long(const ex::RunConfig&)>& needed,
    const std::function<bool(const ex::RunConfig&)>& converged = [](const ex::RunConfig&) {
      return true;
    }) {
  return measure_passing(
      spec, [&](const ex::RunConfig& r) { return r.model.embedding >= needed(r); }, converged);
}

struct Fixture {
  TempDir temp;
  th::Catalogue catalogue = th::Catalogue::load_directory(INFOFLOW_CATALOGUE_DIR);
  th::Engine engine{catalogue};
  ex::ExperimentSpec spec = ex::ExperimentSpec::load(temp.write("mstar.toml", kLadder));

  ex::ExperimentResult verify(const std::vector<ex::RunRecord>& records) {
    return ex::verify(spec, "quick", records, engine);
  }
};

/// k = 1 needs E = 8 at every T; k = 2 needs E doubling every two tokens (8 at T = 6).
long flat_and_growing(const ex::RunConfig& r) {
  return r.task.rank == 1 ? 8 : 4L << ((r.task.tokens - 4) / 2);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(params_needed)

BOOST_AUTO_TEST_CASE(bisection_finds_the_first_rung_that_passes_in_few_runs) {
  for (std::size_t first = 0; first <= 5; ++first) {
    std::vector<std::size_t> visited;
    const ex::Search s = run_search(5, first, &visited, 5);
    BOOST_TEST(s.found == first);
    BOOST_TEST(visited.size() <= 3u);   // ceil(log2(6)) instead of 5 runs
    BOOST_TEST(visited.front() == 2u);  // the middle first
  }
  std::vector<std::size_t> visited;
  const ex::Search none = run_search(5, 5, &visited, 5);
  BOOST_TEST(none.failed.size() == visited.size());
  BOOST_TEST(none.passed.empty());
  // Past the profile's five rungs, two more are tried one at a time, after the bisection.
  for (std::size_t first = 5; first <= 7; ++first) {
    std::vector<std::size_t> path;
    const ex::Search s = run_search(7, first, &path, 5);
    BOOST_TEST(s.found == first);
    const std::vector<std::size_t> past(std::find(path.begin(), path.end(), 5u), path.end());
    BOOST_TEST(
        (past == (first == 5 ? std::vector<std::size_t>{5} : std::vector<std::size_t>{5, 6})));
  }
  // Below the widest, the rungs past it are never visited.
  std::vector<std::size_t> within;
  (void)run_search(7, 2, &within, 5);
  BOOST_TEST(*std::max_element(within.begin(), within.end()) < 5u);
}

BOOST_FIXTURE_TEST_CASE(flat_for_the_maximum_and_growing_for_the_second_agree, Fixture) {
  const ex::ExperimentResult r = verify(measure(spec, flat_and_growing));
  BOOST_TEST_REQUIRE(r.claims.size() == 2u);
  const ex::Claim& k1 = r.claims[0];
  const ex::Claim& k2 = r.claims[1];
  BOOST_TEST(k1.group.find("k = 1") != std::string::npos, k1.group);
  BOOST_TEST(ex::to_text(k1.verdict) == "agrees", k1.why);
  BOOST_TEST(k1.why == "M* does not grow in T: consistent with the upper bound");
  BOOST_TEST(k1.measured.find("flat: log10 M* rises 0.00 decades") == 0u, k1.measured);
  BOOST_TEST(ex::to_text(k2.verdict) == "agrees", k2.why);
  BOOST_TEST(k2.why == "M* grows in T: consistent with the lower bound");
  BOOST_TEST(k2.measured.find("growing") == 0u, k2.measured);
  BOOST_TEST(k2.prediction.find("(exponential in T): M*, the parameters needed for NMSE < 0.1, "
                                "grows") != std::string::npos,
             k2.prediction);
  // Only the searches' runs are part of the measurement: 24 searches of at most 3 runs, not
  // the grid's 120.
  BOOST_TEST(r.rows.size() <= 72u);
  BOOST_TEST(r.missing_runs == 0);
  BOOST_TEST(k1.runs.planned == static_cast<long>(k1.runs.converged));
  // The figure: M* against T, linear in T.
  BOOST_TEST(r.series[1].x.size() == 4u);
  BOOST_TEST(!r.log_x);
  BOOST_TEST(r.y_label.find("M*") != std::string::npos);
  BOOST_TEST(std::is_sorted(r.series[1].median.begin(), r.series[1].median.end()));
  BOOST_TEST(r.series[1].median.back() > r.series[1].median.front());
  BOOST_TEST(r.series[0].median.back() == r.series[0].median.front());
}

BOOST_FIXTURE_TEST_CASE(a_lower_bound_that_rises_less_than_a_rung_is_not_tested, Fixture) {
  // At n = 16 the second largest's rate is Omega(eps^(3/17 - T/17)), a lower bound: the
  // decoding floor eps^-1 (an upper-bound price) does not raise it. Over T = 4..10 it predicts a
  // rise of M* of 6/17 * 0.5 = 0.18 decade at NMSE 0.1, within one rung of a doubling ladder: a
  // flat M* does not contradict it, and is said to be unable to.
  const ex::ExperimentSpec narrow = ex::ExperimentSpec::load(temp.write("narrow.toml", R"([experiment]
name = "narrow"
claim = "params_needed"
task = "kth_max"
arm = "ffn_width"
[profile.quick]
k = 2
T = [4, 6, 8, 10]
heads = "1"
E = 16
ffn_width = [16, 32, 64, 128, 256]
seeds = [1, 2, 3]
)"));
  const std::vector<ex::RunRecord> records =
      measure_passing(narrow, [](const ex::RunConfig& r) { return r.model.ffn_width >= 32; });
  const ex::ExperimentResult r = ex::verify(narrow, "quick", records, engine);
  BOOST_TEST_REQUIRE(r.claims.size() == 1u);
  BOOST_TEST(ex::to_text(r.claims[0].verdict) == "inconclusive");
  BOOST_TEST(r.claims[0].measured.find("flat") == 0u, r.claims[0].measured);
  BOOST_TEST(r.claims[0].why.find("the lower bound's rate predicts a rise of 0.18 decades of M* "
                                  "over T = 4..10") == 0u,
             r.claims[0].why);
}

BOOST_FIXTURE_TEST_CASE(the_opposite_curves_say_what_training_can_say, Fixture) {
  const ex::ExperimentResult r = verify(measure(spec, [](const ex::RunConfig& c) {
    return flat_and_growing(c) == 8 ? 4L << ((c.task.tokens - 4) / 2) : 8L;
  }));
  BOOST_TEST(ex::to_text(r.claims[0].verdict) == "disagrees");
  BOOST_TEST(r.claims[0].why ==
             "M* grows in T: the upper bound is not reached by training with this recipe");
  BOOST_TEST(ex::to_text(r.claims[1].verdict) == "disagrees");
  BOOST_TEST(r.claims[1].why == "M* does not grow in T: contradicts the lower bound");
}

BOOST_FIXTURE_TEST_CASE(a_rise_whose_interval_crosses_only_the_falling_boundary_is_decided,
                        Fixture) {
  // k = 1 needs E = 16 at T = 6 and 8 on seeds 1 and 2, E = 8 elsewhere: M* falls by about a
  // rung, and resamples that draw seed 3 twice make it fall less. The interval straddles -r,
  // not +r: M* does not grow, the one question the upper bound asks.
  const ex::ExperimentResult r = verify(measure(spec, [](const ex::RunConfig& c) {
    if (c.task.rank != 1) return flat_and_growing(c);
    return c.task.tokens <= 8 && c.labels.at("seed") != "3" ? 16L : 8L;
  }));
  const ex::Claim& k1 = r.claims[0];
  BOOST_TEST(k1.measured.find("not growing (flat or falling): log10 M* rises") == 0u,
             k1.measured);
  BOOST_TEST(ex::to_text(k1.verdict) == "agrees", k1.why);
  BOOST_TEST(k1.why == "M* does not grow in T: consistent with the upper bound");
}

BOOST_FIXTURE_TEST_CASE(
    unfinished_searches_a_saturated_ladder_and_unconverged_failures_decide_nothing, Fixture) {
  // Searches not finished: the next rung of each has no run.
  std::vector<ex::RunRecord> part = measure(spec, flat_and_growing);
  part.erase(std::remove_if(part.begin(), part.end(),
                            [](const ex::RunRecord& rec) { return rec.labels.at("E") != "16"; }),
             part.end());
  const ex::ExperimentResult unfinished = verify(part);
  BOOST_TEST(ex::to_text(unfinished.claims[0].verdict) == "inconclusive");
  BOOST_TEST(unfinished.claims[0].why.find("12 searches are not finished") == 0u,
             unfinished.claims[0].why);
  BOOST_TEST(unfinished.missing_runs == 24);  // each search's next rung
  // k = 2 needs more than the widest rung from T = 10 on: two T left, a wider ladder is the fix.
  const ex::ExperimentResult above = verify(measure(spec, [](const ex::RunConfig& c) {
    return c.task.rank == 1 ? 8L : 16L << (c.task.tokens - 6);
  }));
  BOOST_TEST(ex::to_text(above.claims[1].verdict) == "inconclusive");
  BOOST_TEST(above.claims[1].why.find("only 2 T with M* on the ladder") == 0u, above.claims[1].why);
  BOOST_TEST(above.claims[1].why.find("widen the ladder") != std::string::npos);
  BOOST_TEST(above.claims[1].measured.find("above the ladder at T = 10 (3 of 3 seeds)") !=
                 std::string::npos,
             above.claims[1].measured);
  // A failure below M* counts only from a converged run.
  const ex::ExperimentResult budget = verify(measure(
      spec, flat_and_growing, [](const ex::RunConfig& c) { return c.model.embedding >= 16; }));
  BOOST_TEST(ex::to_text(budget.claims[1].verdict) == "inconclusive");
  BOOST_TEST(budget.claims[1].why.find("not converged at this budget") == 0u, budget.claims[1].why);
  // Everything at the narrowest rung: the ladder starts too wide to see anything.
  const ex::ExperimentResult low = verify(measure(spec, [](const ex::RunConfig&) { return 4L; }));
  BOOST_TEST(low.claims[0].why.find("the ladder starts too wide") != std::string::npos,
             low.claims[0].why);
}

BOOST_AUTO_TEST_CASE(the_shipped_searches_are_one_per_configuration_and_seed) {
  // experiments/mstar: k-th max, depth separation and triangle along FFN widths, k-th max and
  // depth separation along E; every profile. Each line's rungs grow in M.
  const std::vector<ex::ExperimentSpec> specs =
      ex::load_specs({}, fs::path(INFOFLOW_EXPERIMENTS_DIR) / "mstar");
  BOOST_TEST_REQUIRE(specs.size() == 5u);
  for (const ex::ExperimentSpec& s : specs) {
    BOOST_TEST(s.claim == "params_needed");
    for (const std::string& profile : s.profiles) {
      const std::vector<ex::RunConfig> runs = s.runs(profile);
      const std::vector<ex::LadderLine> lines =
          ex::ladder_lines(runs, ex::ladder_key(s), s, profile);
      for (const ex::LadderLine& l : lines) {
        BOOST_TEST(l.rungs.size() * lines.size() == runs.size(), s.name << " " << profile);
        for (std::size_t i = 1; i < l.rungs.size(); ++i)
          BOOST_TEST(nm::ParameterLayout(l.rungs[i - 1]->model).count().theory() <
                         nm::ParameterLayout(l.rungs[i]->model).count().theory(),
                     s.name << " " << profile);
      }
    }
  }
}

BOOST_FIXTURE_TEST_CASE(a_budget_widens_the_ladder_of_searches_above_it, Fixture) {
  // k = 2 needs E = 128 at every T: above the ladder 4..64 everywhere.
  const auto needed = [](const ex::RunConfig& c) { return c.task.rank == 1 ? 8L : 128L; };
  std::vector<ex::RunRecord> records = measure(spec, needed);
  const ex::ExperimentResult above = verify(records);
  BOOST_TEST_REQUIRE((above.claims[1].need == ex::Need::kWiderLadder));
  const std::vector<ex::Request> asked = ex::requests(spec, above, ex::BudgetOptions{});
  BOOST_TEST_REQUIRE(asked.size() == 1u);    // k = 1 is decided
  BOOST_TEST(asked[0].expected_runs == 24);  // two rungs past E = 64 for 12 searches
  BOOST_TEST(asked[0].runs.size() == 12u * 7u);
  BOOST_TEST(asked[0].text.find("a wider ladder: up to 24 rungs past the widest E") == 0u,
             asked[0].text);
  // The rung E = 128 recorded (as the sweep of that request would): M* found on the ladder.
  for (const ex::RunConfig& r : spec.runs("quick")) {
    if (r.task.rank != 2 || r.model.embedding != 64) continue;
    const ex::RunConfig past = ex::wider(r, "E");
    BOOST_TEST(past.labels.at("E") == "128");
    ex::RunRecord rec = measure(spec, needed).front();
    rec.key = past.key;
    rec.labels = past.labels;
    rec.best_validation_nmse = 0.01;
    records.push_back(rec);
  }
  const ex::ExperimentResult widened = verify(records);
  const ex::Claim& k2 = widened.claims[1];
  BOOST_TEST(k2.measured.find("flat") == 0u, k2.measured);
  BOOST_TEST(ex::to_text(k2.verdict) == "disagrees", k2.why);
  BOOST_TEST(std::count_if(widened.rows.begin(), widened.rows.end(), [](const ex::RunRow& row) {
               return row.labels.at("E") == "128";
             }) == 12);
  BOOST_CHECK_THROW((void)ex::wider(spec.runs("quick").front(), "lr"), infoflow::InputError);
}

BOOST_FIXTURE_TEST_CASE(a_ladder_whose_error_does_not_fall_with_the_width_is_not_widened,
                        Fixture) {
  // k = 2 above the ladder at every T, its NMSE 0.6 at every rung (as one layer's k-th value is
  // in this model class): widening would not help, so the claim asks for nothing and the
  // budget trains nothing for it. Where the NMSE falls with the width, it asks for rungs.
  const auto needed = [](const ex::RunConfig& c) { return c.task.rank == 1 ? 8L : 128L; };
  const ex::ExperimentResult flat = verify(measure_passing(
      spec, [&](const ex::RunConfig& r) { return r.model.embedding >= needed(r); },
      [](const ex::RunConfig&) { return true; }, Failures::kFlat));
  const ex::Claim& k2 = flat.claims[1];
  BOOST_TEST(ex::to_text(k2.verdict) == "inconclusive");
  BOOST_TEST((k2.need == ex::Need::kNothing));
  BOOST_TEST(k2.why.find("above the ladder the NMSE does not fall with the width (at most 0.00 "
                         "decade") != std::string::npos,
             k2.why);
  // The budget lists it with its reason and trains nothing for it.
  const std::vector<ex::Request> asked = ex::requests(spec, flat, ex::BudgetOptions{});
  BOOST_TEST_REQUIRE(asked.size() == 1u);
  BOOST_TEST(asked[0].runs.empty());
  BOOST_TEST(asked[0].text.find("no more runs of this experiment decide it") == 0u, asked[0].text);
  const ex::ExperimentResult falling = verify(measure(spec, needed));
  BOOST_TEST((falling.claims[1].need == ex::Need::kWiderLadder));
  BOOST_TEST(falling.claims[1].why.find("widen the ladder") != std::string::npos);
  // A flat NMSE from runs that stopped at their budget shows nothing about the width.
  const ex::ExperimentResult unconverged = verify(measure_passing(
      spec, [&](const ex::RunConfig& r) { return r.model.embedding >= needed(r); },
      [](const ex::RunConfig& r) { return r.task.rank == 1; }, Failures::kFlat));
  BOOST_TEST((unconverged.claims[1].need == ex::Need::kWiderLadder), unconverged.claims[1].why);
}

BOOST_FIXTURE_TEST_CASE(a_seed_beyond_the_profile_does_not_coarsen_the_ladder, Fixture) {
  // A fourth seed of k = 1 recorded at E = 4 (fails) and 64 (passes) only, as a budget's search
  // that went up from the middle could leave it: its M* is 64, but the ladder's resolution stays
  // the profile's (doublings of E, about 0.3 decade), not the 4 -> 64 step of its record.
  std::vector<ex::RunRecord> records = measure(spec, flat_and_growing);
  for (const ex::RunConfig& r : spec.runs("quick")) {
    if (r.task.rank != 1 || r.labels.at("seed") != "1" ||
        (r.model.embedding != 4 && r.model.embedding != 64))
      continue;
    ex::RunConfig other = r;
    other.labels["seed"] = "4";
    other.training.seed = 4;
    other.key = ex::run_key(other);
    ex::RunRecord rec = measure(spec, flat_and_growing).front();
    rec.key = other.key;
    rec.labels = other.labels;
    rec.best_validation_nmse = r.model.embedding == 64 ? 0.01 : 0.6;
    rec.parameters = rec.parameters_theory = nm::ParameterLayout(other.model).count().theory();
    records.push_back(rec);
  }
  const ex::ExperimentResult r = verify(records);
  const ex::Claim& k1 = r.claims[0];
  BOOST_TEST(k1.runs.planned > 36);  // the fourth seed's runs are counted
  const std::size_t at = k1.measured.find("one rung ");
  BOOST_TEST_REQUIRE(at != std::string::npos, k1.measured);
  BOOST_TEST(std::stod(k1.measured.substr(at + 9)) < 0.35, k1.measured);
}

BOOST_FIXTURE_TEST_CASE(a_ladder_needs_a_swept_arm, Fixture) {
  const ex::ExperimentSpec fixed = ex::ExperimentSpec::load(temp.write(
      "fixed.toml",
      "[experiment]\nname = \"fixed\"\nclaim = \"params_needed\"\ntask = \"kth_max\"\n"
      "arm = \"ffn_width\"\n[profile.quick]\nk = 1\nT = [4, 6]\nheads = \"1\"\nE = [4, 8]\n"
      "seeds = [1]\n"));
  try {
    (void)ex::verify(fixed, "quick", {}, engine);
    BOOST_FAIL("a ladder without its list was accepted");
  } catch (const infoflow::InputError& e) {
    BOOST_TEST(std::string(e.what()).find("the list of 'ffn_width'") != std::string::npos,
               e.what());
  }
}

// Real training, a few steps: the sweep runs only what the searches need, and a sweep stopped
// after any run resumes every search where it stood, to the same records.
BOOST_AUTO_TEST_CASE(a_sweep_runs_the_searches_and_resumes_them) {
  TempDir d;
  const ex::ExperimentSpec spec = ex::ExperimentSpec::load(
      d.write("ladder.toml",
              "[experiment]\nname = \"ladder\"\nclaim = \"params_needed\"\ntask = \"kth_max\"\n"
              "[profile.quick]\nk = 1\nT = [4, 5]\nheads = \"1\"\nE = [2, 4, 8, 16, 32, 64, 128]\n"
              "seeds = [1]\nsteps = 30\nbatch = 8\nval_size = 32\neval_every = 10\n"));
  ex::SweepOptions o;
  o.workers = 2;
  o.checkpoint_every = 0;
  const ex::ResultStore whole(d.dir() / "whole" / "ladder.jsonl");
  const ex::SweepSummary first = ex::run_sweep(spec, whole, o);
  BOOST_TEST(first.completed + first.diverged == first.runs);
  BOOST_TEST(first.runs <= 6);  // two searches of 3 runs, of the grid's 14
  BOOST_TEST(first.runs >= 4);
  const ex::SweepSummary again = ex::run_sweep(spec, whole, o);
  BOOST_TEST(again.completed + again.diverged == 0);
  BOOST_TEST(again.skipped == first.runs);
  // Interrupted after the first rung of each search (the middle one, E = 16): the rest follows.
  const ex::ResultStore parts(d.dir() / "parts" / "ladder.jsonl");
  ex::SweepOptions middle = o;
  middle.where["E"] = {"16"};
  BOOST_TEST(ex::run_sweep(spec, parts, middle).completed == 2);
  const ex::SweepSummary rest = ex::run_sweep(spec, parts, o);
  BOOST_TEST(rest.skipped == 2);
  std::map<std::string, double> a;
  std::map<std::string, double> b;
  for (const ex::RunRecord& r : whole.read()) a[r.key] = r.best_validation_nmse;
  for (const ex::RunRecord& r : parts.read()) b[r.key] = r.best_validation_nmse;
  BOOST_TEST((a == b));
  // Shards deal out whole searches: each shard runs one, and together they are the whole.
  ex::SweepOptions shard = o;
  shard.shards = 2;
  std::map<std::string, double> sharded;
  for (nm::Index i = 0; i < 2; ++i) {
    shard.shard = i;
    const ex::ResultStore store(d.dir() / ("shard" + std::to_string(i)) / "ladder.jsonl");
    (void)ex::run_sweep(spec, store, shard);
    std::set<std::string> tokens;
    for (const ex::RunRecord& r : store.read()) {
      sharded[r.key] = r.best_validation_nmse;
      tokens.insert(r.labels.at("T"));
    }
    BOOST_TEST(tokens.size() == 1u);
  }
  BOOST_TEST((sharded == a));
}

BOOST_AUTO_TEST_SUITE_END()
