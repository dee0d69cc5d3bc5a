#ifndef INFOFLOW_EXPERIMENTS_VERIFICATION_HPP_
#define INFOFLOW_EXPERIMENTS_VERIFICATION_HPP_

/// \file
/// Prediction against measurement (`infoflow verify`): for each claim of an experiment, what
/// the InfoFlow engine predicts for its configurations, what the sweep measured (with an
/// interval), and a verdict with its reason. The rules, stated before looking at data:
///
/// - heads_phase: in each group (e.g. each D) the configurations the engine calls efficient
///   must reach a lower validation NMSE than the others. Measured: the gap in decades between
///   the best inefficient and the worst efficient median over seeds, with a seed bootstrap
///   interval. Agrees if the interval lies above 0.5 decade, disagrees if below 0, else
///   inconclusive. A gap counts only at a T where the engine's rates put every configuration
///   predicted inefficient above every efficient one; elsewhere it is undecided, and says so.
/// - growth_in_T: for each architecture, NMSE must not grow in T when the engine calls it
///   efficient and grow when it does not. Measured: the slope of log NMSE against log T with
///   its interval (numeric/fit.hpp: growing above 0.25, not growing at or below it, flat and
///   falling alike). Agrees when the answer matches, disagrees when it is the opposite,
///   inconclusive when the interval straddles 0.25. An architecture whose median NMSE is
///   already >= 0.5 at the smallest T has not learnt the target at this budget: its growth
///   cannot be measured (NMSE is capped near 1), so its claim is inconclusive. Growth or
///   flatness needs converged runs at every T. A disagreement from such runs is then read
///   against params_needed's accuracy 0.1: a line predicted not efficient and measured flat
///   disagrees only if its median NMSE falls below 0.1 at some T (a flat line of errors the
///   lower bound allows contradicts nothing); a line predicted efficient and measured growing
///   only if its median NMSE rises from below 0.1 at some T to 0.1 or above at a larger one
///   (the upper bound is on the sup-norm error, and a mean error may grow below it: the plan's
///   own networks do at a fixed size). Otherwise inconclusive.
///   When some architectures are predicted efficient and others not, one more claim compares
///   them at the largest T by the gap rule of heads_phase.
/// - exponent: NMSE against the parameter count M. With the proxy eps ~ sqrt(NMSE Var(y)), the
///   upper bound M = O(eps^-a) says NMSE can fall at least as fast as M^(-2/a). Agrees
///   ("consistent") if the slope's interval reaches down to -2/a or below, disagrees ("not
///   reached by training") if it lies entirely above. A fitted exponent is evidence about a
///   rate, not a proof; training adds optimisation error.
/// - params_needed: for each architecture, M*, the parameters needed for a best validation NMSE
///   below 0.1, must not grow in T when the engine calls it efficient and grow when it does
///   not. M* at each T and seed is the first rung of a ladder of widths (the spec's `arm`) that
///   reaches the accuracy, found by bisection; measured: the rise of log10 M* over the fitted T
///   (least squares against T, seed bootstrap interval), growing above one rung, not growing
///   at or below it. A T is fitted with 3 seeds each on the ladder; a claim needs 4 fitted T,
///   and the failed runs below M* converged (docs/experiments.md, "Parameters needed").
///
/// What a verdict can mean: training can contradict a lower bound (not efficient), or show that
/// this recipe does not reach an upper bound (efficient); it never shows an upper bound tight,
/// nor wrong. Agreement is "consistent with" the bound, never its confirmation.
///
/// - confront (an entry named by the spec, e.g. a conjecture): architecture by architecture,
///   the engine's verdict, the entry's and the measured one. The entry speaks where its setting
///   and hypotheses hold at the architecture (h read as the mean heads per layer, so L*h is the
///   total): "not efficient" for a lower bound whose exponent grows with T, "efficient" for an
///   upper bound whose exponent does not; elsewhere it makes no claim. Measured, per group (all
///   labels but the architecture's), against the reference R: the lowest median NMSE among the
///   configurations that both the engine and the entry call not efficient, their runs
///   converged. An architecture is measured efficient when its median is at least a decade
///   below R, not efficient when it is within half a decade of R or above and its runs
///   converged; otherwise inconclusive, with the reason. Each needs 3 finished seeds.
///
/// Each claim kind is one file, experiments/src/claims/NAME.cpp, listed in claims/registry.cpp;
/// the confrontation is experiments/src/confront.cpp.
///
/// Rules over all of them (docs/experiments.md):
/// - a low NMSE supports "efficient" from any run; a high NMSE supports "not efficient" only
///   from runs that converged (the plateau test of numeric/train.hpp). So agreeing on a gap
///   needs the inefficient side converged, disagreeing the efficient side; growth or flatness
///   in T needs converged runs at every T; a too shallow exponent needs converged runs.
///   Otherwise: inconclusive, "not converged at this budget", and the report shows the curves.
/// - an interval needs at least 3 finished runs (seeds) per configuration;
/// - a slope (growth_in_T, exponent) is fitted on the points whose median NMSE is below 0.5
///   (the others are shown, not fitted) and needs at least 6 of them.
///
/// Diverged runs count as missing in the statistics and are reported; runs without a result
/// (sweep not finished) are reported too.

#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "infoflow/experiments/results.hpp"
#include "infoflow/experiments/spec.hpp"
#include "infoflow/numeric/fit.hpp"
#include "infoflow/numeric/train.hpp"
#include "infoflow/theorems/catalogue.hpp"
#include "infoflow/theorems/engine.hpp"

namespace infoflow::experiments {

enum class Agreement { kAgrees, kDisagrees, kInconclusive };
std::string to_text(Agreement a);

/// A claim's runs by status: what its verdict rests on.
struct RunCounts {
  long planned = 0;  ///< runs of the profile in the claim's group
  long converged = 0;
  long budget_reached = 0;
  long diverged = 0;
};
/// "9 runs, 9 converged", "27 runs, 20 converged, 4 budget reached, 3 missing".
std::string to_text(const RunCounts& c);

/// What would decide an inconclusive claim: what `--budget` spends time on (allocation.hpp).
enum class Need {
  kNothing,      ///< decided, or nothing more runs can add (no transition to test, ...)
  kRuns,         ///< runs of the profile without a result yet, or searches not finished
  kSeeds,        ///< more seeds: an interval straddles a boundary, or too few seeds
  kSteps,        ///< more steps: runs that did not pass the plateau test
  kWiderLadder,  ///< a wider network, or M* on a ladder: saturated at this width, M* above
                 ///< the ladder, or a fixed size's line that only M* decides
};
/// "nothing", "runs", "seeds", "steps", "a wider network".
std::string to_text(Need n);

struct Claim {
  std::string group;       ///< "D = 3", "heads (1), E = 16"
  /// The labels the group fixes ({D: 3}; empty: every run), what cross_check() matches on.
  std::map<std::string, std::string> group_labels;
  std::string prediction;  ///< in words, with the engine's rates
  std::string measured;    ///< the statistic and its interval
  Agreement verdict = Agreement::kInconclusive;
  std::string why;
  /// Where another profile's results (the shipped full ones) give another verdict: said so.
  std::string cross_check;
  /// The group's configurations the engine calls efficient, built (add_constructions): a line
  /// per construction, its NMSE beside training's median (those not built, a line per reason),
  /// and the constructed slope where the claim fits one; empty when it has none.
  std::vector<std::string> constructed;
  /// What the verdict rests on: training alone (a lower bound: a construction cannot show that
  /// no network exists), or training and, for existence, constructions.
  std::string evidence;
  RunCounts runs;  ///< of the group, by status
  Need need = Need::kNothing;  ///< of an inconclusive claim: what would decide it
};

/// The validation curve of a run that did not converge, for the report's figure.
struct LearningCurve {
  std::string run;  ///< its labels
  std::vector<std::pair<long, double>> points;
  long cooldown_start = 0;  ///< training until the plateau: where the cool-down began (0: none)
};

/// One line of a figure: medians over seeds with their min and max.
struct Series {
  std::string name;
  std::vector<double> x;
  std::vector<double> median;
  std::vector<double> low;
  std::vector<double> high;
  bool has_fit = false;
  numeric::PowerLawFit fit;
  std::optional<double> predicted_slope;  ///< where the claim predicts one (exponent claims)
  bool constructed = false;  ///< constructions (one value each), not training's medians
};

/// A run, for the CSV: its labels, result and the engine's prediction.
struct RunRow {
  std::map<std::string, std::string> labels;
  long tokens = 0;                           ///< T
  std::optional<numeric::RunStatus> status;  ///< none: missing (no result yet)
  double best_nmse = 0;
  long parameters = 0;
  long parameters_theory = 0;
  double seconds = 0;
  std::string predicted_verdict;
  std::string predicted_rate;
};
/// "missing", or the recorded status: converged | budget_reached | diverged.
std::string status_text(const RunRow& row);
/// Whether a run belongs to the group `labels` (a claim's group_labels; empty: every run).
bool in_group(const RunRow& row, const std::map<std::string, std::string>& labels);

/// What an architecture is said or measured to be; kUndecided comes with its reason.
enum class Efficiency { kEfficient, kNotEfficient, kUndecided };

/// One architecture of a confronted experiment: three verdicts side by side.
struct Confrontation {
  std::string group;         ///< "D = 3, T = 16"
  std::string panel;         ///< the group without T: "D = 3" (the report's panels and table parts)
  long tokens = 0;           ///< the group's T
  std::string architecture;  ///< "(1,1)"
  std::string engine;        ///< the engine's verdict ("efficient", "exponential in T", ...)
  Efficiency entry = Efficiency::kUndecided;  ///< the entry's claim
  std::string entry_reason;                   ///< why it makes none
  double median = 0;   ///< median best NMSE over the finished seeds (NaN: none)
  long seeds = 0;      ///< finished runs
  long converged = 0;  ///< of them
  Efficiency measured = Efficiency::kUndecided;
  std::string measured_reason;       ///< why the measurement is inconclusive
  bool entry_contradicted = false;   ///< the entry's claim is the opposite of the measurement
  bool engine_contradicted = false;  ///< the engine's verdict is the opposite of it
  /// R, the reference the measurement is judged against (NaN: none).
  double reference = std::numeric_limits<double>::quiet_NaN();
  /// The construction of the architecture (add_constructions; NaN: none built).
  double constructed = std::numeric_limits<double>::quiet_NaN();
  /// The entry calls it not efficient, yet its construction is at least a decade below R: a
  /// network that the lower bound says needs more parameters exists at the runs' size.
  bool entry_contradicted_by_construction = false;
};
/// The entry's claim in words: "not efficient", "efficient" or "no claim (why)".
std::string entry_claim_text(const Confrontation& c);
/// The measurement in words: "efficient", "not efficient" or "inconclusive: why".
std::string measured_text(const Confrontation& c);

/// One reported value beside our runs of the same configuration.
struct PaperComparison {
  std::string configuration;  ///< "D = 2, T = 64, heads D,D"
  double paper = 0;
  long seeds = 0;          ///< our finished runs
  double ours_min = 0;     ///< the paper's statistic
  double ours_median = 0;  ///< ours
  long converged = 0;      ///< of our runs
};

/// A configuration the engine calls efficient, its plan compiled into the weights of the runs'
/// architecture at their FFN width and measured, beside training (add_constructions).
struct ConstructedCell {
  std::map<std::string, std::string> labels;  ///< the configuration's (no seed)
  long tokens = 0;                            ///< T
  bool built = false;
  std::string failure;  ///< why not built
  double nmse = 0;
  long parameters = 0;  ///< M of the construction, as the theory counts it
  long ffn_width = 0;
  long readout_width = 0;
  double trained_median = 0;  ///< best validation NMSE over the finished seeds (NaN: none)
  long trained_parameters = 0;
  long seeds = 0;
};

struct ExperimentResult {
  std::string name;
  std::string title;
  std::string claim_kind;
  std::string profile;
  std::vector<Claim> claims;
  std::vector<Series> series;
  std::string x_label;
  bool log_x = true;
  std::string y_label = "best validation NMSE";  ///< what the series' y are
  std::vector<RunRow> rows;
  /// The configurations of `rows`, one to one: the profile's runs, and the runs of other seeds
  /// of its configurations that the results hold (recorded_runs.hpp).
  std::vector<RunConfig> runs;
  std::vector<std::string> notes;
  long missing_runs = 0;   ///< runs of the profile with no record yet (of rows.size())
  double run_seconds = 0;  ///< training time summed over the runs
  /// A paper's reported values beside ours (experiments/reported.hpp), and where they come from.
  std::vector<PaperComparison> reported;
  std::string reported_source;
  std::vector<LearningCurve> curves;  ///< runs that stopped at their budget, not converged
  /// The entry the spec confronts (set whenever there are confrontations), and the verdicts.
  std::optional<theorems::Entry> confronted;
  std::vector<Confrontation> confrontations;
  std::vector<ConstructedCell> constructed;  ///< add_constructions
};

/// Joins the engine's predictions with the stored runs of `profile`.
ExperimentResult verify(const ExperimentSpec& spec, const std::string& profile,
                        const std::vector<RunRecord>& records, theorems::Engine& engine);

/// An NMSE as claims quote it ("1.23e-04"); "n/a" when it is not finite.
std::string nmse_text(double x);

}  // namespace infoflow::experiments

#endif  // INFOFLOW_EXPERIMENTS_VERIFICATION_HPP_
