#include "infoflow/experiments/verification.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "infoflow/core/error.hpp"
#include "infoflow/symbolic/rate.hpp"

#include "cells.hpp"
#include "claims/claim_kind.hpp"
#include "confront.hpp"
#include "ladder.hpp"
#include "prediction.hpp"
#include "recorded_runs.hpp"

namespace infoflow::experiments {

std::string to_text(Agreement a) {
  switch (a) {
    case Agreement::kAgrees:
      return "agrees";
    case Agreement::kDisagrees:
      return "disagrees";
    case Agreement::kInconclusive:
      return "inconclusive";
  }
  return "";
}

std::string to_text(Need n) {
  switch (n) {
    case Need::kNothing:
      return "nothing";
    case Need::kRuns:
      return "runs";
    case Need::kSeeds:
      return "seeds";
    case Need::kSteps:
      return "steps";
    case Need::kWiderLadder:
      return "a wider network";
  }
  return "";
}

std::string status_text(const RunRow& row) {
  return row.status ? std::string(numeric::to_string(*row.status)) : "missing";
}

bool in_group(const RunRow& row, const std::map<std::string, std::string>& labels) {
  return std::all_of(labels.begin(), labels.end(), [&](const auto& kv) {
    const auto l = row.labels.find(kv.first);
    return l != row.labels.end() && l->second == kv.second;
  });
}

std::string to_text(const RunCounts& c) {
  std::string out;
  const auto part = [&](long n, const char* what) {
    if (n > 0) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, what);
  };
  part(c.converged, "converged");
  part(c.budget_reached, "budget reached");
  part(c.diverged, "diverged");
  part(c.planned - c.converged - c.budget_reached - c.diverged, "missing");
  return fmt::format("{} runs, {}", c.planned, out.empty() ? "none" : out);
}

namespace {

/// "efficient", "not efficient", or what an undecided verdict says instead.
std::string efficiency_text(Efficiency e, const std::string& undecided) {
  switch (e) {
    case Efficiency::kEfficient:
      return "efficient";
    case Efficiency::kNotEfficient:
      return "not efficient";
    case Efficiency::kUndecided:
      break;
  }
  return undecided;
}

}  // namespace

std::string entry_claim_text(const Confrontation& c) {
  return efficiency_text(c.entry, "no claim (" + c.entry_reason + ")");
}

std::string measured_text(const Confrontation& c) {
  return efficiency_text(c.measured, "inconclusive: " + c.measured_reason);
}

std::string nmse_text(double x) {
  return std::isfinite(x) ? fmt::format("{:.2e}", x) : "n/a";
}

ExperimentResult verify(const ExperimentSpec& spec, const std::string& profile,
                        const std::vector<RunRecord>& records, theorems::Engine& engine) {
  ExperimentResult out;
  out.name = spec.name;
  out.title = spec.title;
  out.claim_kind = spec.claim;
  out.profile = profile;
  // The cells point into `runs`, which a claim kind may not change (it may cut out.runs).
  const std::vector<RunConfig> runs = with_recorded_runs(
      spec.runs(profile), records, searches_ladder(spec) ? ladder_key(spec) : "");
  out.runs = runs;
  std::map<std::string, const RunRecord*> by_key;
  for (const RunRecord& r : records) by_key[r.key] = &r;

  // Configurations: runs that differ only by seed.
  Cells cells;
  std::map<std::string, theorems::Plan> plans;
  long missing = 0;
  long diverged = 0;
  for (const RunConfig& run : runs) {
    std::map<std::string, std::string> labels = run.labels;
    labels.erase("seed");
    const std::string id = labels_except(labels, {});
    Cell& cell = cells[id];
    cell.labels = labels;
    cell.tokens = run.task.tokens;
    if (cell.run == nullptr) cell.run = &run;
    if (plans.count(id) == 0) plans.emplace(id, predict(run, engine));
    cell.plan = &plans.at(id);
    RunRow row;
    row.labels = run.labels;
    row.tokens = run.task.tokens;
    row.predicted_verdict = theorems::to_text(cell.plan->verdict);
    row.predicted_rate = cell.plan->priced() ? cell.plan->rate().print(cell.plan->landau())
                                             : theorems::to_text(cell.plan->verdict);
    const auto hit = by_key.find(run.key);
    if (hit == by_key.end()) {
      ++missing;
    } else if (!hit->second->conflict.empty()) {  // recorded, but no evidence either way
      out.notes.push_back(hit->second->conflict +
                          "; neither record is counted (remove the one that is wrong)");
    } else {
      const RunRecord& r = *hit->second;
      row.status = r.status;
      row.best_nmse = r.best_validation_nmse;
      row.parameters = r.parameters;
      row.parameters_theory = r.parameters_theory;
      row.seconds = r.seconds;
      out.run_seconds += r.seconds;
      const bool lost = r.status == numeric::RunStatus::kDiverged;
      if (lost) ++diverged;
      cell.nmse.push_back(lost ? std::numeric_limits<double>::infinity() : r.best_validation_nmse);
      cell.converged.push_back(r.converged());
      cell.recorded.push_back(!r.curve.empty());
      if (!lost && !r.converged() && !r.curve.empty())
        out.curves.push_back(
            {labels_except(run.labels, {"heads_pattern"}), r.curve, r.cooldown_start});
      cell.theory_params.push_back(static_cast<double>(r.parameters_theory));
    }
    out.rows.push_back(row);
  }
  out.missing_runs = missing;
  if (diverged > 0)
    out.notes.push_back(
        fmt::format("{} runs diverged; they are left out of the statistics", diverged));
  const ClaimKind* kind = find_claim_kind(spec.claim);
  if (kind == nullptr) {  // ExperimentSpec::load refuses it; a spec made otherwise may not
    throw InputError(SourceLocation{spec.file.string(), 0, 0},
                     "experiment: claim '" + spec.claim + "' is not one of " + claim_kind_names());
  }
  kind->judge(spec, cells, out);
  for (Claim& c : out.claims) {
    for (const RunRow& row : out.rows) {
      if (!in_group(row, c.group_labels)) continue;
      ++c.runs.planned;
      if (!row.status) continue;
      switch (*row.status) {
        case numeric::RunStatus::kConverged:
          ++c.runs.converged;
          break;
        case numeric::RunStatus::kBudgetReached:
          ++c.runs.budget_reached;
          break;
        case numeric::RunStatus::kDiverged:
          ++c.runs.diverged;
          break;
      }
    }
    // A decided claim needs nothing; an open one first the runs it still lacks.
    const long finished = c.runs.converged + c.runs.budget_reached + c.runs.diverged;
    if (c.verdict != Agreement::kInconclusive)
      c.need = Need::kNothing;
    else if (finished < c.runs.planned)
      c.need = Need::kRuns;
  }
  if (!spec.confront.empty()) {
    const theorems::Entry* entry = engine.catalogue().find(spec.confront);
    if (entry == nullptr) {
      throw InputError(spec.confront_at,
                       "experiment: confront names no catalogue entry '" + spec.confront + "'");
    }
    out.confronted = *entry;
    out.confrontations = confront(*entry, cells);
  }
  return out;
}

}  // namespace infoflow::experiments
