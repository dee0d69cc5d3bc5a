#ifndef INFOFLOW_CONSTRUCT_RIDGE_HPP_
#define INFOFLOW_CONSTRUCT_RIDGE_HPP_

// The universal part of a construction (docs/constructions.md, "FFNs"): a function of a few
// held values written as a constant, a linear form and a sum of functions of one linear form
// each (ridge functions), each of which ReLU units interpolate on a grid.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace infoflow::construct::detail {

using Function = std::function<double(const Eigen::VectorXd&)>;

struct Ridge {
  Eigen::VectorXd direction;            ///< w: the function reads w . z
  std::function<double(double)> shape;  ///< g
  /// Where g is known to be piecewise linear: points holding all its kinks, beyond which it is
  /// linear; it is then written on them exactly (interpolate_at), not on the width's grid.
  std::vector<double> kinks;
};

/// f(z) = constant + linear . z + sum_j g_j(w_j . z).
struct RidgeSum {
  double constant = 0;
  Eigen::VectorXd linear;
  std::vector<Ridge> ridges;
};

/// Writes f over k inputs as a ridge sum, found from values of f at probe points of scale
/// `scale` (one typical size per input; seed fixes the probes): an affine f; a quadratic f, as
/// the squares of its eigen-directions (a product u v is ((u + v)^2 - (u - v)^2) / 4); or one
/// an affine form plus a function of one linear form. Each reading is verified at random points
/// and at `data`, the inputs as the network meets them (a kink that only the data cross, as in
/// max(u + 1, v - 1), is found there). nullopt: none holds (`why` says what f is not).
std::optional<RidgeSum> decompose(const Function& f, const Eigen::VectorXd& scale,
                                  std::uint64_t seed, std::string& why,
                                  const std::vector<Eigen::VectorXd>& data = {});

/// The least-squares fit of f over `data` by at most `units` ReLU units (and kFitMostUnits,
/// and one for each kFitDataPerUnit data), for a function of a few held values that no
/// decomposition writes in one FFN level (a maximum of four products): a constant, a linear
/// form and ridges along the inputs, their differences and random directions (seed), each a sum
/// of ReLUs with kinks at quantiles of its projection, so that the fit is written exactly and
/// its error is the fit's. `error`: its NMSE on `data`.
RidgeSum fit(const Function& f, const std::vector<Eigen::VectorXd>& data,
             const Eigen::VectorXd& scale, long units, std::uint64_t seed, double& error);
/// Kinks a fitted ridge has (units a ridge).
constexpr long kFitKinks = 4;
/// Calibration states a fitted unit needs at least, so that the fit is no interpolation of them.
constexpr long kFitDataPerUnit = 16;
/// The most units a fit takes (its normal equations are their number squared, 134 MB here).
constexpr long kFitMostUnits = 4096;
/// The largest NMSE a fit may leave on its data and still be a construction of the function.
constexpr double kFitLargestError = 0.1;

/// The ReLU interpolant of g on `knots` equally spaced points of [low, high] (linear beyond):
/// g(low) + sum_k slope_k relu(u - u_k) - slope_0 relu(low - u). `knots` units.
struct Interpolant {
  double low = 0;
  double high = 0;
  double constant = 0;         ///< g(low)
  std::vector<double> breaks;  ///< u_k for each unit but the last
  std::vector<double> weights; ///< each unit's output weight; the last unit is relu(low - u)
};
Interpolant interpolate(const std::function<double(double)>& g, double low, double high,
                        long knots);
/// The ReLU interpolant of g on the increasing `points` (at least two; linear beyond them): exact
/// where g is piecewise linear with its kinks among them. points.size() units.
Interpolant interpolate_at(const std::function<double(double)>& g, const std::vector<double>& points);
/// m hat functions of one linear form w . z, centred at the quantiles 1 % to 99 % of `values`
/// (fewer where quantiles coincide; none where fewer than two are distinct): each is 1 at its
/// centre and falls to 0 at its neighbours', the last flat above its centre, the first flat
/// below its own if `flat_below` (else falling to 0 a cell below it). Where both ends are flat
/// they sum to 1, so a value's hats have a product of at least 1/2 with themselves and 0 with a
/// value two centres away. Each a Ridge with its kinks, written exactly.
struct Hats {
  std::vector<double> centres;
  std::vector<Ridge> ridges;
};
Hats hats_at_quantiles(std::vector<double> values, long m, bool flat_below,
                       const Eigen::VectorXd& w);
/// The interpolant's value (to check it, and for its error).
double value(const Interpolant& p, double u);

}  // namespace infoflow::construct::detail

#endif  // INFOFLOW_CONSTRUCT_RIDGE_HPP_
