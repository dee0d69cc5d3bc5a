#include "infoflow/experiments/sweep.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "infoflow/core/error.hpp"

#include "claims/claim_kind.hpp"
#include "ladder.hpp"
#include "results_file.hpp"

namespace infoflow::experiments {

using namespace numeric;  // the configuration types a run is made of

namespace fs = std::filesystem;

fs::path checkpoint_path(const ResultStore& store, const RunConfig& run) {
  const fs::path dir = store.file().has_parent_path() ? store.file().parent_path() : ".";
  return dir / "checkpoints" / run.experiment / (run.key + ".ckpt");
}

namespace {

/// A recorded run's checkpoint, and the half-written copies a killed writer left beside it
/// (".NAME.XXXXXX", core/atomic_file.hpp).
void remove_checkpoint(const fs::path& checkpoint) {
  fs::remove(checkpoint);
  const std::string partial = "." + checkpoint.filename().string() + ".";
  std::error_code ignored;
  for (const fs::directory_entry& e : fs::directory_iterator(checkpoint.parent_path(), ignored)) {
    if (e.path().filename().string().rfind(partial, 0) == 0) fs::remove(e.path(), ignored);
  }
}

}  // namespace

std::pair<Index, Index> parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  try {
    if (slash != std::string::npos) {
      std::size_t a = 0;
      std::size_t b = 0;
      const long i = std::stol(text.substr(0, slash), &a);
      const long n = std::stol(text.substr(slash + 1), &b);
      if (a == slash && b == text.size() - slash - 1 && n >= 1 && i >= 0 && i < n) return {i, n};
    }
  } catch (const std::exception&) {
  }
  throw InputError("--shard needs i/N with 0 <= i < N, e.g. 0/4 (got '" + text + "')");
}

std::pair<std::string, std::string> parse_where(const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw InputError("--where needs LABEL=VALUE, e.g. D=3 or heads_pattern=D,D (got '" + text +
                     "')");
  }
  return {text.substr(0, eq), text.substr(eq + 1)};
}

namespace {

bool selected(const RunConfig& run, const std::map<std::string, std::set<std::string>>& where) {
  for (const auto& [label, values] : where) {
    const auto it = run.labels.find(label);
    if (it == run.labels.end() || values.count(it->second) == 0) return false;
  }
  return true;
}

/// Every --where label must be one of the profile's, and the selection must not be empty: a
/// typo would otherwise run nothing and say nothing.
void check_where(const std::vector<RunConfig>& all, const SweepOptions& o) {
  if (o.where.empty()) return;
  std::set<std::string> labels;
  for (const RunConfig& r : all) {
    for (const auto& [k, v] : r.labels) labels.insert(k);
  }
  for (const auto& [label, values] : o.where) {
    if (labels.count(label) == 0) {
      std::string known;
      for (const std::string& l : labels) known += (known.empty() ? "" : ", ") + l;
      throw InputError("--where " + label + ": profile " + o.profile + " has no label '" + label +
                       "' (its labels: " + known + ")");
    }
  }
  if (std::none_of(all.begin(), all.end(), [&](const RunConfig& r) { return selected(r, o.where); })) {
    throw InputError("--where selects no run of profile " + o.profile);
  }
}

}  // namespace

namespace {

/// How the results file has a run, as a search along a ladder reads it.
Outcome outcome_of(const RunRecord& r) {
  return Outcome{r.status == RunStatus::kDiverged ? std::numeric_limits<double>::infinity()
                                                  : r.best_validation_nmse,
                 r.converged()};
}

}  // namespace

SweepSummary run_sweep(const ExperimentSpec& spec, const ResultStore& store, const SweepOptions& o,
                       const std::function<void(const SweepProgress&)>& progress) {
  return sweep_runs(spec, store, spec.runs(o.profile), o, progress);
}

SweepSummary sweep_runs(const ExperimentSpec& spec, const ResultStore& store,
                        const std::vector<RunConfig>& all, const SweepOptions& o,
                        const std::function<void(const SweepProgress&)>& progress) {
  const auto start = std::chrono::steady_clock::now();
  SweepSummary summary;
  check_where(all, o);
  // The units of work: a run each, or for a kind that searches a ladder (params_needed) a search
  // each, whose next run depends on its recorded ones. Shards deal out whole units.
  const bool ladder = searches_ladder(spec);
  std::vector<LadderLine> units;  // a run is a ladder of one rung
  if (ladder) {
    units = ladder_lines(all, ladder_key(spec), spec, o.profile);
  } else {
    for (const RunConfig& r : all) units.push_back(LadderLine{r.key, {&r}, 1});
  }
  create_parent(store.file());
  const ResultsLock held(store.file(),
                        "another sweep is writing this results file; wait for it to finish (or "
                        "give this one another --results folder and merge them)");
  std::map<std::string, Outcome> outcomes;  // by run key; guarded by `mutex` once threads run
  for (const RunRecord& r : store.read(&summary.warnings)) outcomes.emplace(r.key, outcome_of(r));
  const auto search_of = [&](const LadderLine& unit) {
    return bisect(
        unit.rungs.size(),
        [&](std::size_t i) -> std::optional<Outcome> {
          const auto hit = outcomes.find(unit.rungs[i]->key);
          return hit == outcomes.end() ? std::nullopt : std::optional<Outcome>(hit->second);
        },
        unit.base);
  };
  /// The unit's next run, if it has one the selection keeps.
  const auto next_of = [&](const LadderLine& unit) -> const RunConfig* {
    const RunConfig* next = nullptr;
    if (!ladder) {
      next = outcomes.count(unit.rungs.front()->key) != 0 ? nullptr : unit.rungs.front();
    } else if (const Search s = search_of(unit); s.next) {
      next = unit.rungs[*s.next];
    }
    return next != nullptr && selected(*next, o.where) ? next : nullptr;
  };
  std::vector<const LadderLine*> pending;
  for (std::size_t i = 0; i < units.size(); ++i) {
    const LadderLine& unit = units[i];
    if (static_cast<Index>(i) % o.shards != o.shard) continue;
    if (std::none_of(unit.rungs.begin(), unit.rungs.end(),
                     [&](const RunConfig* r) { return selected(*r, o.where); }))
      continue;
    if (ladder) {
      const Search s = search_of(unit);
      summary.skipped += static_cast<Index>(s.passed.size() + s.failed.size());
    } else {
      ++summary.runs;
      summary.skipped += outcomes.count(unit.rungs.front()->key) != 0 ? 1 : 0;
    }
    if (next_of(unit) != nullptr) pending.push_back(&unit);
  }
  const Index workers = std::max<Index>(
      1, std::min<Index>(
             o.workers > 0 ? o.workers : static_cast<Index>(std::thread::hardware_concurrency()),
             static_cast<Index>(pending.size())));
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::exception_ptr failure;
  // A search's length is known only as it goes: its total counts the runs known to be needed.
  SweepProgress state{0, static_cast<Index>(pending.size()), summary.skipped, 0,
                      std::numeric_limits<double>::infinity()};
  auto work = [&] {
    while (true) {
      const std::size_t i = next++;
      if (i >= pending.size()) return;
      const LadderLine& unit = *pending[i];
      while (true) {
        const RunConfig* to_run = nullptr;
        {
          const std::lock_guard<std::mutex> lock(mutex);
          if (failure) return;
          to_run = next_of(unit);
        }
        if (to_run == nullptr) break;
        try {
          RunConfig run = *to_run;
          if (o.checkpoint_every > 0) {
            run.training.checkpoint = checkpoint_path(store, run);
            run.training.checkpoint_every = o.checkpoint_every;
            run.training.checkpoint_tag = run.key;
          }
          const std::unique_ptr<Task> task = run.make();
          const TrainResult result = train(run.model, *task, run.training);
          // One writer at a time: append() looks at the file's last byte before writing.
          const std::lock_guard<std::mutex> lock(mutex);
          store.append(run, result);
          if (!run.training.checkpoint.empty()) remove_checkpoint(run.training.checkpoint);
          outcomes[run.key] =
              Outcome{result.status == RunStatus::kDiverged
                          ? std::numeric_limits<double>::infinity()
                          : result.best_validation_nmse,
                      result.status == RunStatus::kConverged};
          ++state.done;
          if (result.status == RunStatus::kDiverged)
            ++summary.diverged;
          else
            ++summary.completed;
          if (ladder && next_of(unit) != nullptr) ++state.total;
          state.best_nmse = std::min(state.best_nmse, result.best_validation_nmse);
          state.seconds =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          if (progress) progress(state);
        } catch (...) {
          const std::lock_guard<std::mutex> lock(mutex);
          if (!failure) failure = std::current_exception();
          return;
        }
      }
    }
  };
  std::vector<std::thread> threads;
  for (Index w = 0; w < workers; ++w) threads.emplace_back(work);
  for (std::thread& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
  if (ladder) summary.runs = summary.skipped + summary.completed + summary.diverged;
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

}  // namespace infoflow::experiments
