// growth_in_T: for each architecture, NMSE must not grow in T when the engine calls it
// efficient and grow when it does not; arms predicted differently are compared at the largest
// T (the rules are in verification.hpp).

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "infoflow/numeric/fit.hpp"

#include "claims/claim_kind.hpp"
#include "claims/slopes.hpp"
#include "evidence.hpp"
#include "ladder.hpp"

namespace infoflow::experiments {

namespace {

/// Rereads a disagreement from converged runs against the accuracy kAccuracy (params_needed's):
/// what a line at a fixed size shows about the parameters that accuracy needs. `s` holds the
/// line's medians in increasing T. A T without a median cannot keep a disagreement the others
/// show (a T below the accuracy, a rise across it), and one that would turn it undecided leaves
/// it undecided either way.
void reread_against_accuracy(bool efficient, const Series& s, Claim& claim) {
  if (s.median.empty()) return;
  const auto [lowest, highest] = std::minmax_element(s.median.begin(), s.median.end());
  if (!efficient) {
    // A lower bound allows any error above the one it names: a line that never comes below the
    // accuracy contradicts nothing (at NMSE 0.3, eps ~ 0.55, eps^(1 - T/4) asks for 60
    // parameters at T = 32).
    if (*lowest < kAccuracy) return;
    claim.verdict = Agreement::kInconclusive;
    claim.why = fmt::format(
        "the median NMSE stays between {:.2f} and {:.2f}, above the accuracy {} at every T: the "
        "network does not learn the target at this size, and a flat line of errors the lower "
        "bound allows does not contradict it; the parameters needed at each T measure it",
        *lowest, *highest, kAccuracy);
    claim.need = Need::kWiderLadder;
    return;
  }
  // The upper bound is on the sup-norm error; the NMSE is a mean, which may grow towards that
  // bound as T moves the target's inputs to where a network of fixed size errs most. The plan's
  // own networks do so, with bounded inputs too (docs/experiments.md, "Fits and verdicts"). So a
  // growth contradicts the upper bound only where it takes the network from below the accuracy
  // at some T to above it at a larger one: the parameters needed then grow.
  double least_so_far = s.median.front();
  for (const double m : s.median) {
    if (least_so_far < kAccuracy && m >= kAccuracy) return;
    least_so_far = std::min(least_so_far, m);
  }
  claim.verdict = Agreement::kInconclusive;
  claim.why =
      *highest < kAccuracy
          ? fmt::format(
                "the median NMSE grows, between {} and {}, but stays below the accuracy {} at "
                "every T: a network of this size reaches it at every T, and a mean error "
                "growing below a sup-norm bound contradicts nothing; the parameters needed at "
                "each T measure it",
                nmse_text(*lowest), nmse_text(*highest), kAccuracy)
          : fmt::format(
                "the median NMSE grows, between {} and {}, but never from below the accuracy "
                "{} to above it: at this size the network does not show the parameters that "
                "accuracy needs growing; the parameters needed at each T measure it",
                nmse_text(*lowest), nmse_text(*highest), kAccuracy);
  claim.need = Need::kWiderLadder;
}

void judge_line(const SlopeLine& line, Series& s, Claim& claim) {
  const theorems::Plan& plan = line.plan();
  const std::string rate = rate_text(plan);
  const bool efficient = plan.verdict == theorems::Verdict::kEfficient;
  claim.prediction = fmt::format("{} ({}): NMSE {} in T", rate, theorems::to_text(plan.verdict),
                                 efficient ? "does not grow" : "grows");
  const numeric::GrowthTest g = numeric::classify_growth(line.xs, line.ys, "T");
  s.has_fit = true;
  s.fit = g.fit;
  // Both predictions are about growth, so flat and falling are one answer (numeric::classify).
  claim.measured = numeric::to_text(g.growth) + ": " + g.evidence;
  const bool grows = g.growth == numeric::Growth::kGrowing;
  claim.verdict = g.growth == numeric::Growth::kInconclusive ? Agreement::kInconclusive
                  : (grows != efficient)                     ? Agreement::kAgrees
                                                             : Agreement::kDisagrees;
  // Efficient is an upper bound's claim, not efficient a lower bound's: training can contradict
  // the lower bound, or show that this recipe does not reach the upper one.
  claim.why = claim.verdict == Agreement::kInconclusive
                  ? fmt::format("the slope's interval straddles {:g}, the boundary of growth",
                                numeric::kFlatSlope)
              : claim.verdict == Agreement::kAgrees
                  ? (efficient ? "the NMSE does not grow in T: consistent with the upper bound"
                               : "the NMSE grows in T: consistent with the lower bound")
                  : (efficient ? "the NMSE grows in T: the upper bound is not reached by "
                                 "training with this recipe"
                               : "the NMSE does not grow in T: contradicts the lower bound");
  if (claim.verdict == Agreement::kInconclusive) claim.need = Need::kSeeds;
  if (!s.median.empty() && s.median.front() >= kSaturated) {
    claim.verdict = Agreement::kInconclusive;
    claim.why = fmt::format(
        "saturated: the median NMSE is {:.2f} already at T = {:g}; at this budget the "
        "network "
        "does not learn the target, so its growth in T cannot be measured",
        s.median.front(), s.x.front());
    claim.need = Need::kWiderLadder;
  }
  // Growth or flatness in T needs converged runs at every T, and a slope enough points with
  // enough seeds (judge_lines checks those after this): the accuracy is asked of a disagreement
  // only where it would otherwise stand.
  const std::string unconverged = not_converged(line.members, "of this line");
  const bool firm = unconverged.empty() && line.fitted.size() >= kMinFitPoints &&
                    too_few_seeds(line.fitted).empty();
  if (claim.verdict == Agreement::kDisagrees && firm) reread_against_accuracy(efficient, s, claim);
  if (claim.verdict != Agreement::kInconclusive && !unconverged.empty()) {
    claim.verdict = Agreement::kInconclusive;
    claim.why = unconverged;
    claim.need = Need::kSteps;
  }
}

void judge(const ExperimentSpec& /*spec*/, const Cells& cells, ExperimentResult& out) {
  out.x_label = "T";
  const std::map<std::string, std::vector<const Cell*>> lines = judge_lines(
      cells, "T", "T",
      [](const Cell& c) {
        return as_number(c.labels.count("T") ? c.labels.at("T") : std::to_string(c.tokens));
      },
      judge_line, out);
  // Arms predicted differently: compare them at the largest T.
  std::vector<const Cell*> good;
  std::vector<const Cell*> bad;
  std::string good_names;
  std::string bad_names;
  std::string medians;
  double largest = 0;
  for (const auto& [line, members] : lines) {
    for (const Cell* c : members) largest = std::max(largest, static_cast<double>(c->tokens));
  }
  for (const auto& [line, members] : lines) {
    for (const Cell* c : members) {
      if (static_cast<double>(c->tokens) != largest) continue;
      const bool efficient = c->plan->verdict == theorems::Verdict::kEfficient;
      (efficient ? good : bad).push_back(c);
      std::string& names = efficient ? good_names : bad_names;
      names += (names.empty() ? "" : "; ") + line;
      medians += fmt::format("{}{}: {}", medians.empty() ? "" : "; ", line,
                             nmse_text(numeric::median_of(c->nmse)));
    }
  }
  if (!good.empty() && !bad.empty()) {
    Claim claim =
        gap_claim(fmt::format("at T = {:g}", largest),
                  fmt::format("efficient ({}) reaches a lower NMSE than not efficient ({})",
                              good_names, bad_names),
                  good, bad, medians);
    claim.group_labels = {{"T", fmt::format("{:g}", largest)}};
    out.claims.push_back(claim);
  }
}

}  // namespace

extern const ClaimKind kGrowthInT;  // registered in claims/registry.cpp
const ClaimKind kGrowthInT{"growth_in_T", judge};

}  // namespace infoflow::experiments
