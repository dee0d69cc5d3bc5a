#include "recorded_runs.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <set>

#include "cells.hpp"
#include "ladder.hpp"
#include "run_key.hpp"

namespace infoflow::experiments {

namespace {

/// A configuration's identity: its labels but the seed.
std::string configuration_of(const std::map<std::string, std::string>& labels) {
  return labels_except(labels, {"seed"});
}

std::optional<std::uint64_t> seed_of(const std::map<std::string, std::string>& labels) {
  const auto it = labels.find("seed");
  if (it == labels.end()) return std::nullopt;
  std::uint64_t seed = 0;
  const std::string& s = it->second;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), seed);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return seed;
}

RunConfig with_seed(RunConfig run, std::uint64_t seed) {
  run.training.seed = seed;
  run.labels["seed"] = std::to_string(seed);
  run.key = run_key(run);
  return run;
}

}  // namespace

std::vector<RunConfig> with_recorded_runs(std::vector<RunConfig> runs,
                                          const std::vector<RunRecord>& records,
                                          const std::string& ladder) {
  std::map<std::string, std::size_t> first;   // configuration -> its first run's index
  std::map<std::string, std::size_t> by_run;  // labels -> the run's index
  std::map<std::string, std::size_t> widest;  // a search (labels but the ladder's) -> its top
  std::set<std::string> keys;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    first.emplace(configuration_of(runs[i].labels), i);
    by_run.emplace(labels_except(runs[i].labels, {}), i);
    keys.insert(runs[i].key);
    if (ladder.empty() || runs[i].labels.count(ladder) == 0) continue;
    const auto [top, fresh] = widest.emplace(labels_except(runs[i].labels, {ladder}), i);
    if (!fresh &&
        as_number(runs[i].labels.at(ladder)) > as_number(runs[top->second].labels.at(ladder)))
      top->second = i;
  }
  const std::vector<RunConfig> profile = runs;
  std::vector<RunConfig> planned_runs = runs;  // each run before longer(): doublings count from it
  // The run as planned, or one of its longer() versions, with the record's key.
  const auto planned_or_longer = [](RunConfig run, const RunRecord& rec) -> std::optional<RunConfig> {
    for (int k = 0; k <= kMaxDoublings; ++k, run = longer(run))
      if (run.key == rec.key) return run;
    return std::nullopt;
  };
  for (const RunRecord& rec : records) {
    if (keys.count(rec.key) != 0) continue;
    // A run already listed (the profile's, or another seed's) trained longer: it takes the
    // run's place, the longest one wins.
    if (const auto same = by_run.find(labels_except(rec.labels, {})); same != by_run.end()) {
      const std::size_t i = same->second;
      if (const std::optional<RunConfig> run = planned_or_longer(planned_runs[i], rec);
          run && doublings(*run, planned_runs[i]) > doublings(runs[i], planned_runs[i]))
        runs[i] = *run;
      continue;
    }
    // A rung past the profile's widest, of a search that found none on its ladder.
    if (const auto top = widest.find(labels_except(rec.labels, {ladder})); top != widest.end()) {
      RunConfig run = profile[top->second];
      for (int k = 1; k <= kMaxWidenings; ++k) {
        run = wider(run, ladder);
        if (run.key != rec.key) continue;
        keys.insert(run.key);
        runs.push_back(run);
        planned_runs.push_back(run);
        break;
      }
      continue;
    }
    // A run of the profile's configuration with another seed, as planned or trained longer.
    const auto at = first.find(configuration_of(rec.labels));
    const std::optional<std::uint64_t> seed = seed_of(rec.labels);
    if (at == first.end() || !seed) continue;
    const RunConfig planned = with_seed(profile[at->second], *seed);
    const std::optional<RunConfig> run = planned_or_longer(planned, rec);
    if (!run) continue;  // these labels, another configuration or code version
    by_run.emplace(labels_except(rec.labels, {}), runs.size());
    runs.push_back(*run);
    planned_runs.push_back(planned);
  }
  return runs;
}

std::optional<RunConfig> as_planned(const std::vector<RunConfig>& profile, const RunConfig& run) {
  const std::optional<std::uint64_t> seed = seed_of(run.labels);
  const std::string configuration = configuration_of(run.labels);
  for (const RunConfig& p : profile) {
    if (configuration_of(p.labels) != configuration) continue;
    if (seed) return with_seed(p, *seed);
    return p;
  }
  return std::nullopt;
}

std::vector<RunConfig> more_seeds(const std::vector<RunConfig>& runs,
                                  const std::vector<RunConfig>& recorded,
                                  const std::map<std::string, std::string>& labels,
                                  std::size_t count) {
  const auto in = [&](const RunConfig& r) {
    return std::all_of(labels.begin(), labels.end(), [&](const auto& kv) {
      const auto l = r.labels.find(kv.first);
      return l != r.labels.end() && l->second == kv.second;
    });
  };
  std::map<std::string, std::pair<const RunConfig*, std::uint64_t>> largest;
  std::vector<std::string> order;
  for (const RunConfig& r : runs) {
    if (!in(r)) continue;
    const std::string id = configuration_of(r.labels);
    const auto [it, fresh] = largest.emplace(id, std::make_pair(&r, r.training.seed));
    if (fresh) order.push_back(id);
    it->second.second = std::max(it->second.second, r.training.seed);
  }
  for (const RunConfig& r : recorded) {
    const auto it = largest.find(configuration_of(r.labels));
    if (it != largest.end()) it->second.second = std::max(it->second.second, r.training.seed);
  }
  std::vector<RunConfig> out;
  for (const std::string& id : order) {
    const auto& [run, seed] = largest.at(id);
    for (std::size_t i = 1; i <= count; ++i) out.push_back(with_seed(*run, seed + i));
  }
  return out;
}

RunConfig longer(RunConfig run) {
  run.training.max_steps = 2 * run.training.budget();
  run.key = run_key(run);
  return run;
}

int doublings(const RunConfig& run, const RunConfig& planned) {
  int k = 0;
  for (numeric::Index b = planned.training.budget(); b < run.training.budget(); b *= 2) ++k;
  return k;
}

}  // namespace infoflow::experiments
