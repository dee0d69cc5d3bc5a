#ifndef INFOFLOW_NUMERIC_FIT_HPP_
#define INFOFLOW_NUMERIC_FIT_HPP_

/// \file
/// Fits of measured errors, with intervals (numeric-anchors.md section 8).
///
/// Data: at each x (a T, a parameter count, ...) one measurement per seed. Each x is reduced to
/// the median over its seeds; intervals come from a cluster bootstrap that resamples the seeds
/// within each x (2,000 resamples, 95 % percentile interval), so the spread across seeds, not
/// the number of points, sets the width. Everything is on log10 scales.

#include <cstdint>
#include <string>
#include <vector>

namespace infoflow::numeric {

struct Interval {
  double low = 0;
  double high = 0;
  [[nodiscard]] bool contains(double x) const { return low <= x && x <= high; }
};

struct PowerLawFit {
  double slope = 0;  ///< log10 y = intercept + slope * log10 x (least squares on medians)
  double intercept = 0;
  Interval slope_ci;        ///< bootstrap over seeds
  double slope_se = 0;      ///< the least-squares standard error (ignores the seed structure)
  double robust_slope = 0;  ///< Theil-Sen: the median of the pairwise slopes
  std::size_t points = 0;
  std::size_t seeds = 0;  ///< the most seeds at one x
  double x_min = 0;
  double x_max = 0;
};

/// ys[i]: the measurements at xs[i] (positive, finite; others are dropped). Needs at least two
/// distinct xs with a measurement; throws std::invalid_argument otherwise.
PowerLawFit fit_power_law(const std::vector<double>& xs, const std::vector<std::vector<double>>& ys,
                          std::uint64_t seed = 1, int resamples = 2000);

/// One measurement at each x (a deterministic sweep, such as a construction's): the same line,
/// its slope's interval from resampling the points (a pairs bootstrap; draws that hold one
/// distinct x are skipped). Needs three distinct xs with a measurement; throws
/// std::invalid_argument otherwise.
PowerLawFit fit_power_law_over_points(const std::vector<double>& xs, const std::vector<double>& ys,
                                      std::uint64_t seed = 1, int resamples = 2000);

/// A straight line through log10 y against x (not log x): an exponential in x, the form in which
/// a lower bound puts the parameters needed against T. Least squares on the medians and the
/// bootstrap interval as for fit_power_law.
struct ExponentialFit {
  double slope = 0;  ///< log10 y = intercept + slope * x: decades per unit of x
  double intercept = 0;
  Interval slope_ci;
  std::size_t points = 0;
  double x_min = 0;
  double x_max = 0;
};

/// As fit_power_law, with x on a linear scale; throws std::invalid_argument without two distinct
/// finite xs with a measurement.
ExponentialFit fit_exponential(const std::vector<double>& xs,
                               const std::vector<std::vector<double>>& ys, std::uint64_t seed = 1,
                               int resamples = 2000);

/// Whether a quantity grows, the one question the bounds ask of a slope or a rise. Flat and
/// falling are the same answer, so kNotGrowing (at or below the tolerance, across its negative)
/// is decided; only kInconclusive (across the tolerance) is not.
enum class Growth { kFlat, kGrowing, kFalling, kNotGrowing, kInconclusive };
/// "flat", "growing", "falling", "not growing (flat or falling)", "inconclusive".
std::string to_text(Growth g);

struct GrowthTest {
  Growth growth = Growth::kInconclusive;
  PowerLawFit fit;
  std::string
      evidence;  ///< "slope 1.8 [1.2, 2.4] of log NMSE against log T over T = 8..64, 3 seeds"
};

/// How far from zero a slope of log NMSE against log T may lie and still count as flat.
inline constexpr double kFlatSlope = 0.25;

/// Growing if the interval lies above `tolerance`; else falling if below -tolerance, flat if
/// inside [-tolerance, tolerance], not growing if across -tolerance; inconclusive if it
/// straddles `tolerance` (until 2026-12-07 an interval across -tolerance was inconclusive too).
Growth classify(const Interval& interval, double tolerance);

/// The slope of log NMSE against log x, classified by `classify`.
GrowthTest classify_growth(const std::vector<double>& xs,
                           const std::vector<std::vector<double>>& ys, const std::string& x_name,
                           double tolerance = kFlatSlope, std::uint64_t seed = 1);

/// How many decades separate two sets of configurations: the lowest median of `high` minus the
/// highest median of `low` (log10), with its bootstrap interval. Positive: every `high`
/// configuration is worse than every `low` one.
struct Gap {
  double decades = 0;
  Interval ci;
};
Gap log_gap(const std::vector<std::vector<double>>& low,
            const std::vector<std::vector<double>>& high, std::uint64_t seed = 1,
            int resamples = 2000);

/// Where a phase transition lies along ordered levels (head counts, say): the largest drop of
/// the log10 median from one level to the next, its size in decades and the bootstrap interval of
/// that size. `from` and `at` are the indices of the levels before and after the drop; levels
/// without measurements are skipped, so they need not be neighbours.
struct Transition {
  std::size_t from = 0;
  std::size_t at = 0;
  double decades = 0;
  Interval ci;
};
/// Needs two levels with measurements at least; throws std::invalid_argument otherwise.
Transition locate_transition(const std::vector<std::vector<double>>& levels, std::uint64_t seed = 1,
                             int resamples = 2000);

/// The median of positive finite values (NaN if none).
double median_of(std::vector<double> values);

/// The q-quantile (0 <= q <= 1) of values of any sign, interpolated linearly between order
/// statistics (q = 0.5: the median). Throws std::invalid_argument for no values.
double percentile(std::vector<double> values, double q);

}  // namespace infoflow::numeric

#endif  // INFOFLOW_NUMERIC_FIT_HPP_
