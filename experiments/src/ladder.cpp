#include "ladder.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "infoflow/core/error.hpp"

#include "cells.hpp"

namespace infoflow::experiments {

std::string ladder_key(const ExperimentSpec& spec) { return spec.arm.empty() ? "E" : spec.arm; }

std::vector<LadderLine> ladder_lines(const std::vector<RunConfig>& runs, const std::string& key,
                                     const ExperimentSpec& spec, const std::string& profile) {
  std::map<std::string, std::size_t> index;  // line name -> its place in `out`
  std::vector<LadderLine> out;
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

Search bisect(std::size_t rungs,
              const std::function<std::optional<Outcome>(std::size_t)>& outcome) {
  Search s;
  std::size_t low = 0;
  std::size_t high = rungs;  // the answer lies in [low, high]; high == rungs: none passes
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
  s.found = low;
  std::sort(s.failed.begin(), s.failed.end());
  std::sort(s.passed.begin(), s.passed.end());
  return s;
}

}  // namespace infoflow::experiments
