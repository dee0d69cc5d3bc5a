#include "infoflow/experiments/cross_check.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <system_error>

#include <fmt/format.h>

#include "infoflow/experiments/reported.hpp"

namespace infoflow::experiments {

namespace {

/// Whether the group of labels `b` (another profile's claim) is the same configurations as
/// `a` (this profile's, whose runs are `my_rows`): the same labels, or more, where the extra one
/// is T and every run of `a` has that T (a profile that varies T against one that fixes it).
bool same_configurations(const std::map<std::string, std::string>& a,
                         const std::map<std::string, std::string>& b,
                         const std::vector<RunRow>& my_rows) {
  for (const auto& [k, v] : b) {
    const auto it = a.find(k);
    if (it != a.end()) {
      if (it->second != v) return false;
      continue;
    }
    if (k != "T") return false;
    bool any = false;  // no run of mine: nothing says which T they are
    for (const RunRow& row : my_rows) {
      const bool member = std::all_of(a.begin(), a.end(), [&](const auto& kv) {
        const auto l = row.labels.find(kv.first);
        return l != row.labels.end() && l->second == kv.second;
      });
      if (member && std::to_string(row.tokens) != v) return false;
      any = any || member;
    }
    if (!any) return false;
  }
  return std::all_of(a.begin(), a.end(), [&](const auto& kv) { return b.count(kv.first) != 0; });
}

}  // namespace

void cross_check(ExperimentResult& r, const ExperimentResult& other) {
  for (Claim& c : r.claims) {
    for (const Claim& o : other.claims) {
      if (!same_configurations(c.group_labels, o.group_labels, r.rows) || o.verdict == c.verdict) continue;
      c.cross_check = fmt::format("the {} profile's results say: {} ({}; {})", other.profile,
                                  to_text(o.verdict), o.measured, o.why);
    }
  }
}

ExperimentResult verify_in_context(const ExperimentSpec& spec, const std::string& profile,
                                   const std::vector<RunRecord>& records,
                                   const std::filesystem::path& results_file,
                                   theorems::Engine& engine) {
  namespace fs = std::filesystem;
  ExperimentResult r = verify(spec, profile, records, engine);
  // The shipped full results, where they exist, are the better evidence: a verdict of another
  // profile that differs from theirs says so.
  const fs::path shipped = spec.file.parent_path() / "results" / "full" / (spec.name + ".jsonl");
  const bool has_full =
      std::find(spec.profiles.begin(), spec.profiles.end(), "full") != spec.profiles.end();
  std::error_code missing;  // results_file may not exist yet: then it is not the shipped one
  if (profile != "full" && has_full && fs::is_regular_file(shipped) &&
      !fs::equivalent(shipped, results_file, missing))
    cross_check(r, verify(spec, "full", ResultStore(shipped).read(), engine));
  if (const std::optional<ReportedValues> paper = reported_for(spec)) {
    r.reported = compare_with_reported(r, *paper);
    r.reported_source = paper->provenance + ": " + paper->paper;
  }
  return r;
}

}  // namespace infoflow::experiments
