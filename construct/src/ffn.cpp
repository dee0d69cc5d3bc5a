// The FFNs (docs/constructions.md, "FFNs"): each job, a function of a few stream coordinates at
// one token class, written as gated ReLU units (exact where its kinks are known, a ReLU
// interpolation on a grid read from calibration states otherwise), and the pass "FFN"
// (registry.cpp) that gives the FFN after each layer its jobs.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "infoflow/core/random.hpp"
#include "infoflow/numeric/transformer.hpp"

#include "passes.hpp"

namespace infoflow::construct::detail {

namespace {

/// A clamp's band, a fraction of the largest |u| met in calibration: the step to flag the tokens
/// tied with the one above within this fraction, which a k-th largest then skips (an error
/// whose probability is about proportional to the band).
constexpr double kClampBand = 1e-6;

/// The shares of an FFN's free width a fitted function takes, against one an interpolated
/// function of one linear form takes: it has several inputs.
constexpr long kFitShares = 3;
/// Units a fitted function takes besides its ridges: its linear form (two) and its constant.
constexpr long kFitAffineUnits = 3;

struct Unit {
  Form pre;
  double bias = 0;
  long into = 0;
  double weight = 0;
};

/// Switches a unit off away from class `at` (pre - G (1 - flag), G above |pre| anywhere).
template <class Bound>
void gate(Unit& u, Class at, bool one_class, const Bound& bound) {
  if (one_class) return;  // a network that runs at one class only
  const double g = bound(u.pre) + std::abs(u.bias);
  u.pre(Network::flag(at)) += g;
  u.bias -= g;
}

}  // namespace

/// Stream states of `sequences` calibration sequences (0: the options' count) after `layer`'s
/// attention (its FFN and all later weights still zero): E x (count * S), or the readout's E x
/// count for the last layer.
Eigen::MatrixXd calibration_states(Lowering& st, long layer, long sequences) {
  const numeric::ModelConfig& c = st.network->config();
  const long count = sequences > 0 ? sequences : st.options.calibration;
  Eigen::MatrixXd x(st.d, count * st.tokens);
  Eigen::VectorXd y(count);
  numeric::draw_samples(*st.task, derive_seed(st.options.seed, {1}), 0, count, x, y);
  const bool last = layer + 1 == c.layers();
  const long per = last ? 1 : st.tokens + 1;
  Eigen::MatrixXd out(c.embedding, count * per);
  numeric::Workspace<double> ws(c, kBatch);
  Eigen::VectorXd predictions(kBatch);
  for (long first = 0; first < count; first += kBatch) {
    const long n = std::min(kBatch, count - first);
    ws.forward(st.network->model(), x.data() + first * st.tokens * st.d, n, predictions.data());
    if (last || layer == c.layers()) {
      out.middleCols(first, n) = ws.readout_state(n);
    } else {
      out.middleCols(first * per, n * per) = ws.state_entering(layer + 1, n);
    }
  }
  return out;
}

/// Whether column i of calibration_states(layer) is a token of class `at`.
bool column_at(const Lowering& st, long layer, long i, Class at) {
  const bool last = layer + 1 >= st.network->config().layers();
  const bool readout = last || i % (st.tokens + 1) == st.tokens;
  return readout == (at == Class::kReadout);
}

/// The FFN after `layer` (layer = L: the readout MLP, whose one output is `into` = 0; layer =
/// kEncoder: the MLP encoder, whose inputs are x as the linear encoder writes it).
void ffn(Lowering& st, long layer, std::vector<Job> jobs,
         const std::vector<std::pair<long, std::optional<Class>>>& erasures, bool last,
         const std::vector<Clamp>& clamps) {
  if (jobs.empty() && erasures.empty() && clamps.empty()) return;
  const bool readout_mlp = layer == st.network->config().layers();
  const bool encoder = layer == Network::kEncoder;
  // The readout MLP runs at the readout alone, the encoder at the input tokens alone: no gate,
  // and their constants are output biases.
  const bool one_class = readout_mlp || encoder;
  const std::string name = encoder       ? "the encoder"
                           : readout_mlp ? "the readout MLP"
                                         : "the FFN after layer " + std::to_string(layer + 1);
  const Eigen::MatrixXd states =
      calibration_states(st, std::min(layer, st.network->config().layers() - 1));
  const long columns = states.cols();
  auto gate_of = [&](const Form& pre) {  // a bound on |pre| over every calibration token
    return 4 * (states.transpose() * pre).cwiseAbs().maxCoeff() + 10;
  };
  std::vector<Unit> units;
  std::map<Class, std::map<long, double>> constants;
  struct Pending {
    const Job* job;
    detail::Ridge ridge;
  };
  std::vector<Pending> ridges;
  struct Fitted {
    const Job* job;
    Eigen::VectorXd scale;
    std::vector<Eigen::VectorXd> data;
  };
  std::vector<Fitted> fits;
  // A job's inputs at each calibration token of its class.
  const auto inputs_at = [&](const Job& job, const Eigen::MatrixXd& at) {
    std::vector<Eigen::VectorXd> data;
    for (long c = 0; c < at.cols(); ++c) {
      if (!column_at(st, layer, c, job.at)) continue;
      Eigen::VectorXd z(static_cast<long>(job.inputs.size()));
      for (std::size_t i = 0; i < job.inputs.size(); ++i)
        z(static_cast<long>(i)) = at(job.inputs[i], c);
      data.push_back(z);
    }
    return data;
  };
  const auto write_affine = [&](const Job& job, const detail::RidgeSum& r) {
    constants[job.at][job.into] += r.constant;
    Form linear = st.network->zero();
    for (std::size_t i = 0; i < job.inputs.size(); ++i)
      linear(job.inputs[i]) += r.linear(static_cast<long>(i));
    if (linear.cwiseAbs().maxCoeff() > 0) {
      // relu(u) - relu(-u) = u, exactly.
      units.push_back(Unit{linear, 0, job.into, 1});
      units.push_back(Unit{-linear, 0, job.into, -1});
      gate(units[units.size() - 2], job.at, one_class, gate_of);
      gate(units.back(), job.at, one_class, gate_of);
    }
  };
  // Piecewise linear with known kinks: exact on them, whatever the width.
  const auto write_exact = [&](const Job& job, const detail::Ridge& ridge) {
    Form w = st.network->zero();
    for (std::size_t i = 0; i < job.inputs.size(); ++i)
      w(job.inputs[i]) += ridge.direction(static_cast<long>(i));
    const detail::Interpolant exact = detail::interpolate_at(ridge.shape, ridge.kinks);
    constants[job.at][job.into] += exact.constant;
    for (std::size_t k = 0; k < exact.breaks.size(); ++k) {
      if (exact.weights[k] == 0) continue;
      units.push_back(Unit{w, -exact.breaks[k], job.into, exact.weights[k]});
      gate(units.back(), job.at, one_class, gate_of);
    }
    if (exact.weights.back() != 0) {
      units.push_back(Unit{-w, exact.low, job.into, exact.weights.back()});
      gate(units.back(), job.at, one_class, gate_of);
    }
  };
  for (const auto& [coordinate, at] : erasures) {
    const Form u = st.network->unit(coordinate);
    units.push_back(Unit{u, 0, coordinate, -1});
    units.push_back(Unit{-u, 0, coordinate, 1});
    if (at) {
      gate(units[units.size() - 2], *at, false, gate_of);
      gate(units.back(), *at, false, gate_of);
    }
    st.network->release(coordinate);
  }
  // A step from 0 (u <= -delta) to 1 (u >= 0), exactly: relu(u / delta + 1) - relu(u / delta).
  for (const Clamp& c : clamps) {
    double largest = 0;
    for (long i = 0; i < columns; ++i) {
      if (column_at(st, layer, i, Class::kInputs))
        largest = std::max(largest, std::abs(states.col(i).dot(c.u)));
    }
    const double delta = kClampBand * std::max(largest, 1e-12);
    // Not gated: the flag is in [0, 1] at the readout too, where nothing reads it (the readout
    // is never a candidate), and a gate's large offset would cost the clamp its precision in
    // float32.
    units.push_back(Unit{c.u / delta, 1, c.into, 1});
    units.push_back(Unit{c.u / delta, 0, c.into, -1});
  }
  // What the erasures freed can hold this FFN's outputs.
  for (Job& job : jobs) {
    if (job.into >= 0) continue;
    try {
      job.into = st.network->allocate(job.what, name);
    } catch (const Failure& f) {
      if (job.known) {  // a mask's content features (the only features designed in advance)
        throw Failure(Shortfall::kEmbedding, name,
                      fmt::format("{}; a mask without positions reads {} content features, a "
                                  "coordinate each (--mask-features sets how many)",
                                  f.what(), st.options.mask_features));
      }
      if (!encoder) throw;
      // The engine counts what each token holds; this layout keeps x beside the features and
      // gives each token class's values coordinates of their own.
      throw Failure(Shortfall::kConstructor, name,
                    std::string(f.what()) +
                        " (the constructor keeps x beside "
                        "the encoder's features and gives the values of each token "
                        "class coordinates of their own)");
    }
    if (job.placed) job.placed(job.into);
  }
  for (const Job& job : jobs) {
    if (last && !readout_mlp && job.at == Class::kInputs) continue;  // never read
    Eigen::VectorXd scale(static_cast<long>(job.inputs.size()));
    for (std::size_t i = 0; i < job.inputs.size(); ++i) {
      double sum = 0;
      long n = 0;
      for (long c = 0; c < columns; ++c) {
        if (!column_at(st, layer, c, job.at)) continue;
        sum += states(job.inputs[i], c) * states(job.inputs[i], c);
        ++n;
      }
      scale(static_cast<long>(i)) = std::max(1e-3, std::sqrt(sum / std::max<long>(n, 1)));
    }
    std::vector<Eigen::VectorXd> data = inputs_at(job, states);
    std::string why;
    const std::optional<detail::RidgeSum> r =
        job.known ? job.known
                  : detail::decompose(job.f, scale, derive_seed(st.options.seed, {43}), why, data);
    if (!r && job.fitted_if_needed && !data.empty()) {
      fits.push_back(Fitted{&job, scale, std::move(data)});  // written once the width is shared
      continue;
    }
    if (!r) {
      throw Failure(Shortfall::kConstructor, name,
                    fmt::format("{}{}: {} is not one FFN level's function: {}", name,
                                one_class ? "" : " at the " + class_name(job.at), job.what, why));
    }
    write_affine(job, *r);
    for (const detail::Ridge& ridge : r->ridges) {
      if (ridge.kinks.empty()) ridges.push_back(Pending{&job, ridge});
      else write_exact(job, ridge);
    }
  }
  const long width = encoder       ? st.network->config().encoder_hidden()
                     : readout_mlp ? st.network->config().readout_width
                                   : st.network->config().ffn_width;
  // The encoder's pass-through of x (and positions) is already there.
  const long fixed = st.network->units(layer) + static_cast<long>(units.size()) +
                     static_cast<long>(constants.size());
  if (fixed > width) {
    throw Failure(Shortfall::kFfnWidth, name,
                  fmt::format("{} needs {} exact units: width {} is too small (use {} >= {})", name,
                              fixed, width,
                              encoder                                       ? "--encoder-width"
                              : readout_mlp && st.options.readout_width > 0 ? "--readout-width"
                                                                            : "--ffn-width",
                              fixed));
  }
  // The width left is shared by the interpolated functions, a share each, and the fitted ones,
  // kFitShares each, besides their affine parts.
  long knots = 0;
  const auto shares = static_cast<long>(ridges.size() + kFitShares * fits.size());
  if (shares > 0) {
    knots = (width - fixed - kFitAffineUnits * static_cast<long>(fits.size())) / shares;
    if (knots < kFewestKnots) {
      throw Failure(Shortfall::kFfnWidth, name,
                    fmt::format("{} needs {} interpolated functions, {} fitted ones and {} exact "
                                "units: width {} leaves fewer than {} knots each (use {} >= {})",
                                name, ridges.size(), fits.size(), fixed, width, kFewestKnots,
                                encoder                                       ? "--encoder-width"
                                : readout_mlp && st.options.readout_width > 0 ? "--readout-width"
                                                                              : "--ffn-width",
                                fixed + kFewestKnots * shares +
                                    kFitAffineUnits * static_cast<long>(fits.size())));
    }
    if (!ridges.empty())
      st.fewest_knots = st.fewest_knots == 0 ? knots : std::min(st.fewest_knots, knots);
  }
  for (Fitted& f : fits) {
    // More calibration sequences where the fit's share is wide.
    const long fit_units = std::min(kFitShares * knots, detail::kFitMostUnits);
    if (detail::kFitDataPerUnit * fit_units > static_cast<long>(f.data.size())) {
      const long at = std::min(layer, st.network->config().layers() - 1);
      f.data = inputs_at(*f.job, calibration_states(st, at, detail::kFitDataPerUnit * fit_units));
    }
    double error = 0;
    const detail::RidgeSum r = detail::fit(f.job->f, f.data, f.scale, fit_units,
                                           derive_seed(st.options.seed, {44}), error);
    if (error > detail::kFitLargestError) {
      throw Failure(Shortfall::kConstructor, name,
                    fmt::format("{}{}: {} is not one FFN level's function, and a least-squares "
                                "fit by {} ReLU units leaves NMSE {:.2g} on {} calibration states "
                                "(above {}): no construction of it (a wider FFN fits more finely)",
                                name, one_class ? "" : " at the " + class_name(f.job->at),
                                f.job->what, r.ridges.size() * detail::kFitKinks, error,
                                f.data.size(), detail::kFitLargestError));
    }
    write_affine(*f.job, r);
    for (const detail::Ridge& ridge : r.ridges) write_exact(*f.job, ridge);
    ++st.fitted;
    st.described.push_back(fmt::format(
        "{}{}: {} is not one FFN level's function, so it is fitted, not written: {} ReLU units "
        "by least squares on {} calibration states (NMSE {:.2g} there)",
        name, one_class ? "" : " at the " + class_name(f.job->at), f.job->what,
        r.ridges.size() * detail::kFitKinks, f.data.size(), error));
  }
  for (const Pending& p : ridges) {
    Form w = st.network->zero();
    for (std::size_t i = 0; i < p.job->inputs.size(); ++i)
      w(p.job->inputs[i]) += p.ridge.direction(static_cast<long>(i));
    double low = std::numeric_limits<double>::infinity();
    double high = -low;
    for (long c = 0; c < columns; ++c) {
      if (!column_at(st, layer, c, p.job->at)) continue;
      const double u = states.col(c).dot(w);
      low = std::min(low, u);
      high = std::max(high, u);
    }
    if (!std::isfinite(low)) low = high = 0;
    const double margin = std::max(0.05 * (high - low), 1e-3);
    low -= margin;
    high += margin;
    if (low < 0 && high > 0) {
      // A knot at 0: the kinks of relu and abs of a linear form, and of max(u, v) = v +
      // relu(u - v), are there, and a grid through them interpolates those exactly.
      const double step = (high - low) / static_cast<double>(knots - 2);
      low = std::floor(low / step) * step;
      high = low + step * static_cast<double>(knots - 1);
    }
    const detail::Interpolant interp = detail::interpolate(p.ridge.shape, low, high, knots);
    constants[p.job->at][p.job->into] += interp.constant;
    for (std::size_t k = 0; k < interp.breaks.size(); ++k) {
      units.push_back(Unit{w, -interp.breaks[k], p.job->into, interp.weights[k]});
      gate(units.back(), p.job->at, one_class, gate_of);
    }
    units.push_back(Unit{-w, interp.low, p.job->into, interp.weights.back()});
    gate(units.back(), p.job->at, one_class, gate_of);
  }
  for (const auto& [at, into_values] : constants) {
    if (one_class) {
      for (const auto& [into, c] : into_values) st.network->add_constant(layer, into, c);
      continue;
    }
    // relu(flag) is 1 at the class and 0 elsewhere: the class's constants, exactly.
    Eigen::VectorXd out = Eigen::VectorXd::Zero(st.network->width());
    for (const auto& [into, c] : into_values) out(into) += c;
    st.network->add_unit(layer, st.network->unit(Network::flag(at)), 0, out);
  }
  for (const Unit& u : units) {
    Eigen::VectorXd out = Eigen::VectorXd::Zero(readout_mlp ? 1 : st.network->width());
    out(readout_mlp ? 0 : u.into) = u.weight;
    st.network->add_unit(layer, u.pre, u.bias, out);
  }
  st.widest_units = std::max(st.widest_units, st.network->units(layer));
}

void layer_ffn(Lowering& st) {
  const long l = st.current_layer - 1;
  const bool last = st.current_layer == st.plan.architecture.layers();
  std::vector<Job> jobs = std::move(st.layer.jobs);
  std::vector<Job> features = feature_jobs(st, l + 1);
  jobs.insert(jobs.end(), std::make_move_iterator(features.begin()),
              std::make_move_iterator(features.end()));
  std::vector<Job> hats = threshold_jobs(st, l);
  jobs.insert(jobs.end(), std::make_move_iterator(hats.begin()),
              std::make_move_iterator(hats.end()));
  if (last) {
    std::vector<Job> first = first_level(st, l);
    jobs.insert(jobs.end(), std::make_move_iterator(first.begin()),
                std::make_move_iterator(first.end()));
  }
  ffn(st, l, jobs, st.layer.erasures, last, st.layer.clamps);
}

}  // namespace infoflow::construct::detail
