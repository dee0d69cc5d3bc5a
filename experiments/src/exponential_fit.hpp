#ifndef INFOFLOW_EXPERIMENTS_EXPONENTIAL_FIT_HPP_
#define INFOFLOW_EXPERIMENTS_EXPONENTIAL_FIT_HPP_

// A straight line through log10 y against x (not log x): an exponential in x, the form in which
// a lower bound puts the parameters needed against T. As numeric/fit.hpp does for power laws:
// least squares on the medians over seeds at each x, the slope's 95 % interval from a bootstrap
// that resamples the seeds within each x.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "infoflow/numeric/fit.hpp"

namespace infoflow::experiments {

struct ExponentialFit {
  double slope = 0;  ///< log10 y = intercept + slope * x: decades per unit of x
  double intercept = 0;
  numeric::Interval slope_ci;
  std::size_t points = 0;
  double x_min = 0;
  double x_max = 0;
};

/// ys[i]: the measurements at xs[i] (positive and finite; others are dropped). Needs two
/// distinct xs with a measurement; throws std::invalid_argument otherwise.
ExponentialFit fit_exponential(const std::vector<double>& xs,
                               const std::vector<std::vector<double>>& ys, std::uint64_t seed = 1,
                               int resamples = 2000);

}  // namespace infoflow::experiments

#endif  // INFOFLOW_EXPERIMENTS_EXPONENTIAL_FIT_HPP_
