#ifndef INFOFLOW_EXPERIMENTS_ALLOCATION_HPP_
#define INFOFLOW_EXPERIMENTS_ALLOCATION_HPP_

/// \file
/// A time budget spent where claims are undecided (`verify` and `report --budget DURATION`,
/// docs/experiments.md, "A time budget"). Each undecided claim says what would decide it
/// (Claim::need); a request turns that into runs and an estimated time. The budget trains the
/// cheapest request that fits, verifies again, and goes on until every claim is decided, no
/// request can be run, or the time is spent. Runs go to the results files as any sweep's, so
/// everything stays resumable; what is still needed is said, with its estimated time.
///
/// Trained: the runs a claim's group lacks (and the next runs of unfinished searches), more
/// seeds where an interval straddles a boundary or has too few, runs that did not pass the
/// plateau test again, twice as long (afresh), and rungs past a ladder's widest where M* lies
/// above it. Described, not trained: a wider network for a claim saturated at a fixed width
/// (it is measured as params_needed).

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "infoflow/experiments/spec.hpp"
#include "infoflow/experiments/sweep.hpp"
#include "infoflow/experiments/verification.hpp"
#include "infoflow/theorems/engine.hpp"

namespace infoflow::experiments {

struct BudgetOptions {
  double seconds = 0;  ///< wall time to spend
  /// Workers and checkpoints of the runs (its profile is the one verified).
  SweepOptions sweep;
  std::size_t more_seeds = 3;  ///< seeds added to each configuration of a claim at a time
  std::size_t max_seeds = 12;  ///< no configuration gets more seeds than this
};

/// What an undecided claim would need, and its cost.
struct Request {
  std::string experiment;
  std::string group;
  Need need = Need::kNothing;
  /// What the budget would train (for a search along a ladder, the rungs it may visit); empty
  /// when it trains nothing for this need (no run left to lengthen, seeds at their cap, a
  /// wider network than a fixed-width profile's: described only).
  std::vector<RunConfig> runs;
  long expected_runs = 0;  ///< of them, the number expected to train
  /// Estimated training time on one worker, from the median time of the claim's recorded runs;
  /// NaN when none is recorded.
  double seconds = 0;
  std::string text;  ///< "3 more seeds for 2 configurations: 6 runs, about 40 s on one worker"
};

/// The request of each inconclusive claim of `result` (the verification of `spec`); one that
/// no run decides (Need::kNothing) says why, with no runs.
std::vector<Request> requests(const ExperimentSpec& spec, const ExperimentResult& result,
                              const BudgetOptions& options);

struct BudgetSummary {
  std::vector<std::string> spent;  ///< per request trained: "kth_max, k = 2: 3 more seeds, 9 runs"
  double seconds = 0;              ///< wall time spent
  std::vector<Request> left;       ///< of the claims still undecided
};

/// Spends `options.seconds` on the claims of `specs` (profile `profile`, results files
/// RESULTS/NAME.jsonl) while some are undecided; a request starts only if its estimated time,
/// over the workers it can keep busy, fits in what is left (one without an estimate always may).
BudgetSummary spend_budget(const std::vector<ExperimentSpec>& specs, const std::string& profile,
                           const std::filesystem::path& results, theorems::Engine& engine,
                           const BudgetOptions& options);

/// What a budget spent and what is left, as `verify` and `report` print it.
std::string budget_text(const BudgetSummary& s, double budget);

/// A duration as seconds: numbers (digits, a decimal point) with the units h, m and s, each once
/// and largest first ("90s", "15m", "2.5h", "1h30m"), from 1 s to limits::kBudgetSeconds; throws
/// InputError otherwise (a unitless number, a sign, an exponent, zero).
double parse_duration(const std::string& text);

/// "45 s", "3 min", "1.5 h".
std::string duration_text(double seconds);

}  // namespace infoflow::experiments

#endif  // INFOFLOW_EXPERIMENTS_ALLOCATION_HPP_
