#include "recorded_seeds.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <set>

#include "cells.hpp"
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

std::vector<RunConfig> with_recorded_seeds(std::vector<RunConfig> runs,
                                           const std::vector<RunRecord>& records) {
  std::map<std::string, std::size_t> first;  // configuration -> its first run's index
  std::set<std::string> keys;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    first.emplace(configuration_of(runs[i].labels), i);
    keys.insert(runs[i].key);
  }
  for (const RunRecord& rec : records) {
    if (keys.count(rec.key) != 0) continue;
    const auto at = first.find(configuration_of(rec.labels));
    const std::optional<std::uint64_t> seed = seed_of(rec.labels);
    if (at == first.end() || !seed) continue;
    RunConfig run = with_seed(runs[at->second], *seed);
    if (run.key != rec.key) continue;  // these labels, another configuration or code version
    keys.insert(run.key);
    runs.push_back(std::move(run));
  }
  return runs;
}

std::vector<RunConfig> more_seeds(const std::vector<RunConfig>& runs,
                                  const std::map<std::string, std::string>& labels,
                                  std::size_t count) {
  std::map<std::string, std::pair<const RunConfig*, std::uint64_t>> largest;
  std::vector<std::string> order;
  for (const RunConfig& r : runs) {
    if (!std::all_of(labels.begin(), labels.end(), [&](const auto& kv) {
          const auto l = r.labels.find(kv.first);
          return l != r.labels.end() && l->second == kv.second;
        }))
      continue;
    const std::string id = configuration_of(r.labels);
    const auto [it, fresh] = largest.emplace(id, std::make_pair(&r, r.training.seed));
    if (fresh) order.push_back(id);
    it->second.second = std::max(it->second.second, r.training.seed);
  }
  std::vector<RunConfig> out;
  for (const std::string& id : order) {
    const auto& [run, seed] = largest.at(id);
    for (std::size_t i = 1; i <= count; ++i) out.push_back(with_seed(*run, seed + i));
  }
  return out;
}

}  // namespace infoflow::experiments
