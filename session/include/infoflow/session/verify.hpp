#ifndef INFOFLOW_SESSION_VERIFY_HPP_
#define INFOFLOW_SESSION_VERIFY_HPP_

/// \file
/// verify: each experiment's claims, predicted against measured from its results file, and the
/// time budget spent where they are undecided.

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "infoflow/experiments/allocation.hpp"
#include "infoflow/experiments/spec.hpp"
#include "infoflow/experiments/verification.hpp"
#include "infoflow/theorems/engine.hpp"

namespace infoflow::session {

struct Verified {
  experiments::ExperimentResult result;
  std::vector<std::string> warnings;  ///< the results file's skipped lines
};

/// Each experiment against RESULTS/NAME.jsonl under `profile`; with `constructions`, the
/// configurations the engine calls efficient are also built (experiments/constructed.hpp).
std::vector<Verified> verify(const std::vector<experiments::ExperimentSpec>& specs,
                             const std::string& profile, const std::filesystem::path& results,
                             theorems::Engine& engine, bool constructions = true);

/// The JSON of `verify --format json` for one experiment: experiment, title, profile, claim,
/// claims (group, predicted, measured, verdict, why, cross_check, constructed, evidence, runs),
/// constructed (each configuration built) and notes.
nlohmann::json verification_json(const experiments::ExperimentResult& r);

/// `--budget`: `seconds` of wall time trained where claims of `specs` are undecided
/// (experiments/allocation.hpp), `workers` runs side by side (0: one per core).
experiments::BudgetSummary spend_budget(const std::vector<experiments::ExperimentSpec>& specs,
                                        const std::string& profile,
                                        const std::filesystem::path& results,
                                        theorems::Engine& engine, double seconds, long workers);

/// A spent budget as data: budget and seconds (wall time given and spent), spent (a line per
/// request trained) and left (per claim still undecided: experiment, group, need, text and
/// estimated_seconds on one worker, null when nothing would be trained for it or no run of the
/// claim is recorded to estimate from).
nlohmann::json budget_json(const experiments::BudgetSummary& s, double budget);

}  // namespace infoflow::session

#endif  // INFOFLOW_SESSION_VERIFY_HPP_
