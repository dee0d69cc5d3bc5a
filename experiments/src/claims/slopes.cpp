#include "claims/slopes.hpp"

#include <set>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "infoflow/numeric/fit.hpp"
#include "infoflow/symbolic/rate.hpp"

#include "evidence.hpp"

namespace infoflow::experiments {

std::map<std::string, std::vector<const Cell*>> judge_lines(
    const Cells& cells, const std::string& xkey, const char* x_name,
    const std::function<double(const Cell&)>& x_of, const LineJudge& judge, ExperimentResult& out) {
  const std::set<std::string> along{xkey, "heads_pattern"};
  std::map<std::string, std::vector<const Cell*>> lines;
  for (const auto& [id, c] : cells) lines[labels_except(c.labels, along)].push_back(&c);
  for (const auto& [name, members] : lines) {
    SlopeLine line;
    line.members = members;
    std::vector<std::pair<double, const Cell*>> points;
    for (const Cell* c : members) {
      const double x = x_of(*c);
      points.emplace_back(x, c);
      if (c->finished() == 0 || numeric::median_of(c->nmse) >= kSaturated) continue;
      line.xs.push_back(x);
      line.ys.push_back(c->nmse);
      line.fitted.push_back(c);
    }
    Series s = series_from(name, points);
    Claim claim;
    claim.group = name;
    claim.group_labels = labels_without(members.front()->labels, along);
    const std::vector<const Cell*>& fitted = line.fitted;
    try {
      judge(line, s, claim);
    } catch (const std::invalid_argument&) {
      claim.need = Need::kWiderLadder;
      claim.measured = "fewer than two points outside saturation";
      claim.why =
          !s.median.empty() && s.median.front() >= kSaturated
              ? fmt::format(
                    "saturated: the median NMSE is {:.2f} already at {} = {:g}; at this "
                    "budget the network does not learn the target",
                    s.median.front(), x_name, s.x.front())
              : fmt::format(
                    "only {} point{} outside saturation (median NMSE < {}); a slope "
                    "needs at least {}",
                    fitted.size(), fitted.size() == 1 ? "" : "s", kSaturated, kMinFitPoints);
    }
    // A slope needs enough unsaturated points, each with enough seeds.
    const std::string few = too_few_seeds(fitted);
    if (claim.verdict != Agreement::kInconclusive &&
        (fitted.size() < kMinFitPoints || !few.empty())) {
      claim.verdict = Agreement::kInconclusive;
      claim.need = !few.empty() ? Need::kSeeds : Need::kWiderLadder;
      claim.why = !few.empty() ? few
                               : fmt::format(
                                     "only {} points outside saturation (median NMSE < {}); a "
                                     "slope needs at least {}",
                                     fitted.size(), kSaturated, kMinFitPoints);
    }
    // A profile with fewer values of x than a slope needs points: no seed, step or width
    // decides the claim (runs still missing are trained all the same).
    std::set<double> xs;
    for (const auto& [x, c] : points) xs.insert(x);
    if (claim.verdict == Agreement::kInconclusive && claim.need != Need::kRuns &&
        xs.size() < kMinFitPoints) {
      claim.need = Need::kNothing;
      claim.why += fmt::format("; the profile measures {} values of {}, fewer than a slope needs",
                               xs.size(), x_name);
    }
    out.claims.push_back(claim);
    out.series.push_back(s);
  }
  return lines;
}

std::string rate_text(const theorems::Plan& plan) {
  return plan.priced() ? plan.rate().print(plan.landau()) : "no rate (" + plan.reason + ")";
}

}  // namespace infoflow::experiments
