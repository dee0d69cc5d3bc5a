#include "evidence.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "infoflow/numeric/fit.hpp"
#include "infoflow/symbolic/rate.hpp"

#include "prediction.hpp"

namespace infoflow::experiments {

std::string too_few_seeds(const std::vector<const Cell*>& cells) {
  for (const Cell* c : cells) {
    if (c->finished() < kMinSeeds) {
      return fmt::format(
          "too few seeds: {} finished run{} for {} (an interval needs at least {})", c->finished(),
          c->finished() == 1 ? "" : "s", c->labels.count("heads") ? c->labels.at("heads") : "a point",
          kMinSeeds);
    }
  }
  return "";
}

std::string not_converged(const std::vector<const Cell*>& cells, const std::string& side) {
  std::size_t runs = 0;
  std::size_t converged = 0;
  std::size_t unrecorded = 0;
  for (const Cell* c : cells) {
    runs += c->finished();
    converged += c->converged_count();
    for (std::size_t i = 0; i < c->nmse.size(); ++i)
      unrecorded += std::isfinite(c->nmse[i]) && !c->recorded[i] ? 1 : 0;
  }
  if (converged >= runs) return "";
  return fmt::format(
      "not converged at this budget: {} of {} runs {} did not pass the plateau test{}, and a "
      "high NMSE counts only from converged runs",
      runs - converged, runs, side,
      unrecorded == 0 ? ""
                      : fmt::format(" ({} of them predate the convergence record: unknown)",
                                    unrecorded));
}

std::string rates_alike_at_T(const std::vector<const Cell*>& good,
                            const std::vector<const Cell*>& bad) {
  if (good.empty() || bad.empty()) return "";
  const long tokens = good.front()->tokens;
  // The costliest efficient configuration and the cheapest other one, at this T.
  const Cell* efficient = nullptr;
  const Cell* other = nullptr;
  double most = -std::numeric_limits<double>::infinity();
  double least = std::numeric_limits<double>::infinity();
  for (const std::vector<const Cell*>* side : {&good, &bad}) {
    for (const Cell* c : *side) {
      if (c->plan == nullptr || c->tokens != tokens) return "";
      // "Not computable" (an order no input reveals) is beyond every rate; "outside the
      // framework" and "undecided" have none, so nothing says this configuration costs more, or
      // less, than the others here.
      const theorems::Verdict v = c->plan->verdict;
      if (v == theorems::Verdict::kOutsideFramework || v == theorems::Verdict::kUndecided)
        return fmt::format("at T = {} the rates cannot separate them: {} has none ({}), so a gap "
                           "measured here tests no prediction",
                           tokens, group_text(c->labels), theorems::to_text(v));
      const double a = v == theorems::Verdict::kNotComputable
                           ? std::numeric_limits<double>::infinity()
                           : exponent_at(*c->plan, tokens);
      if (!std::isfinite(a)) return "";
      if (side == &good && a > most) std::tie(most, efficient) = std::pair(a, c);
      if (side == &bad && a < least) std::tie(least, other) = std::pair(a, c);
    }
  }
  if (least > most) return "";
  const auto rate = [tokens](const Cell* c) {
    return c->plan->rate_at(tokens).print(c->plan->landau());
  };
  return fmt::format(
      "at T = {} the rates do not separate them (not efficient: {} at this T, efficient: {}): "
      "the verdict speaks of T growing, and a gap measured here neither agrees nor disagrees "
      "with it; the claim needs a T where the rates separate",
      tokens, rate(other), rate(efficient));
}

Claim gap_claim(const std::string& group, const std::string& prediction,
                const std::vector<const Cell*>& good_cells,
                const std::vector<const Cell*>& bad_cells, const std::string& medians) {
  std::vector<std::vector<double>> good;
  std::vector<std::vector<double>> bad;
  for (const Cell* c : good_cells) good.push_back(c->nmse);
  for (const Cell* c : bad_cells) bad.push_back(c->nmse);
  Claim claim;
  claim.group = group;
  claim.prediction = prediction;
  try {
    const numeric::Gap gap = numeric::log_gap(good, bad);
    claim.measured = fmt::format("gap {:.2f} decades [{:.2f}, {:.2f}]; median NMSE {}", gap.decades,
                                 gap.ci.low, gap.ci.high, medians);
    claim.verdict = gap.ci.low > kPhaseDecades ? Agreement::kAgrees
                    : gap.ci.high < 0          ? Agreement::kDisagrees
                                               : Agreement::kInconclusive;
    claim.why =
        claim.verdict == Agreement::kAgrees
            ? fmt::format("the gap's interval lies above {} decade: consistent with the bounds",
                          kPhaseDecades)
        : claim.verdict == Agreement::kDisagrees
            ? "the configurations predicted inefficient do better: their lower bound is "
              "contradicted, or the upper bound of the efficient ones is not reached by training"
            : fmt::format("the gap's interval reaches below {} decade", kPhaseDecades);
    // A low NMSE supports "efficient" from any run; a high one supports "not efficient" only
    // from converged runs (agreeing needs the inefficient side converged, disagreeing the
    // efficient side).
    const std::string unconverged =
        claim.verdict == Agreement::kAgrees
            ? not_converged(bad_cells, "of the configurations predicted inefficient")
        : claim.verdict == Agreement::kDisagrees
            ? not_converged(good_cells, "of the configurations predicted efficient")
            : "";
    std::vector<const Cell*> all = good_cells;
    all.insert(all.end(), bad_cells.begin(), bad_cells.end());
    const std::string few = too_few_seeds(all);
    if (claim.verdict == Agreement::kInconclusive) {
      claim.need = Need::kSeeds;
      // An interval between 0 and the separation straddles no boundary: more seeds narrow it
      // rather than carry it out, once there are kTrustedSeeds. Longer runs may still move
      // either side.
      if (gap.ci.low >= 0 && gap.ci.high <= kPhaseDecades) {
        const std::string runs_short = not_converged(all, "of the group");
        const bool seeded = std::all_of(all.begin(), all.end(), [](const Cell* c) {
          return c->finished() >= kTrustedSeeds;
        });
        claim.why = fmt::format(
            "the gap's interval lies between 0 and {} decade: the configurations predicted "
            "efficient do better, by less than a separation{}{}",
            kPhaseDecades, seeded ? ", and more seeds would only narrow it" : "",
            runs_short.empty() ? "" : "; " + runs_short);
        claim.need = !runs_short.empty() ? Need::kSteps
                     : seeded            ? Need::kNothing
                                         : Need::kSeeds;
      }
    }
    if (!few.empty() || !unconverged.empty()) {
      claim.verdict = Agreement::kInconclusive;
      claim.why = !few.empty() ? few : unconverged;
      claim.need = !few.empty() ? Need::kSeeds : Need::kSteps;
    }
  } catch (const std::invalid_argument&) {
    claim.measured = "no finished run on one side";
    claim.why = "not enough data";
    claim.need = Need::kRuns;
  }
  // Where the rates predict no gap at this T, no gap measured here tests them (issue 44): the
  // claim is undecided whatever was measured, and more runs at this T cannot change that.
  if (const std::string alike = rates_alike_at_T(good_cells, bad_cells); !alike.empty()) {
    claim.verdict = Agreement::kInconclusive;
    claim.why = "undecided: " + alike;
    claim.need = Need::kNothing;
  }
  return claim;
}


}  // namespace infoflow::experiments
