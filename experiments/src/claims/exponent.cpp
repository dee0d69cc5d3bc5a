// exponent: NMSE against the parameter count M falls at least as fast as the upper bound
// M = O(eps^-a) allows, M^(-2/a), when training reaches it (the rule is in verification.hpp).

#include <string>
#include <vector>

#include <fmt/format.h>

#include "infoflow/numeric/fit.hpp"
#include "infoflow/symbolic/rate.hpp"

#include "claims/claim_kind.hpp"
#include "claims/slopes.hpp"
#include "evidence.hpp"
#include "prediction.hpp"

namespace infoflow::experiments {

namespace {

void judge_line(const SlopeLine& line, Series& s, Claim& claim) {
  const theorems::Plan& plan = line.plan();
  const std::vector<const Cell*>& members = line.members;
  const std::vector<const Cell*>& fitted = line.fitted;
  const long tokens = members.front()->tokens;
  const double a = exponent_at(plan, tokens);
  const double predicted = -2.0 / a;
  s.predicted_slope = predicted;
  // The rate at the runs' T, which the slope follows (the decoding floor applied there), with
  // the rate in T beside it where they differ.
  const std::string in_T = rate_text(plan);
  const std::string at_T = plan.priced() ? plan.rate_at(tokens).print(plan.landau()) : in_T;
  const std::string rate = at_T == in_T
                               ? fmt::format("{} at T = {}", in_T, tokens)
                               : fmt::format("{} at T = {} (in T: {})", at_T, tokens, in_T);
  // Said before the fit, which throws when there are too few points: the claim keeps it.
  claim.prediction = fmt::format("{}: NMSE ~ M^({:.2f})", rate, predicted);
  const numeric::PowerLawFit f = numeric::fit_power_law(line.xs, line.ys);
  s.has_fit = true;
  s.fit = f;
  claim.measured = fmt::format(
      "slope {:.2f} [{:.2f}, {:.2f}] (Theil-Sen {:.2f}) over M = {:g}..{:g}, {} points, up "
      "to {} seeds",
      f.slope, f.slope_ci.low, f.slope_ci.high, f.robust_slope, f.x_min, f.x_max, f.points,
      f.seeds);
  // The rate is an upper bound on M: NMSE must fall at least as fast as M^(-2/a).
  claim.verdict = f.slope_ci.low <= predicted ? Agreement::kAgrees : Agreement::kDisagrees;
  // An upper bound is never shown tight nor wrong by training: a fall as fast as it allows is
  // consistent with it, a slower one says that this recipe does not reach it.
  claim.why = f.slope_ci.contains(predicted)
                  ? fmt::format(
                        "the bound's slope M^({:.2f}) lies in the interval: consistent with the "
                        "upper bound",
                        predicted)
              : claim.verdict == Agreement::kAgrees
                  ? fmt::format(
                        "NMSE falls faster than the bound's M^({:.2f}): consistent with the "
                        "upper bound",
                        predicted)
                  : fmt::format(
                        "NMSE falls slower than the bound's M^({:.2f}): the upper bound is not "
                        "reached by training with this recipe (optimisation error, which a "
                        "longer run may reduce, counts here too)",
                        predicted);
  // Too shallow a fall counts only from converged runs.
  if (claim.verdict == Agreement::kDisagrees &&
      !not_converged(fitted, "of the fitted points").empty()) {
    claim.verdict = Agreement::kInconclusive;
    claim.why = not_converged(fitted, "of the fitted points");
    claim.need = Need::kSteps;
  }
}

void judge(const ExperimentSpec& spec, const Cells& cells, ExperimentResult& out) {
  out.x_label = "parameters M (encoder + FFN + readout)";
  (void)judge_lines(
      cells, spec.arm.empty() ? "ffn_width" : spec.arm, "M",
      [](const Cell& c) { return c.theory_params.empty() ? 0.0 : c.theory_params.front(); },
      judge_line, out);
}

}  // namespace

extern const ClaimKind kExponent;  // registered in claims/registry.cpp
const ClaimKind kExponent{"exponent", judge};

}  // namespace infoflow::experiments
