#ifndef INFOFLOW_EXPERIMENTS_CLAIMS_SLOPES_HPP_
#define INFOFLOW_EXPERIMENTS_CLAIMS_SLOPES_HPP_

// The frame the slope claims (growth_in_T, exponent) share: the cells in lines along an x, a
// fit of log NMSE on the points outside saturation, and the rules of verification.hpp that
// every slope obeys (at least kMinFitPoints such points, each with kMinSeeds seeds).

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "infoflow/experiments/verification.hpp"
#include "infoflow/theorems/engine.hpp"

#include "cells.hpp"

namespace infoflow::experiments {

/// The cells that differ only in x, and those of them fitted (median NMSE below kSaturated).
struct SlopeLine {
  std::vector<const Cell*> members;
  std::vector<double> xs;  ///< of the fitted points
  std::vector<std::vector<double>> ys;
  std::vector<const Cell*> fitted;
  [[nodiscard]] const theorems::Plan& plan() const { return *members.front()->plan; }
};

/// A slope kind's own rule for one line: sets the claim's prediction, measurement and verdict
/// and the series' fit; throws std::invalid_argument when there are too few points to fit.
using LineJudge = std::function<void(const SlopeLine& line, Series& s, Claim& claim)>;

/// The lines of `cells` along the label `xkey` (x from `x_of`, named `x_name` in reasons), one
/// claim and one series each, judged by `judge`; returns the lines by name.
std::map<std::string, std::vector<const Cell*>> judge_lines(
    const Cells& cells, const std::string& xkey, const char* x_name,
    const std::function<double(const Cell&)>& x_of, const LineJudge& judge, ExperimentResult& out);

/// The plan's rate as a prediction quotes it: "O(...)", or "no rate (why)".
std::string rate_text(const theorems::Plan& plan);

}  // namespace infoflow::experiments

#endif  // INFOFLOW_EXPERIMENTS_CLAIMS_SLOPES_HPP_
