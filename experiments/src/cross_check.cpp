#include "infoflow/experiments/cross_check.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <system_error>

#include <fmt/format.h>

#include "infoflow/experiments/reported.hpp"

namespace infoflow::experiments {

namespace {

/// The sequence lengths of the runs in `rows` that are members of the group `labels`.
std::set<long> lengths_of(const std::map<std::string, std::string>& labels,
                          const std::vector<RunRow>& rows) {
  std::set<long> out;
  for (const RunRow& row : rows) {
    if (in_group(row, labels)) out.insert(row.tokens);
  }
  return out;
}

/// Whether the group of labels `b` (another profile's claim, whose runs are among
/// `other_rows`) is the same configurations as `a` (this profile's, among `my_rows`): the same
/// labels, or more where the extra one is T (a profile that varies T against one that fixes
/// it), and every T of a's runs among b's (T = 64 is not T = 8 under the same label D = 2).
bool same_configurations(const std::map<std::string, std::string>& a,
                         const std::map<std::string, std::string>& b,
                         const std::vector<RunRow>& my_rows, const std::vector<RunRow>& other_rows) {
  for (const auto& [k, v] : b) {
    const auto it = a.find(k);
    if (it != a.end() ? it->second != v : k != "T") return false;
  }
  if (!std::all_of(a.begin(), a.end(), [&](const auto& kv) { return b.count(kv.first) != 0; }))
    return false;
  const std::set<long> mine = lengths_of(a, my_rows);
  const std::set<long> theirs = lengths_of(b, other_rows);
  // No run of mine: nothing says which T they are.
  return !mine.empty() && std::includes(theirs.begin(), theirs.end(), mine.begin(), mine.end());
}

/// Whether every run of the group `labels` among `rows` has a result.
bool complete(const std::map<std::string, std::string>& labels, const std::vector<RunRow>& rows) {
  return std::all_of(rows.begin(), rows.end(),
                     [&](const RunRow& row) { return !in_group(row, labels) || row.status; });
}

}  // namespace

std::filesystem::path shipped_results(const ExperimentSpec& spec, const std::string& profile) {
  return spec.file.parent_path() / "results" / profile / (spec.name + ".jsonl");
}

void cross_check(ExperimentResult& r, const ExperimentResult& other) {
  for (Claim& c : r.claims) {
    for (const Claim& o : other.claims) {
      if (!same_configurations(c.group_labels, o.group_labels, r.rows, other.rows) ||
          o.verdict == c.verdict)
        continue;
      // Runs still to come: an inconclusive there may be only the lack of them.
      if (o.verdict == Agreement::kInconclusive && !complete(o.group_labels, other.rows)) continue;
      if (!c.cross_check.empty()) c.cross_check += "; ";
      c.cross_check += fmt::format("the {} profile's results say: {} ({}; {})", other.profile,
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
  if (r.missing_runs > 0) {  // the command that resumes them, into this very results folder
    r.notes.insert(r.notes.begin(),
                   fmt::format("{} of {} runs have no result yet (run `infoflow sweep {}{} "
                               "--results {}`)",
                               r.missing_runs, r.rows.size(),
                               spec.called.empty() ? spec.file.string() : spec.called,
                               profile == "quick" ? "" : " --profile " + profile,
                               results_file.parent_path().empty()
                                   ? std::string(".")
                                   : results_file.parent_path().string()));
  }
  // Another profile's shipped results, where they exist, are evidence on the same claims (the
  // full profile's: a larger version of the quick one's; the paper profiles': the same
  // configurations trained another way): a verdict that differs from theirs says so.
  for (const std::string& other : spec.profiles) {
    const fs::path shipped = shipped_results(spec, other);
    std::error_code missing;  // results_file may not exist yet: then it is not the shipped one
    if (other == profile || !fs::is_regular_file(shipped) ||
        fs::equivalent(shipped, results_file, missing))
      continue;
    cross_check(r, verify(spec, other, ResultStore(shipped).read(), engine));
  }
  if (const std::optional<ReportedValues> paper = reported_for(spec)) {
    r.reported = compare_with_reported(r, *paper);
    r.reported_source = paper->provenance + ": " + paper->paper;
  }
  return r;
}

}  // namespace infoflow::experiments
