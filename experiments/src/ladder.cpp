#include "ladder.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "infoflow/core/error.hpp"

#include "cells.hpp"
#include "run_key.hpp"

namespace infoflow::experiments {

std::string ladder_key(const ExperimentSpec& spec) {
  return spec.arm.empty() ? "E" : spec.arm;
}

std::vector<LadderLine> ladder_lines(const std::vector<RunConfig>& runs, const std::string& key,
                                     const ExperimentSpec& spec, const std::string& profile) {
  std::map<std::string, std::size_t> index;  // line name -> its place in `out`
  std::vector<LadderLine> out;
  std::set<std::string> listed;  // the profile's widths
  for (const RunConfig& r : spec.runs(profile)) {
    if (r.labels.count(key) != 0) listed.insert(r.labels.at(key));
  }
  for (const RunConfig& r : runs) {
    const auto width = r.labels.find(key);
    if (width == r.labels.end() || !std::isfinite(as_number(width->second))) {
      throw InputError(SourceLocation{spec.file.string(), 0, 0},
                       fmt::format("profile.{}: the ladder of params_needed is the list of '{}' "
                                   "(the experiment's arm): it needs at least two numbers",
                                   profile, key));
    }
    const std::string name = labels_except(r.labels, {key, "heads_pattern"});
    const auto [at, fresh] = index.emplace(name, out.size());
    if (fresh) out.push_back(LadderLine{name, {}});
    out[at->second].rungs.push_back(&r);
  }
  for (LadderLine& line : out) {
    const auto width = [&](const RunConfig* r) { return as_number(r->labels.at(key)); };
    std::stable_sort(line.rungs.begin(), line.rungs.end(),
                     [&](const RunConfig* a, const RunConfig* b) { return width(a) < width(b); });
    line.base = static_cast<std::size_t>(
        std::count_if(line.rungs.begin(), line.rungs.end(),
                      [&](const RunConfig* r) { return listed.count(r->labels.at(key)) != 0; }));
    for (std::size_t i = 1; i < line.rungs.size(); ++i) {
      if (width(line.rungs[i]) == width(line.rungs[i - 1])) {
        throw InputError(SourceLocation{spec.file.string(), 0, 0},
                         fmt::format("profile.{}: the ladder '{}' lists {} twice", profile, key,
                                     line.rungs[i]->labels.at(key)));
      }
    }
  }
  return out;
}

Search bisect(std::size_t rungs, const std::function<std::optional<Outcome>(std::size_t)>& outcome,
              std::size_t base) {
  Search s;
  std::size_t low = 0;
  std::size_t high = std::min(base, rungs);  // the answer lies in [low, high]
  while (low < high) {
    const std::size_t mid = low + (high - low) / 2;
    const std::optional<Outcome> o = outcome(mid);
    if (!o) {
      s.next = mid;
      break;
    }
    if (o->nmse < kAccuracy) {
      s.passed.push_back(mid);
      high = mid;
    } else {
      s.failed.push_back(mid);
      low = mid + 1;
    }
  }
  // Past the profile's ladder, one rung at a time.
  while (!s.next && low == high && low < rungs && s.passed.empty()) {
    const std::optional<Outcome> o = outcome(low);
    if (!o) {
      s.next = low;
      break;
    }
    if (o->nmse < kAccuracy) {
      s.passed.push_back(low);
      break;
    }
    s.failed.push_back(low);
    high = ++low;
  }
  s.found = low;
  std::sort(s.failed.begin(), s.failed.end());
  std::sort(s.passed.begin(), s.passed.end());
  return s;
}

RunConfig wider(RunConfig run, const std::string& key) {
  numeric::Index* value = key == "ffn_width"       ? &run.model.ffn_width
                          : key == "readout_width" ? &run.model.readout_width
                          : key == "E"             ? &run.model.embedding
                          : key == "head_dim"      ? &run.model.head_dim
                                                   : nullptr;
  if (value == nullptr || *value <= 0) {
    throw InputError("--budget widens a ladder of ffn_width, readout_width, E or head_dim, not '" +
                     key + "'");
  }
  *value *= 2;
  run.labels[key] = std::to_string(*value);
  run.key = run_key(run);
  return run;
}

}  // namespace infoflow::experiments
