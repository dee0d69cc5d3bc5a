// bench_one_layer_memorisation: does a one-layer network of the predecessor's memorisation plan
// reach a given accuracy at small T, and at what size (issue 44, item 5)? Trained one-layer
// networks stay above NMSE 0.1 at every rung of the M* ladder from T = 4 (experiments/results/
// mstar-quick); this tells apart "no network of that size exists" from "training does not find
// it".
//
// The plan (THEORY.md section 2, papers.md 2.2): the token-wise encoder writes e_t (kron) x(t)
// (exactly, from the learned position; E >= T d), one head averages them at the readout, so the
// readout holds the whole sequence, x(1), ..., x(T) side by side (over T). The readout MLP must
// then compute the target from T d numbers: no ridge or grid construction of a function of 16 or
// more inputs is small, so its hidden layer here is W random ReLU features (unit directions,
// offsets over the features' range) and its output weights are least squares on fresh sequences
// (ridge chosen on a held-out part). The network's error is that fit's: the rest is exact.
// An upper bound on the one-layer M* at that accuracy, not the smallest network.
//
// Usage: bench_one_layer_memorisation TASK T W [W ...]   (TASK: a built-in task, e.g. min_inner,
//        kth_max; seeds fixed: features 11, data 12, task 1)

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <fmt/format.h>

#include "infoflow/core/random.hpp"
#include "infoflow/numeric/tasks.hpp"

namespace nm = infoflow::numeric;
using Eigen::Index;

namespace {

/// The readout's input for n sequences (x: d x (n T)): each sequence's tokens side by side.
Eigen::MatrixXd memorised(const Eigen::MatrixXd& x, Index tokens) {
  const Index d = x.rows();
  const Index n = x.cols() / tokens;
  Eigen::MatrixXd z(d * tokens, n);
  for (Index s = 0; s < n; ++s) {
    for (Index t = 0; t < tokens; ++t) z.block(t * d, s, d, 1) = x.col(s * tokens + t);
  }
  return z;
}

struct Features {
  Eigen::MatrixXd directions;  // W x (T d)
  Eigen::VectorXd offsets;     // W
  [[nodiscard]] Eigen::MatrixXd of(const Eigen::MatrixXd& z) const {  // (W + 1) x n, with a 1
    Eigen::MatrixXd h(directions.rows() + 1, z.cols());
    h.topRows(directions.rows()) =
        ((directions * z).colwise() - offsets).cwiseMax(0.0);
    h.row(directions.rows()).setOnes();
    return h;
  }
};

double nmse(const Eigen::VectorXd& prediction, const Eigen::VectorXd& y) {
  const double mean = y.mean();
  return (prediction - y).squaredNorm() / (y.array() - mean).square().sum();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: bench_one_layer_memorisation TASK T W [W ...]\n";
    return 2;
  }
  nm::TaskOptions options;
  options.name = argv[1];
  options.tokens = std::stol(argv[2]);
  const std::unique_ptr<nm::Task> task = nm::make_task(options);
  const Index tokens = task->tokens();
  const Index d = task->token_dim();
  const Index inputs = tokens * d;
  fmt::print("{} at T = {}, d = {}: {}\n", options.name, tokens, d, task->description());
  fmt::print("{:>6} {:>9} {:>10} {:>10} {:>10}\n", "W", "samples", "M readout", "M", "NMSE");
  for (int a = 3; a < argc; ++a) {
    const Index width = std::stol(argv[a]);
    const Index train = std::max<Index>(20000, 16 * width);
    const Index held = 4096;
    const Index test = 8192;
    Eigen::MatrixXd x(d, (train + held + test) * tokens);
    Eigen::VectorXd y(train + held + test);
    nm::draw_samples(*task, 12, 0, train + held + test, x, y);
    const Eigen::MatrixXd z = memorised(x, tokens);
    // Offsets over the range of a unit direction's projection of z (z ~ N(0, I): about N(0, 1)).
    infoflow::Rng rng(11);
    Features f;
    f.directions.resize(width, inputs);
    f.offsets.resize(width);
    for (Index j = 0; j < width; ++j) {
      for (Index i = 0; i < inputs; ++i) f.directions(j, i) = rng.normal();
      f.directions.row(j).normalize();
      f.offsets(j) = 2.5 * (2 * rng.uniform() - 1);
    }
    Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(width + 1, width + 1);
    Eigen::VectorXd moment = Eigen::VectorXd::Zero(width + 1);
    constexpr Index kChunk = 4096;
    for (Index first = 0; first < train; first += kChunk) {
      const Index n = std::min(kChunk, train - first);
      const Eigen::MatrixXd h = f.of(z.middleCols(first, n));
      gram.selfadjointView<Eigen::Lower>().rankUpdate(h);
      moment += h * y.segment(first, n);
    }
    gram.triangularView<Eigen::Upper>() = gram.transpose();
    const Eigen::MatrixXd h_held = f.of(z.middleCols(train, held));
    const Eigen::MatrixXd h_test = f.of(z.middleCols(train + held, test));
    const double scale = gram.trace() / static_cast<double>(width + 1);
    double best = INFINITY;
    Eigen::VectorXd weights;
    for (const double ridge : {1e-8, 1e-6, 1e-4, 1e-2}) {
      Eigen::MatrixXd regularised = gram;
      regularised.diagonal().array() += ridge * scale;
      const Eigen::VectorXd w = regularised.ldlt().solve(moment);
      const double e = nmse(h_held.transpose() * w, y.segment(train, held));
      if (e < best) {
        best = e;
        weights = w;
      }
    }
    const double error = nmse(h_test.transpose() * weights, y.segment(train + held, test));
    // The theory's count (encoder, FFNs, readout MLP): the encoder writing e_t (kron) x(t) from
    // (x, one-hot position): 2 T d ReLU units (x_i gated by the position, each sign), T d
    // outputs; the readout MLP: T d inputs, W units, one output.
    const Index readout = inputs * width + width + width + 1;
    const Index encoder = (d + tokens) * 2 * inputs + 2 * inputs + 2 * inputs * inputs + inputs;
    fmt::print("{:>6} {:>9} {:>10} {:>10} {:>10.4g}\n", width, train, readout, readout + encoder, error);
  }
  return 0;
}
