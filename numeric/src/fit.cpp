#include "infoflow/numeric/fit.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "infoflow/core/random.hpp"

namespace infoflow::numeric {

namespace {

std::vector<double> usable(const std::vector<double>& v) {
  std::vector<double> out;
  for (const double x : v) {
    if (std::isfinite(x) && x > 0) out.push_back(x);
  }
  return out;
}

struct Line {
  double slope = 0;
  double intercept = 0;
  double se = 0;
};

Line least_squares(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double mx = 0;
  double my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    mx += x[i] / n;
    my += y[i] / n;
  }
  double sxx = 0;
  double sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  Line l;
  l.slope = sxy / sxx;
  l.intercept = my - l.slope * mx;
  if (x.size() > 2) {
    double rss = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double r = y[i] - l.intercept - l.slope * x[i];
      rss += r * r;
    }
    l.se = std::sqrt(rss / (n - 2) / sxx);
  }
  return l;
}

/// One bootstrap draw: each group's seeds resampled with replacement (into `out`, reused).
void resample_seeds(const std::vector<std::vector<double>>& groups, Rng& rng,
                    std::vector<std::vector<double>>& out) {
  out.resize(groups.size());
  for (std::size_t i = 0; i < groups.size(); ++i) {
    out[i].resize(groups[i].size());
    for (double& v : out[i]) v = groups[i][static_cast<std::size_t>(rng.next() % groups[i].size())];
  }
}

/// The 95 % percentile interval of bootstrap values.
Interval interval_of(const std::vector<double>& values) {
  return {percentile(values, 0.025), percentile(values, 0.975)};
}

/// log10 of each group's median.
std::vector<double> log_medians(const std::vector<std::vector<double>>& groups) {
  std::vector<double> out;
  for (const std::vector<double>& g : groups) out.push_back(std::log10(percentile(g, 0.5)));
  return out;
}

/// The 95 % interval of the least-squares slope of the log medians on x, from a bootstrap that
/// resamples the seeds within each group.
Interval bootstrap_slope(const std::vector<double>& x, const std::vector<std::vector<double>>& groups,
                         std::uint64_t seed, int resamples) {
  Rng rng(seed);
  std::vector<double> slopes;
  std::vector<std::vector<double>> resampled;
  for (int b = 0; b < resamples; ++b) {
    resample_seeds(groups, rng, resampled);
    slopes.push_back(least_squares(x, log_medians(resampled)).slope);
  }
  return interval_of(slopes);
}

/// The least-squares line through (log10 x, log10 y), with its Theil-Sen slope; no interval.
PowerLawFit log_log_line(const std::vector<double>& lx, const std::vector<double>& ly) {
  const Line line = least_squares(lx, ly);
  PowerLawFit f;
  f.slope = line.slope;
  f.intercept = line.intercept;
  f.slope_se = line.se;
  f.points = lx.size();
  f.x_min = std::pow(10.0, *std::min_element(lx.begin(), lx.end()));
  f.x_max = std::pow(10.0, *std::max_element(lx.begin(), lx.end()));
  std::vector<double> pairwise;
  for (std::size_t i = 0; i < lx.size(); ++i) {
    for (std::size_t j = i + 1; j < lx.size(); ++j) {
      if (lx[i] != lx[j]) pairwise.push_back((ly[j] - ly[i]) / (lx[j] - lx[i]));
    }
  }
  f.robust_slope = percentile(pairwise, 0.5);
  return f;
}

}  // namespace

double percentile(std::vector<double> v, double q) {
  if (v.empty()) throw std::invalid_argument("percentile of no values");
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

double median_of(std::vector<double> values) {
  values = usable(values);
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  return percentile(values, 0.5);
}

PowerLawFit fit_power_law(const std::vector<double>& xs, const std::vector<std::vector<double>>& ys,
                          std::uint64_t seed, int resamples) {
  std::vector<double> lx;
  std::vector<std::vector<double>> groups;
  std::size_t seeds = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    std::vector<double> g = usable(ys[i]);
    if (g.empty() || !(xs[i] > 0)) continue;
    lx.push_back(std::log10(xs[i]));
    seeds = std::max(seeds, g.size());
    groups.push_back(std::move(g));
  }
  if (std::adjacent_find(lx.begin(), lx.end(), std::not_equal_to<>()) == lx.end()) {
    throw std::invalid_argument("fit_power_law(): needs measurements at two distinct x at least");
  }
  PowerLawFit f = log_log_line(lx, log_medians(groups));
  f.seeds = seeds;
  f.slope_ci = bootstrap_slope(lx, groups, seed, resamples);
  return f;
}

PowerLawFit fit_power_law_over_points(const std::vector<double>& xs, const std::vector<double>& ys,
                                      std::uint64_t seed, int resamples) {
  std::vector<double> lx;
  std::vector<double> ly;
  for (std::size_t i = 0; i < xs.size() && i < ys.size(); ++i) {
    if (!(xs[i] > 0) || !std::isfinite(xs[i]) || !(ys[i] > 0) || !std::isfinite(ys[i])) continue;
    lx.push_back(std::log10(xs[i]));
    ly.push_back(std::log10(ys[i]));
  }
  if (std::set<double>(lx.begin(), lx.end()).size() < 3) {
    throw std::invalid_argument(
        "fit_power_law_over_points(): needs measurements at three distinct x at least");
  }
  PowerLawFit f = log_log_line(lx, ly);
  f.seeds = 1;
  Rng rng(seed);
  std::vector<double> slopes;
  std::vector<double> dx(lx.size());
  std::vector<double> dy(ly.size());
  for (int b = 0; b < resamples; ++b) {
    for (std::size_t i = 0; i < lx.size(); ++i) {
      const auto j = static_cast<std::size_t>(rng.next() % lx.size());
      dx[i] = lx[j];
      dy[i] = ly[j];
    }
    if (std::adjacent_find(dx.begin(), dx.end(), std::not_equal_to<>()) == dx.end()) continue;
    slopes.push_back(least_squares(dx, dy).slope);
  }
  f.slope_ci = interval_of(slopes);
  return f;
}

ExponentialFit fit_exponential(const std::vector<double>& xs,
                               const std::vector<std::vector<double>>& ys, std::uint64_t seed,
                               int resamples) {
  std::vector<double> x;
  std::vector<std::vector<double>> groups;
  for (std::size_t i = 0; i < xs.size() && i < ys.size(); ++i) {
    std::vector<double> g = usable(ys[i]);
    if (g.empty() || !std::isfinite(xs[i])) continue;
    x.push_back(xs[i]);
    groups.push_back(std::move(g));
  }
  if (std::adjacent_find(x.begin(), x.end(), std::not_equal_to<>()) == x.end()) {
    throw std::invalid_argument("fit_exponential(): needs measurements at two distinct x at least");
  }
  const Line line = least_squares(x, log_medians(groups));
  ExponentialFit f;
  f.slope = line.slope;
  f.intercept = line.intercept;
  f.points = x.size();
  f.x_min = *std::min_element(x.begin(), x.end());
  f.x_max = *std::max_element(x.begin(), x.end());
  f.slope_ci = bootstrap_slope(x, groups, seed, resamples);
  return f;
}

std::string to_text(Growth g) {
  switch (g) {
    case Growth::kFlat:
      return "flat";
    case Growth::kGrowing:
      return "growing";
    case Growth::kFalling:
      return "falling";
    case Growth::kNotGrowing:
      return "not growing (flat or falling)";
    case Growth::kInconclusive:
      return "inconclusive";
  }
  return "";
}

Growth classify(const Interval& interval, double tolerance) {
  if (interval.low > tolerance) return Growth::kGrowing;
  if (!(interval.high <= tolerance)) return Growth::kInconclusive;  // across it, or NaN
  if (interval.high < -tolerance) return Growth::kFalling;
  return interval.low >= -tolerance ? Growth::kFlat : Growth::kNotGrowing;
}

GrowthTest classify_growth(const std::vector<double>& xs,
                           const std::vector<std::vector<double>>& ys, const std::string& x_name,
                           double tolerance, std::uint64_t seed) {
  GrowthTest t;
  t.fit = fit_power_law(xs, ys, seed);
  const Interval& ci = t.fit.slope_ci;
  t.growth = classify(ci, tolerance);
  t.evidence = fmt::format(
      "slope {:.2f} [{:.2f}, {:.2f}] (Theil-Sen {:.2f}) of log NMSE against log {} over {} = "
      "{:g}..{:g}, "
      "{} points, up to {} seeds; flat means within +-{:g}, growing above {:g}",
      t.fit.slope, ci.low, ci.high, t.fit.robust_slope, x_name, x_name, t.fit.x_min, t.fit.x_max,
      t.fit.points, t.fit.seeds, tolerance, tolerance);
  return t;
}

Gap log_gap(const std::vector<std::vector<double>>& low,
            const std::vector<std::vector<double>>& high, std::uint64_t seed, int resamples) {
  std::vector<std::vector<double>> lo;
  std::vector<std::vector<double>> hi;
  for (const auto& g : low) {
    if (std::vector<double> u = usable(g); !u.empty()) lo.push_back(std::move(u));
  }
  for (const auto& g : high) {
    if (std::vector<double> u = usable(g); !u.empty()) hi.push_back(std::move(u));
  }
  if (lo.empty() || hi.empty())
    throw std::invalid_argument("log_gap(): both sides need a measurement");
  auto statistic = [](const std::vector<std::vector<double>>& a,
                      const std::vector<std::vector<double>>& b) {
    double worst_low = -std::numeric_limits<double>::infinity();
    double best_high = std::numeric_limits<double>::infinity();
    for (const auto& g : a) worst_low = std::max(worst_low, std::log10(percentile(g, 0.5)));
    for (const auto& g : b) best_high = std::min(best_high, std::log10(percentile(g, 0.5)));
    return best_high - worst_low;
  };
  Gap gap;
  gap.decades = statistic(lo, hi);
  Rng rng(seed);
  std::vector<double> values;
  std::vector<std::vector<double>> lo_draw;
  std::vector<std::vector<double>> hi_draw;
  for (int b = 0; b < resamples; ++b) {
    // Drawn in a fixed order (high, then low): one stream, so the order is part of the result.
    resample_seeds(hi, rng, hi_draw);
    resample_seeds(lo, rng, lo_draw);
    values.push_back(statistic(lo_draw, hi_draw));
  }
  gap.ci = interval_of(values);
  return gap;
}

Transition locate_transition(const std::vector<std::vector<double>>& levels, std::uint64_t seed,
                             int resamples) {
  std::vector<std::vector<double>> groups;
  std::vector<std::size_t> index;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    std::vector<double> g = usable(levels[i]);
    if (g.empty()) continue;
    groups.push_back(std::move(g));
    index.push_back(i);
  }
  if (groups.size() < 2)
    throw std::invalid_argument("locate_transition(): needs two levels with measurements");
  auto drops = [](const std::vector<std::vector<double>>& gs) {
    std::vector<double> d;
    for (std::size_t i = 0; i + 1 < gs.size(); ++i) {
      d.push_back(std::log10(percentile(gs[i], 0.5)) - std::log10(percentile(gs[i + 1], 0.5)));
    }
    return d;
  };
  const std::vector<double> d = drops(groups);
  const auto largest = static_cast<std::size_t>(std::max_element(d.begin(), d.end()) - d.begin());
  Transition t;
  t.from = index[largest];
  t.at = index[largest + 1];
  t.decades = d[largest];
  Rng rng(seed);
  std::vector<double> sizes;
  std::vector<std::vector<double>> resampled;
  for (int b = 0; b < resamples; ++b) {
    resample_seeds(groups, rng, resampled);
    sizes.push_back(drops(resampled)[largest]);  // the size at the located place
  }
  t.ci = interval_of(sizes);
  return t;
}

}  // namespace infoflow::numeric
