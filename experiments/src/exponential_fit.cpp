#include "exponential_fit.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "infoflow/core/random.hpp"

namespace infoflow::experiments {

namespace {

/// The least-squares slope and intercept of y on x.
std::pair<double, double> least_squares(const std::vector<double>& x,
                                        const std::vector<double>& y) {
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
  const double slope = sxy / sxx;
  return {slope, my - slope * mx};
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

/// log10 of each group's median.
std::vector<double> log_medians(const std::vector<std::vector<double>>& groups) {
  std::vector<double> out;
  for (const std::vector<double>& g : groups) out.push_back(std::log10(percentile(g, 0.5)));
  return out;
}

}  // namespace

ExponentialFit fit_exponential(const std::vector<double>& xs,
                               const std::vector<std::vector<double>>& ys, std::uint64_t seed,
                               int resamples) {
  std::vector<double> x;
  std::vector<std::vector<double>> groups;
  for (std::size_t i = 0; i < xs.size() && i < ys.size(); ++i) {
    std::vector<double> g;
    for (const double y : ys[i]) {
      if (std::isfinite(y) && y > 0) g.push_back(y);
    }
    if (g.empty() || !std::isfinite(xs[i])) continue;
    x.push_back(xs[i]);
    groups.push_back(std::move(g));
  }
  if (x.empty() || std::all_of(x.begin(), x.end(), [&](double v) { return v == x.front(); })) {
    throw std::invalid_argument("fit_exponential(): needs measurements at two distinct x at least");
  }
  ExponentialFit f;
  std::tie(f.slope, f.intercept) = least_squares(x, log_medians(groups));
  f.points = x.size();
  f.x_min = *std::min_element(x.begin(), x.end());
  f.x_max = *std::max_element(x.begin(), x.end());
  Rng rng(seed);
  std::vector<double> slopes;
  std::vector<std::vector<double>> drawn(groups.size());
  for (int b = 0; b < resamples; ++b) {
    for (std::size_t i = 0; i < groups.size(); ++i) {
      drawn[i].resize(groups[i].size());
      for (double& v : drawn[i]) v = groups[i][rng.next() % groups[i].size()];
    }
    slopes.push_back(least_squares(x, log_medians(drawn)).first);
  }
  f.slope_ci = {percentile(slopes, 0.025), percentile(slopes, 0.975)};
  return f;
}

}  // namespace infoflow::experiments
