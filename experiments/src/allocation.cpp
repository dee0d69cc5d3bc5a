#include "infoflow/experiments/allocation.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "infoflow/core/error.hpp"
#include "infoflow/core/limits.hpp"
#include "infoflow/numeric/config.hpp"
#include "infoflow/numeric/fit.hpp"

#include "cells.hpp"
#include "claims/claim_kind.hpp"
#include "ladder.hpp"
#include "recorded_runs.hpp"

namespace infoflow::experiments {

namespace {

/// The median training time of the claim's recorded runs; NaN if none is recorded.
double median_seconds(const ExperimentResult& r, const Claim& c) {
  std::vector<double> seconds;
  for (const RunRow& row : r.rows) {
    if (row.status && in_group(row, c.group_labels) && row.seconds > 0)
      seconds.push_back(row.seconds);
  }
  return numeric::median_of(seconds);
}

/// The runs' estimated time: a step costs about as many operations as the model has parameters,
/// so each run takes `per_run` times its parameters over the median of the claim's recorded runs.
double scaled_seconds(const ExperimentResult& r, const Claim& c, double per_run,
                      const std::vector<RunConfig>& runs) {
  std::vector<double> recorded;
  for (const RunRow& row : r.rows) {
    if (row.status && in_group(row, c.group_labels) && row.parameters > 0)
      recorded.push_back(static_cast<double>(row.parameters));
  }
  const double typical = numeric::median_of(recorded);
  double seconds = 0;
  for (const RunConfig& run : runs) {
    const double size = static_cast<double>(numeric::ParameterLayout(run.model).count().total);
    seconds += per_run * (std::isfinite(typical) ? size / typical : 1.0);
  }
  return seconds;
}

std::string about(double seconds) {
  return std::isfinite(seconds) ? ", about " + duration_text(seconds) + " on one worker"
                                : ", time unknown (no run of it is recorded)";
}

/// The runs of each configuration of the claim's group (labels but the seed).
std::map<std::string, std::size_t> seeds_per_configuration(const ExperimentResult& r,
                                                           const Claim& c) {
  std::map<std::string, std::size_t> seeds;
  for (const RunRow& row : r.rows) {
    if (in_group(row, c.group_labels)) ++seeds[labels_except(row.labels, {"seed"})];
  }
  return seeds;
}

/// Runs a bisection over `rungs` rungs trains: ceil(log2(rungs + 1)).
long bisection_runs(std::size_t rungs) {
  return static_cast<long>(std::ceil(std::log2(static_cast<double>(rungs) + 1)));
}

/// The whole ladders of the claim's searches that found no rung reaching the accuracy, each
/// with up to two rungs past its widest (at most kMaxWidenings past the profile's, within the
/// limits of a model): the runs the sweep searches from their records. `added`: the new rungs.
std::vector<RunConfig> widened(const std::vector<RunConfig>& profile, const ExperimentResult& r,
                               const Claim& c, const std::string& key, long* added) {
  const auto in = [&](const std::map<std::string, std::string>& labels) {
    return std::all_of(c.group_labels.begin(), c.group_labels.end(), [&](const auto& kv) {
      const auto l = labels.find(kv.first);
      return l != labels.end() && l->second == kv.second;
    });
  };
  std::map<std::string, const RunConfig*> verified;  // labels -> the run verified there
  std::set<std::string> found;                       // searches with a rung that passed
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    if (!in(r.rows[i].labels)) continue;
    verified[labels_except(r.rows[i].labels, {})] = &r.runs[i];
    if (r.rows[i].status && r.rows[i].best_nmse < kAccuracy)
      found.insert(labels_except(r.rows[i].labels, {key}));
  }
  std::map<std::string, std::vector<RunConfig>> ladders;  // search -> its rungs
  std::vector<std::string> order;
  std::set<std::string> listed;
  for (const RunConfig& run : profile) {
    const std::string search = labels_except(run.labels, {key});
    listed.insert(labels_except(run.labels, {}));
    if (!in(run.labels) || found.count(search) != 0) continue;
    if (ladders.count(search) == 0) order.push_back(search);
    const auto v = verified.find(labels_except(run.labels, {}));
    ladders[search].push_back(v != verified.end() ? *v->second : run);
  }
  for (const auto& [labels, run] : verified) {  // rungs past the profile's, recorded
    const auto ladder = ladders.find(labels_except(run->labels, {key}));
    if (listed.count(labels) == 0 && ladder != ladders.end()) ladder->second.push_back(*run);
  }
  std::vector<RunConfig> out;
  *added = 0;
  for (const std::string& search : order) {
    std::vector<RunConfig>& rungs = ladders.at(search);
    const std::size_t base =
        static_cast<std::size_t>(std::count_if(rungs.begin(), rungs.end(), [&](const RunConfig& x) {
          return listed.count(labels_except(x.labels, {})) != 0;
        }));
    const auto widest =
        std::max_element(rungs.begin(), rungs.end(), [&](const auto& x, const auto& y) {
          return as_number(x.labels.at(key)) < as_number(y.labels.at(key));
        });
    RunConfig next = *widest;
    const std::size_t past = rungs.size() - base;  // rungs past the profile's already
    for (std::size_t k = past; k < kMaxWidenings && k < past + 2; ++k) {
      next = wider(next, key);
      try {
        next.model.validate();
      } catch (const InputError&) {
        break;  // past the limits of a model
      }
      rungs.push_back(next);
      ++*added;
    }
    out.insert(out.end(), rungs.begin(), rungs.end());
  }
  return out;
}

}  // namespace

std::vector<Request> requests(const ExperimentSpec& spec, const ExperimentResult& result,
                              const BudgetOptions& o) {
  std::vector<Request> out;
  const bool ladder = searches_ladder(spec);
  const std::string key = ladder_key(spec);
  const std::vector<RunConfig> profile = spec.runs(result.profile);
  for (const Claim& c : result.claims) {
    if (c.verdict != Agreement::kInconclusive) continue;
    Request q;
    q.experiment = result.name;
    q.group = c.group;
    q.need = c.need;
    const double per_run = median_seconds(result, c);
    // The rungs of the profile's ladder (1 for a kind without one).
    std::size_t rungs = 1;
    if (ladder) {
      std::set<std::string> widths;
      for (const RunConfig& run : profile) {
        if (run.labels.count(key) != 0) widths.insert(run.labels.at(key));
      }
      rungs = std::max<std::size_t>(widths.size(), 1);
    }
    switch (c.need) {
      case Need::kRuns:
        for (std::size_t i = 0; i < result.rows.size(); ++i) {
          if (!result.rows[i].status && in_group(result.rows[i], c.group_labels))
            q.runs.push_back(result.runs[i]);
        }
        q.expected_runs = static_cast<long>(q.runs.size());
        q.seconds = per_run * static_cast<double>(q.expected_runs);
        q.text = fmt::format("{} run{} without a result yet{}", q.expected_runs,
                             q.expected_runs == 1 ? "" : "s", about(q.seconds));
        break;
      case Need::kSeeds: {
        const std::map<std::string, std::size_t> seeds = seeds_per_configuration(result, c);
        std::size_t most = 0;
        for (const auto& [id, n] : seeds) most = std::max(most, n);
        if (ladder) most = most / rungs + (most % rungs != 0 ? 1 : 0);  // rows are rungs
        if (most + o.more_seeds > o.max_seeds) {
          q.text = fmt::format("more seeds than the {} a configuration may have", o.max_seeds);
          break;
        }
        q.runs = more_seeds(profile, result.runs, c.group_labels, o.more_seeds);
        const std::size_t configurations = q.runs.size() / o.more_seeds;
        q.expected_runs = ladder ? static_cast<long>(q.runs.size() / rungs) * bisection_runs(rungs)
                                 : static_cast<long>(q.runs.size());
        q.seconds = per_run * static_cast<double>(q.expected_runs);
        q.text =
            ladder ? fmt::format("{} more seeds: {} searches, up to {} runs{}", o.more_seeds,
                                 q.runs.size() / rungs, q.expected_runs, about(q.seconds))
                   : fmt::format("{} more seeds for {} configuration{}: {} runs{}", o.more_seeds,
                                 configurations / (ladder ? rungs : 1),
                                 configurations == 1 ? "" : "s", q.expected_runs, about(q.seconds));
        break;
      }
      case Need::kSteps: {
        // Each run that stopped at its budget (the profile's, or another seed's), trained again
        // until the plateau, at most twice as long (longer(); at most kMaxDoublings times as
        // planned); a rung past the ladder is not lengthened.
        long capped = 0;  // already trained kMaxDoublings times over
        long beyond = 0;  // rungs past the profile's ladder
        for (std::size_t i = 0; i < result.rows.size(); ++i) {
          const RunRow& row = result.rows[i];
          if (row.status != numeric::RunStatus::kBudgetReached || !in_group(row, c.group_labels))
            continue;
          if (ladder && row.best_nmse < kAccuracy) continue;  // it passed: its rung is settled
          const std::optional<RunConfig> planned = as_planned(profile, result.runs[i]);
          if (!planned) {
            ++beyond;
          } else if (doublings(result.runs[i], *planned) >= kMaxDoublings) {
            ++capped;
          } else {
            q.runs.push_back(longer(result.runs[i]));
          }
        }
        q.expected_runs = static_cast<long>(q.runs.size());
        q.seconds = 2 * per_run * static_cast<double>(q.expected_runs);
        const auto runs = [](long n) { return fmt::format("{} run{}", n, n == 1 ? "" : "s"); };
        q.text = q.expected_runs > 0
                     ? fmt::format("more steps: {} that did not pass the plateau test, trained "
                                   "again until the plateau, at most twice as long (a fresh "
                                   "run: a finished run keeps no checkpoint){}",
                                   runs(q.expected_runs), about(q.seconds))
                     : std::string("more steps, but no run is left to lengthen");
        if (capped > 0)
          q.text += fmt::format("; {} trained {} times as long as planned still did not "
                                "pass the plateau test",
                                runs(capped), 1 << kMaxDoublings);
        if (beyond > 0)
          q.text += fmt::format("; {} past the profile's ladder {} not lengthened",
                                runs(beyond), beyond == 1 ? "is" : "are");
        break;
      }
      case Need::kWiderLadder:
        if (ladder) {
          q.runs = widened(profile, result, c, key, &q.expected_runs);
          // A wider rung takes longer, in proportion to its parameters; every rung past the
          // widest is counted, as the search may need each.
          q.seconds = scaled_seconds(result, c, per_run, q.runs);
          q.text = q.expected_runs == 0
                       ? fmt::format("a wider ladder than {} times the profile's widest {}",
                                     1 << kMaxWidenings, key)
                       : fmt::format("a wider ladder: up to {} rungs past the widest {}{}",
                                     q.expected_runs, key, about(q.seconds));
          if (q.expected_runs == 0) q.runs.clear();
        } else {
          q.seconds = std::numeric_limits<double>::quiet_NaN();
          q.text =
              "the parameters needed at each T (params_needed, experiments/mstar/), which "
              "also says whether any width of this model class reaches the accuracy; time not "
              "estimated, it is another experiment";
        }
        break;
      case Need::kNothing:
        q.text = "no more runs of this experiment decide it: " + c.why;
        break;
    }
    out.push_back(std::move(q));
  }
  return out;
}

BudgetSummary spend_budget(const std::vector<ExperimentSpec>& specs, const std::string& profile,
                           const std::filesystem::path& results, theorems::Engine& engine,
                           const BudgetOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const double workers = static_cast<double>(
      o.sweep.workers > 0 ? o.sweep.workers
                          : std::max<numeric::Index>(1, std::thread::hardware_concurrency()));
  // Wall time over the workers; a request of fewer runs than workers leaves some idle.
  const auto wall = [&](const Request& q) {
    const double side_by_side =
        std::min(workers, static_cast<double>(std::max(1L, q.expected_runs)));
    return std::isfinite(q.seconds) ? q.seconds / side_by_side : 0.0;
  };
  BudgetSummary s;
  std::set<std::string> exhausted;  // requests that trained nothing: not asked again
  while (true) {
    s.left.clear();
    const ExperimentSpec* chosen_spec = nullptr;
    const Request* chosen = nullptr;
    std::vector<std::pair<const ExperimentSpec*, Request>> candidates;
    for (const ExperimentSpec& spec : specs) {
      const ResultStore store(results / (spec.name + ".jsonl"));
      const ExperimentResult r = verify(spec, profile, store.read(), engine);
      for (Request& q : requests(spec, r, o)) {
        s.left.push_back(q);
        if (!q.runs.empty() && exhausted.count(q.experiment + "\n" + q.group) == 0)
          candidates.emplace_back(&spec, std::move(q));
      }
    }
    const double remaining = o.seconds - elapsed();
    for (const auto& [spec, q] : candidates) {
      const double cost = wall(q);
      if (cost > remaining) continue;
      if (chosen == nullptr || cost < wall(*chosen)) {
        chosen_spec = spec;
        chosen = &q;
      }
    }
    if (chosen == nullptr || remaining <= 0) break;
    SweepOptions so = o.sweep;
    so.profile = profile;
    so.where.clear();
    const ResultStore store(results / (chosen_spec->name + ".jsonl"));
    const SweepSummary done = sweep_runs(*chosen_spec, store, chosen->runs, so);
    const long trained = static_cast<long>(done.completed + done.diverged);
    if (trained == 0) exhausted.insert(chosen->experiment + "\n" + chosen->group);
    s.spent.push_back(fmt::format("{}, {}: {}, {} run{} in {}", chosen->experiment, chosen->group,
                                  to_text(chosen->need), trained, trained == 1 ? "" : "s",
                                  duration_text(done.seconds)));
  }
  s.seconds = elapsed();
  return s;
}

std::string budget_text(const BudgetSummary& s, double budget) {
  std::string out =
      fmt::format("budget {}: {} spent", duration_text(budget), duration_text(s.seconds));
  out += s.spent.empty() ? ", nothing trained\n" : ":\n";
  for (const std::string& line : s.spent) out += "  trained " + line + "\n";
  if (s.left.empty()) return out + "every claim is decided\n";
  out += fmt::format("{} claim{} still undecided, and what each would need:\n", s.left.size(),
                     s.left.size() == 1 ? "" : "s");
  for (const Request& q : s.left)
    out += fmt::format("  {}, {}: {}\n", q.experiment, q.group, q.text);
  return out;
}

double parse_duration(const std::string& text) {
  const auto bad = [&] {
    return InputError(fmt::format(
        "--budget needs a duration such as 90s, 15m, 2.5h or 1h30m: numbers with the units h, m "
        "and s, largest first, from 1s to {}h (got '{}')",
        limits::kBudgetSeconds / 3600, text));
  };
  // One grammar: (DIGITS[.DIGITS] UNIT)+ with the units h, m, s each once, in that order; no
  // sign, exponent or unitless number, so that 0x10s or 1e-9s is no duration.
  const auto digits = [&](std::size_t at) {
    std::size_t end = at;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])) != 0) ++end;
    return end;
  };
  static constexpr std::string_view kUnits = "hms";
  static constexpr double kScale[] = {3600, 60, 1};
  double total = 0;
  std::size_t at = 0;
  std::size_t next_unit = 0;  // units left, largest first
  while (at < text.size()) {
    std::size_t end = digits(at);
    if (end == at) throw bad();
    if (end < text.size() && text[end] == '.') {
      const std::size_t fraction = digits(end + 1);
      if (fraction == end + 1) throw bad();
      end = fraction;
    }
    double value = 0;
    const auto [stop, error] = std::from_chars(text.data() + at, text.data() + end, value,
                                               std::chars_format::fixed);
    if (error != std::errc() || stop != text.data() + end || end >= text.size()) throw bad();
    const std::size_t unit = kUnits.find(text[end], next_unit);
    if (unit == std::string_view::npos) throw bad();
    total += value * kScale[unit];
    next_unit = unit + 1;
    at = end + 1;
  }
  if (!(total >= 1) || total > static_cast<double>(limits::kBudgetSeconds)) throw bad();
  return total;
}

std::string duration_text(double seconds) {
  if (seconds < 120) return fmt::format("{:.0f} s", seconds);
  if (seconds < 7200) return fmt::format("{:.1f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

}  // namespace infoflow::experiments
