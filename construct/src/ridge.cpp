#include "ridge.hpp"

#include <algorithm>
#include <cmath>

#include <Eigen/Eigenvalues>

#include "infoflow/core/random.hpp"

namespace infoflow::construct::detail {

namespace {
/// Relative agreement of two values of f (rounding of a formula evaluated in double).
bool agrees(double a, double b, double size) {
  return std::abs(a - b) <= 1e-7 * (1 + size);
}

std::vector<Eigen::VectorXd> probes(const Eigen::VectorXd& scale, std::uint64_t seed, int count) {
  Rng rng(seed);
  std::vector<Eigen::VectorXd> out;
  for (int i = 0; i < count; ++i) {
    Eigen::VectorXd z(scale.size());
    for (Eigen::Index j = 0; j < z.size(); ++j) z(j) = scale(j) * rng.normal();
    out.push_back(z);
  }
  return out;
}

bool verified(const Function& f, const Function& reading, const std::vector<Eigen::VectorXd>& at) {
  return std::all_of(at.begin(), at.end(), [&](const Eigen::VectorXd& z) {
    const double a = f(z);
    return std::isfinite(a) && agrees(a, reading(z), std::abs(a));
  });
}

Eigen::VectorXd gradient(const Function& f, const Eigen::VectorXd& z, const Eigen::VectorXd& scale) {
  Eigen::VectorXd g(z.size());
  for (Eigen::Index i = 0; i < z.size(); ++i) {
    const double h = 1e-5 * scale(i);
    Eigen::VectorXd up = z;
    Eigen::VectorXd down = z;
    up(i) += h;
    down(i) -= h;
    g(i) = (f(up) - f(down)) / (2 * h);
  }
  return g;
}
}  // namespace

std::optional<RidgeSum> decompose(const Function& f, const Eigen::VectorXd& scale,
                                  std::uint64_t seed, std::string& why,
                                  const std::vector<Eigen::VectorXd>& data) {
  const Eigen::Index k = scale.size();
  std::vector<Eigen::VectorXd> checks = probes(scale, seed, 12);
  checks.insert(checks.end(), data.begin(), data.end());
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(k);
  const double c = f(zero);
  auto unit = [&](Eigen::Index i, double sign) {
    Eigen::VectorXd e = zero;
    e(i) = sign * scale(i);
    return e;
  };
  RidgeSum out;
  out.constant = c;
  out.linear = Eigen::VectorXd::Zero(k);
  if (std::isfinite(c)) {
    // Affine: the central differences at 0 are the slopes.
    for (Eigen::Index i = 0; i < k; ++i)
      out.linear(i) = (f(unit(i, 1)) - f(unit(i, -1))) / (2 * scale(i));
    if (verified(f, [&](const Eigen::VectorXd& z) { return c + out.linear.dot(z); }, checks))
      return out;
    // Quadratic: f(a + b) + f(-a - b) - f(a - b) - f(b - a) = 8 a'Qb.
    Eigen::MatrixXd q(k, k);
    for (Eigen::Index i = 0; i < k; ++i) {
      q(i, i) = (f(unit(i, 1)) + f(unit(i, -1)) - 2 * c) / (2 * scale(i) * scale(i));
      for (Eigen::Index j = 0; j < i; ++j) {
        const Eigen::VectorXd a = unit(i, 1);
        const Eigen::VectorXd b = unit(j, 1);
        q(i, j) = q(j, i) = (f(a + b) + f(-a - b) - f(a - b) - f(b - a)) / (8 * scale(i) * scale(j));
      }
    }
    if (verified(f, [&](const Eigen::VectorXd& z) { return c + out.linear.dot(z) + z.dot(q * z); },
                 checks)) {
      const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(q);
      const double largest = eigen.eigenvalues().cwiseAbs().maxCoeff();
      for (Eigen::Index j = 0; j < k; ++j) {
        const double lambda = eigen.eigenvalues()(j);
        if (std::abs(lambda) <= 1e-12 * largest) continue;
        out.ridges.push_back(Ridge{eigen.eigenvectors().col(j),
                                   [lambda](double u) { return lambda * u * u; }, {}});
      }
      return out;
    }
  }
  // One function of one linear form plus an affine part, f(z) = a.z + g(w.z) (max(u, v) is
  // v + relu(u - v)): the gradients a + g'(w.z) w differ from one another along w only.
  std::vector<Eigen::VectorXd> gradients;
  std::vector<Eigen::VectorXd> at = probes(scale, seed + 1, 16);
  const std::size_t stride = std::max<std::size_t>(1, data.size() / 64);  // 64 of the data
  for (std::size_t i = 0; i < data.size(); i += stride) at.push_back(data[i]);
  for (const Eigen::VectorXd& z : at) {
    const Eigen::VectorXd g = gradient(f, z, scale);
    if (g.allFinite()) gradients.push_back(g);
  }
  Eigen::VectorXd w;
  double widest = 1e-9;
  for (const Eigen::VectorXd& g : gradients) {
    for (const Eigen::VectorXd& h : gradients) {
      if ((g - h).norm() > widest) {
        widest = (g - h).norm();
        w = (g - h).normalized();
      }
    }
  }
  if (w.size() == 0 && !gradients.empty() && gradients.front().norm() > 1e-9)
    w = gradients.front().normalized();
  if (w.size() == 0) {
    why = "it is not finite, or flat, on the probes";
    return std::nullopt;
  }
  // The affine part across w is the gradients' common part; along w it joins g.
  const Eigen::VectorXd across = gradients.front() - gradients.front().dot(w) * w;
  const Function along = [&](const Eigen::VectorXd& z) { return across.dot(z) + f(w.dot(z) * w); };
  if (!verified(f, along, checks)) {
    why = "it is neither affine, nor quadratic, nor an affine form plus a function of one linear "
          "form of its inputs (one FFN level writes only those)";
    return std::nullopt;
  }
  out.constant = 0;
  out.linear = across;
  out.ridges.push_back(Ridge{w, [f, w](double u) { return f(u * w); }, {}});
  return out;
}

RidgeSum fit(const Function& f, const std::vector<Eigen::VectorXd>& data,
             const Eigen::VectorXd& scale, long units, std::uint64_t seed, double& error) {
  const Eigen::Index k = scale.size();
  const auto n = static_cast<Eigen::Index>(data.size());
  const long directions = std::max<long>(
      1, std::min({units, kFitMostUnits, static_cast<long>(n) / kFitDataPerUnit}) / kFitKinks);
  // The inputs and their differences first: the kinks of a maximum of them lie across those
  // (max(u, v) is v + relu(u - v)); then random directions.
  std::vector<Eigen::VectorXd> given;
  for (Eigen::Index i = 0; i < k; ++i) {
    given.push_back(Eigen::VectorXd::Unit(k, i) / scale(i));
    for (Eigen::Index j = 0; j < i; ++j)
      given.push_back(Eigen::VectorXd::Unit(k, i) / scale(i) - Eigen::VectorXd::Unit(k, j) / scale(j));
  }
  Rng rng(seed);
  std::vector<Eigen::VectorXd> w;
  std::vector<std::vector<double>> kinks;
  for (long j = 0; j < directions; ++j) {
    Eigen::VectorXd d(k);
    if (j < static_cast<long>(given.size())) {
      d = given[static_cast<std::size_t>(j)];
    } else {
      for (Eigen::Index i = 0; i < k; ++i) d(i) = rng.normal() / scale(i);
    }
    std::vector<double> u;
    for (const Eigen::VectorXd& z : data) u.push_back(d.dot(z));
    std::sort(u.begin(), u.end());
    std::vector<double> at;
    for (long q = 1; q <= kFitKinks && !u.empty(); ++q) {
      const double quantile = static_cast<double>(q) / static_cast<double>(kFitKinks + 1);
      at.push_back(u[static_cast<std::size_t>(quantile * static_cast<double>(u.size() - 1))]);
    }
    w.push_back(std::move(d));
    kinks.push_back(std::move(at));
  }
  // Columns: 1, z, then relu(w_j . z - b_jq) for each direction and kink. The normal
  // equations are summed row by row: memory in the columns squared, not in the data.
  const Eigen::Index columns = 1 + k + directions * kFitKinks;
  Eigen::VectorXd row(columns);
  const auto features = [&](const Eigen::VectorXd& z) {
    row(0) = 1;
    row.segment(1, k) = z;
    Eigen::Index c = 1 + k;
    for (long j = 0; j < directions; ++j) {
      const double u = w[static_cast<std::size_t>(j)].dot(z);
      for (const double b : kinks[static_cast<std::size_t>(j)]) row(c++) = std::max(0.0, u - b);
    }
  };
  Eigen::MatrixXd normal = Eigen::MatrixXd::Zero(columns, columns);
  Eigen::VectorXd moment = Eigen::VectorXd::Zero(columns);
  Eigen::VectorXd y(n);
  for (Eigen::Index r = 0; r < n; ++r) {
    const Eigen::VectorXd& z = data[static_cast<std::size_t>(r)];
    y(r) = f(z);
    features(z);
    normal.selfadjointView<Eigen::Lower>().rankUpdate(row);
    moment += y(r) * row;
  }
  // Least squares with a small ridge penalty, so that near-collinear units stay bounded.
  normal = normal.selfadjointView<Eigen::Lower>();
  const double penalty = 1e-8 * normal.diagonal().mean();
  normal.diagonal().array() += penalty;
  const Eigen::VectorXd c = normal.ldlt().solve(moment);
  double squared = 0;
  for (Eigen::Index r = 0; r < n; ++r) {
    features(data[static_cast<std::size_t>(r)]);
    squared += (row.dot(c) - y(r)) * (row.dot(c) - y(r));
  }
  const double variance = (y.array() - y.mean()).square().mean();
  error = squared / static_cast<double>(std::max<Eigen::Index>(n, 1)) / std::max(variance, 1e-300);
  RidgeSum out;
  out.constant = c(0);
  out.linear = c.segment(1, k);
  for (long j = 0; j < directions; ++j) {
    const std::vector<double>& b = kinks[static_cast<std::size_t>(j)];
    const Eigen::VectorXd weights = c.segment(1 + k + j * kFitKinks, kFitKinks);
    Ridge ridge;
    ridge.direction = w[static_cast<std::size_t>(j)];
    ridge.shape = [b, weights](double u) {
      double v = 0;
      for (std::size_t q = 0; q < b.size(); ++q)
        v += weights(static_cast<Eigen::Index>(q)) * std::max(0.0, u - b[q]);
      return v;
    };
    // Flat below the first kink and linear above the last: written exactly on these points.
    ridge.kinks = {b.front() - 1};
    ridge.kinks.insert(ridge.kinks.end(), b.begin(), b.end());
    ridge.kinks.push_back(b.back() + 1);
    ridge.kinks.erase(std::unique(ridge.kinks.begin(), ridge.kinks.end()), ridge.kinks.end());
    out.ridges.push_back(std::move(ridge));
  }
  return out;
}

Interpolant interpolate(const std::function<double(double)>& g, double low, double high,
                        long knots) {
  std::vector<double> points;
  const double step = (high - low) / static_cast<double>(knots - 1);
  for (long i = 0; i < knots; ++i) points.push_back(low + step * static_cast<double>(i));
  return interpolate_at(g, points);
}

Interpolant interpolate_at(const std::function<double(double)>& g, const std::vector<double>& points) {
  Interpolant p;
  p.low = points.front();
  p.high = points.back();
  p.constant = g(p.low);
  double previous = 0;
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    const double slope = (g(points[i + 1]) - g(points[i])) / (points[i + 1] - points[i]);
    p.breaks.push_back(points[i]);
    p.weights.push_back(slope - previous);
    previous = slope;
  }
  // Below the points, the first segment continues.
  p.weights.push_back(-p.weights.front());
  return p;
}

Hats hats_at_quantiles(std::vector<double> values, long m, bool flat_below,
                       const Eigen::VectorXd& w) {
  Hats out;
  std::sort(values.begin(), values.end());
  for (long i = 0; i < m && !values.empty(); ++i) {
    const double q = 0.01 + 0.98 * static_cast<double>(i) / static_cast<double>(m - 1);
    const double c = values[static_cast<std::size_t>(std::lround(q * static_cast<double>(values.size() - 1)))];
    if (out.centres.empty() || c > out.centres.back()) out.centres.push_back(c);
  }
  if (out.centres.size() < 2) {
    out.centres.clear();
    return out;
  }
  const auto count = static_cast<long>(out.centres.size());
  for (long i = 0; i < count; ++i) {
    const auto at = [&](long j) { return out.centres[static_cast<std::size_t>(j)]; };
    const bool first = i == 0;
    const bool last = i + 1 == count;
    const double centre = at(i);
    const double left = first ? 2 * at(0) - at(1) : at(i - 1);
    const double right = last ? 2 * at(i) - at(i - 1) : at(i + 1);
    const bool flat_left = first && flat_below;
    auto hat = [=](double v) {
      if (v <= centre) return flat_left ? 1.0 : std::max(0.0, (v - left) / (centre - left));
      return last ? 1.0 : std::max(0.0, (right - v) / (right - centre));
    };
    // Flat beyond the outer kinks, so the interpolant on them is the hat everywhere.
    out.ridges.push_back(Ridge{w, hat, {left - 1, left, centre, right, right + 1}});
  }
  return out;
}

double value(const Interpolant& p, double u) {
  double out = p.constant;
  for (std::size_t i = 0; i < p.breaks.size(); ++i) out += p.weights[i] * std::max(0.0, u - p.breaks[i]);
  return out + p.weights.back() * std::max(0.0, p.low - u);
}

}  // namespace infoflow::construct::detail
