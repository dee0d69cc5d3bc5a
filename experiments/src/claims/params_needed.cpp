// params_needed: for each architecture, the parameters needed for the stated accuracy, M*,
// against T (docs/experiments.md, "Parameters needed"): not growing when the engine calls it
// efficient, growing when not. M* at each T and seed is found by bisection over a ladder of
// widths (ladder.hpp); log10 M* is fitted against T with a seed bootstrap interval.

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "infoflow/numeric/config.hpp"
#include "infoflow/numeric/fit.hpp"

#include "claims/claim_kind.hpp"
#include "claims/slopes.hpp"
#include "evidence.hpp"
#include "ladder.hpp"
#include "prediction.hpp"

namespace infoflow::experiments {

namespace {

inline constexpr std::size_t kMinPoints = 4;  // the fewest fitted T a claim needs
/// A search above the ladder whose NMSE fell by less than this from the narrowest rung it
/// visited to the widest (in decades: 12 %) is not helped by its width; where the median search
/// above the ladder is not, widening the ladder is not asked for.
inline constexpr double kWidthFallDecades = 0.05;

double parameters(const RunConfig& run) {
  return static_cast<double>(numeric::ParameterLayout(run.model).count().theory());
}

/// One T of an architecture: its seeds' searches.
struct Point {
  std::vector<double> m_star;  ///< of the seeds that found one on the ladder
  std::size_t settled = 0;     ///< searches ended
  std::size_t pending = 0;     ///< searches that need a run
  std::size_t above = 0;       ///< ended without a rung that reached the accuracy
  /// Of those above: log10 of the NMSE at the narrowest rung visited over that at the widest.
  std::vector<double> width_falls;
  std::size_t bottom = 0;      ///< found at the narrowest rung
  std::size_t failed = 0;      ///< runs that failed the accuracy below M*
  std::size_t failed_converged = 0;
  [[nodiscard]] bool fitted() const { return pending == 0 && above == 0 && settled >= kMinSeeds; }
};

/// An architecture: its points by T, its plan and the ladder's resolution in decades of M.
struct Line {
  std::map<double, Point> points;
  const theorems::Plan* plan = nullptr;
  std::map<std::string, std::string> labels;
  double rung = 0;  ///< the largest log10 ratio of M between neighbouring rungs
};

std::string seeds_text(std::size_t n) {
  return fmt::format("{} seed{}", n, n == 1 ? "" : "s");
}

/// The rise of log10 M* a lower bound M >= eps^-a(T) predicts over T = from..to at the accuracy
/// (eps = sqrt(kAccuracy), relative to the target's spread); NaN where a is not a number.
double predicted_rise(const theorems::Plan& plan, double from, double to) {
  const double a_from = exponent_at(plan, static_cast<long>(from));
  const double a_to = exponent_at(plan, static_cast<long>(to));
  return (a_to - a_from) * std::log10(1 / std::sqrt(kAccuracy));
}

void judge_line(const std::string& name, const Line& line, ExperimentResult& out) {
  Claim claim;
  claim.group = name;
  claim.group_labels = line.labels;
  const bool efficient = line.plan->verdict == theorems::Verdict::kEfficient;
  claim.prediction = fmt::format("{} ({}): M*, the parameters needed for NMSE < {:g}, {} in T",
                                 rate_text(*line.plan), theorems::to_text(line.plan->verdict),
                                 kAccuracy, efficient ? "does not grow" : "grows (exponentially)");
  Series s;
  s.name = name;
  std::vector<double> xs;
  std::vector<std::vector<double>> ys;
  std::size_t pending = 0;
  std::size_t bottom = 0;
  std::size_t failed = 0;
  std::size_t failed_converged = 0;
  std::string above;
  std::string medians;
  // A wider ladder is asked for unless, at every T above the ladder, the median search's NMSE
  // did not fall with the width; T short of seeds (none above) are asked seeds.
  bool widening_helps = false;
  std::vector<double> width_falls;  // of the T above the ladder: each T's median fall
  std::size_t short_of_seeds = 0;
  for (const auto& [t, p] : line.points) {
    pending += p.pending;
    if (p.pending == 0 && p.above > 0) {
      if (p.width_falls.empty()) {
        widening_helps = true;  // no converged pair of rungs: nothing shows it would not
      } else {
        const double median = numeric::percentile(p.width_falls, 0.5);  // falls may be negative
        width_falls.push_back(median);
        widening_helps = widening_helps || median >= kWidthFallDecades;
      }
    }
    if (p.pending == 0 && p.above == 0 && p.settled < kMinSeeds) ++short_of_seeds;
    if (p.above > 0 && p.pending == 0)
      above += fmt::format("{}T = {:g} ({} of {})", above.empty() ? "" : ", ", t, p.above,
                           seeds_text(p.settled));
    if (!p.m_star.empty()) {
      s.x.push_back(t);
      s.median.push_back(numeric::median_of(p.m_star));
      s.low.push_back(*std::min_element(p.m_star.begin(), p.m_star.end()));
      s.high.push_back(*std::max_element(p.m_star.begin(), p.m_star.end()));
    }
    if (!p.fitted()) continue;
    xs.push_back(t);
    ys.push_back(p.m_star);
    bottom += p.bottom == p.settled ? 1 : 0;
    failed += p.failed;
    failed_converged += p.failed_converged;
    medians += fmt::format("{}T = {:g}: {:g}", medians.empty() ? "" : ", ", t,
                           numeric::median_of(p.m_star));
  }
  claim.measured = fmt::format("M* (median) {}", medians.empty() ? "none fitted" : medians);
  if (!above.empty()) claim.measured += "; above the ladder at " + above;
  if (pending > 0) {
    claim.why =
        fmt::format("{} search{} not finished (their next rung has no run yet): sweep runs them",
                    pending, pending == 1 ? " is" : "es are");
    claim.need = Need::kRuns;
  } else if (xs.size() < kMinPoints) {
    // Above the ladder, a wider one helps only where the NMSE still falls with the width: one
    // layer's k-th value for k >= 2 stays at 0.68 from FFN 256 to 2,048 (docs/experiments.md).
    const bool stuck = !above.empty() && !widening_helps;
    const bool seeds = xs.size() + short_of_seeds >= kMinPoints;
    const double largest =
        width_falls.empty() ? 0 : *std::max_element(width_falls.begin(), width_falls.end());
    claim.why = fmt::format(
        "only {} T with M* on the ladder for at least {} seeds; a fit needs {}{}", xs.size(),
        kMinSeeds, kMinPoints,
        above.empty() ? ""
        : stuck
            ? fmt::format("; above the ladder the NMSE does not fall with the width (at most "
                          "{:.2f} decade, the median over a T's converged searches from the "
                          "narrowest rung tried to the widest, less than {}): a wider ladder "
                          "is not expected to reach the accuracy with this recipe",
                          std::abs(largest) < 0.005 ? 0.0 : largest, kWidthFallDecades)
            : " (widen the ladder for the T above it)");
    claim.need = above.empty() || (stuck && seeds) ? Need::kSeeds
                 : stuck                           ? Need::kNothing
                                                   : Need::kWiderLadder;
  } else {
    const numeric::ExponentialFit f = numeric::fit_exponential(xs, ys);
    const double span = f.x_max - f.x_min;
    const numeric::Interval rise{f.slope_ci.low * span, f.slope_ci.high * span};
    const double r = line.rung;
    // Flat and falling are one answer to the bounds' question (numeric::classify).
    const numeric::Growth rises = numeric::classify(rise, r);
    const bool grows = rises == numeric::Growth::kGrowing;
    const bool stays = !grows && rises != numeric::Growth::kInconclusive;
    claim.measured = fmt::format(
        "{}: log10 M* rises {:.2f} decades [{:.2f}, {:.2f}] over T = {:g}..{:g} ({:.3f} per "
        "token), one rung {:.2f}; {}",
        numeric::to_text(rises),
        f.slope * span, rise.low, rise.high, f.x_min, f.x_max, f.slope, r, claim.measured);
    const double predicted = efficient ? 0 : predicted_rise(*line.plan, f.x_min, f.x_max);
    if (!efficient && std::isfinite(predicted) && predicted <= r) {
      // A lower bound whose own rate (floored, or with a small slope in T) rises by less than
      // a rung over these T cannot be contradicted by a flat M*, nor supported by a rise.
      claim.why = fmt::format(
          "the lower bound's rate predicts a rise of {:.2f} decades of M* over T = {:g}..{:g} at "
          "NMSE {:g}, within one rung ({:.2f}): this ladder and these T cannot test it",
          predicted, f.x_min, f.x_max, kAccuracy, r);
    } else if (!grows && !stays) {
      claim.why = fmt::format(
          "the rise's interval straddles one rung ({:.2f} decade), the boundary of growth", r);
      claim.need = Need::kSeeds;
    } else if (bottom == xs.size()) {
      claim.why =
          "M* is the ladder's narrowest rung at every fitted T: the ladder starts too wide to "
          "see a growth";
    } else if (failed_converged < failed) {
      claim.why = fmt::format(
          "not converged at this budget: {} of {} runs that failed the accuracy below M* did "
          "not pass the plateau test, and a failure counts only from converged runs",
          failed - failed_converged, failed);
      claim.need = Need::kSteps;
    } else {
      claim.verdict = (efficient ? stays : grows) ? Agreement::kAgrees : Agreement::kDisagrees;
      claim.why = claim.verdict == Agreement::kAgrees
                      ? (efficient ? "M* does not grow in T: consistent with the upper bound"
                                   : "M* grows in T: consistent with the lower bound")
                      : (efficient ? "M* grows in T: the upper bound is not reached by training "
                                     "with this recipe"
                                   : "M* does not grow in T: contradicts the lower bound");
    }
  }
  out.claims.push_back(claim);
  out.series.push_back(s);
}

void judge(const ExperimentSpec& spec, const Cells& cells, ExperimentResult& out) {
  out.x_label = "T";
  out.log_x = false;
  out.y_label = fmt::format("parameters needed for NMSE < {:g}, M*", kAccuracy);
  const std::string key = ladder_key(spec);
  const std::vector<RunConfig> runs = out.runs;  // out.runs is cut to the visited below
  if (runs.size() != out.rows.size())
    throw std::logic_error("params_needed: the rows are not the runs");
  std::map<const RunConfig*, std::size_t> row_of;
  for (std::size_t i = 0; i < runs.size(); ++i) row_of[&runs[i]] = i;
  const std::set<std::string> along{key, "heads_pattern", "T", "seed"};
  std::map<std::string, Line> lines;
  std::vector<bool> keep(runs.size(), false);  // rows a search visited or needs next
  // The ladder's resolution comes from the profile's own searches, which hold every rung: a
  // search of a seed beyond the profile (added by --budget) holds only the rungs it recorded.
  std::set<std::string> profile_keys;
  for (const RunConfig& r : spec.runs(out.profile)) profile_keys.insert(r.key);
  for (const LadderLine& search : ladder_lines(runs, key, spec, out.profile)) {
    const auto row = [&](std::size_t rung) -> const RunRow& {
      return out.rows[row_of.at(search.rungs[rung])];
    };
    const Search found = bisect(
        search.rungs.size(),
        [&](std::size_t i) -> std::optional<Outcome> {
          const RunRow& r = row(i);
          if (!r.status) return std::nullopt;
          const bool lost = *r.status == numeric::RunStatus::kDiverged;
          return Outcome{lost ? INFINITY : r.best_nmse,
                         *r.status == numeric::RunStatus::kConverged};
        },
        search.base);
    const RunConfig& first = *search.rungs.front();
    Line& line = lines[labels_except(first.labels, along)];
    if (line.plan == nullptr) {
      std::map<std::string, std::string> cell_labels = first.labels;
      cell_labels.erase("seed");
      line.plan = cells.at(labels_except(cell_labels, {})).plan;
      line.labels = labels_without(first.labels, along);
    }
    for (std::size_t i = 1; i < search.rungs.size() && profile_keys.count(first.key) > 0; ++i)
      line.rung = std::max(
          line.rung, std::log10(parameters(*search.rungs[i]) / parameters(*search.rungs[i - 1])));
    Point& p = line.points[static_cast<double>(first.task.tokens)];
    for (const std::size_t i : found.passed) keep[row_of.at(search.rungs[i])] = true;
    for (const std::size_t i : found.failed) keep[row_of.at(search.rungs[i])] = true;
    if (found.next) {
      keep[row_of.at(search.rungs[*found.next])] = true;
      ++p.pending;
      continue;
    }
    ++p.settled;
    for (const std::size_t i : found.failed) {
      ++p.failed;
      p.failed_converged += row(i).status == numeric::RunStatus::kConverged ? 1 : 0;
    }
    if (found.found == search.rungs.size()) {
      ++p.above;
      // A fall between two converged runs: a wide rung stopped at its budget or diverged says
      // nothing about what its width can reach.
      if (found.failed.size() >= 2) {
        const auto [narrow, wide] = std::minmax_element(found.failed.begin(), found.failed.end());
        const RunRow& from = row(*narrow);
        const RunRow& to = row(*wide);
        const auto converged = [](const RunRow& r) {
          return r.status == numeric::RunStatus::kConverged && std::isfinite(r.best_nmse) &&
                 r.best_nmse > 0;
        };
        if (converged(from) && converged(to))
          p.width_falls.push_back(std::log10(from.best_nmse / to.best_nmse));
      }
    } else {
      p.m_star.push_back(parameters(*search.rungs[found.found]));
      p.bottom += found.found == 0 ? 1 : 0;
    }
  }
  // The runs no search visited are not part of the measurement: they are neither missing nor
  // counted.
  std::vector<RunRow> visited;
  std::vector<RunConfig> visited_runs;
  long missing = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!keep[i]) continue;
    missing += out.rows[i].status ? 0 : 1;
    visited.push_back(out.rows[i]);
    visited_runs.push_back(runs[i]);
  }
  out.rows = std::move(visited);
  out.runs = std::move(visited_runs);
  out.missing_runs = missing;
  for (const auto& [name, line] : lines) judge_line(name, line, out);
}

}  // namespace

extern const ClaimKind kParamsNeeded;  // registered in claims/registry.cpp
const ClaimKind kParamsNeeded{"params_needed", judge, /*searches_ladder=*/true};

}  // namespace infoflow::experiments
