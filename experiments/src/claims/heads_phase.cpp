// heads_phase: in each group (e.g. each D) the configurations the engine calls efficient must
// reach a lower validation NMSE than the others (the rule is in verification.hpp).

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "infoflow/numeric/fit.hpp"

#include "claims/claim_kind.hpp"
#include "evidence.hpp"

namespace infoflow::experiments {

namespace {

void judge(const ExperimentSpec& spec, const Cells& cells, ExperimentResult& out) {
  const std::string arm = spec.arm.empty() ? "heads" : spec.arm;
  const std::string series_key = arm == "heads" ? "heads_pattern" : arm;
  out.x_label = spec.group.empty() ? "configuration" : spec.group;
  out.log_x = false;
  const std::set<std::string> arms{arm, "heads", "heads_pattern", "L"};
  std::map<std::string, std::vector<const Cell*>> groups;
  for (const auto& [id, c] : cells) groups[labels_except(c.labels, arms)].push_back(&c);
  for (const auto& [group, members] : groups) {
    const std::map<std::string, std::string> group_labels =
        labels_without(members.front()->labels, arms);
    std::vector<const Cell*> good;
    std::vector<const Cell*> bad;
    std::string good_names;
    std::string bad_names;
    std::string medians;
    for (const Cell* c : members) {
      const bool efficient = c->plan->verdict == theorems::Verdict::kEfficient;
      (efficient ? good : bad).push_back(c);
      (efficient ? good_names : bad_names) +=
          (efficient ? good_names : bad_names).empty() ? "" : ", ";
      const std::string name = arm == "heads" || c->labels.count(arm) == 0
                                   ? c->labels.at("heads")
                                   : arm + " " + c->labels.at(arm);
      (efficient ? good_names : bad_names) += name;
      medians += fmt::format("{}{} {}", medians.empty() ? "" : "; ", name,
                             nmse_text(numeric::median_of(c->nmse)));
    }
    Claim claim;
    claim.group = group;
    claim.group_labels = group_labels;
    if (good.empty() || bad.empty()) {
      claim.prediction = good.empty() ? "no configuration here is efficient"
                                      : "every configuration here is efficient";
      claim.measured = "median NMSE " + medians;
      claim.why = "the engine predicts no transition in this group, so there is no gap to test";
      out.claims.push_back(claim);
      continue;
    }
    claim = gap_claim(group,
                      fmt::format("{} efficient, {} not: the efficient ones reach a lower NMSE",
                                  good_names, bad_names),
                      good, bad, medians);
    claim.group_labels = group_labels;
    // Where the measured transition lies, along configurations ordered by their heads.
    std::vector<const Cell*> ordered = members;
    std::sort(ordered.begin(), ordered.end(), [](const Cell* x, const Cell* y) {
      const auto total = [](const Cell* c) {
        const std::vector<numeric::Index>& heads = c->run->model.heads;
        return std::accumulate(heads.begin(), heads.end(), numeric::Index{0});
      };
      return std::make_pair(total(x), x->labels.at("heads")) <
             std::make_pair(total(y), y->labels.at("heads"));
    });
    std::vector<std::vector<double>> levels;
    for (const Cell* c : ordered) levels.push_back(c->nmse);
    try {
      const numeric::Transition t = numeric::locate_transition(levels);
      // Along heads that do not help one another (a rise at every step) there is no drop to name.
      if (t.decades > 0)
        claim.measured += fmt::format(
            "; largest drop {:.2f} decades [{:.2f}, {:.2f}] from {} to {}", t.decades, t.ci.low,
            t.ci.high, ordered[t.from]->labels.at("heads"), ordered[t.at]->labels.at("heads"));
    } catch (const std::invalid_argument&) {
      // fewer than two configurations with results: the gap claim says so already
    }
    out.claims.push_back(claim);
  }
  std::map<std::string, std::vector<std::pair<double, const Cell*>>> lines;
  for (const auto& [id, c] : cells) {
    const std::string name =
        c.labels.count(series_key) ? c.labels.at(series_key) : c.labels.at("heads");
    const double x = spec.group.empty() || !c.labels.count(spec.group)
                         ? 0.0
                         : as_number(c.labels.at(spec.group));
    lines[name].emplace_back(x, &c);
  }
  for (auto& [name, points] : lines) out.series.push_back(series_from("heads " + name, points));
}

}  // namespace

extern const ClaimKind kHeadsPhase;  // registered in claims/registry.cpp
const ClaimKind kHeadsPhase{"heads_phase", judge};

}  // namespace infoflow::experiments
