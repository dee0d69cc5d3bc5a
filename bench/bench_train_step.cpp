// bench_train_step: the time of one training step of the numeric core, its arithmetic rate
// against the machine's measured float32 GEMM rate, and its peak memory. bench/train_step.sh
// runs it next to the PyTorch peer (bench/torch_train_step.py) and prints the ratio.
//
// Counting: a step's FLOP are 3x the forward pass's matrix-product FLOP (the backward pass does
// two products per forward one), 2 per multiply-add; elementwise work is not counted. "model"
// FLOP are those of the full model, as PyTorch computes it; "computed" FLOP are what we compute
// (the last layer only at the readout). The GEMM rate is Eigen's float32 product of 1024^3,
// 2*1024^3 FLOP each, one product per thread on each of the threads at once.
//
// Usage: bench_train_step T d E h1,h2,... W R batch steps

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#include "infoflow/numeric.hpp"

#include <omp.h>
#include <sys/resource.h>

namespace nm = infoflow::numeric;
using nm::Index;

namespace {

struct Flop {
  double model = 0;
  double computed = 0;
};

Flop step_flop(const nm::ModelConfig& c, Index batch) {
  const double b = static_cast<double>(batch);
  const double s = static_cast<double>(c.sequence());
  const double e = static_cast<double>(c.embedding);
  const double w = static_cast<double>(c.ffn_width);
  const double n_all = b * s;
  double model = 2 * b * static_cast<double>(c.tokens * c.token_dim) * e +
                 2 * b * e * static_cast<double>(c.readout_width) +
                 2 * b * static_cast<double>(c.readout_width);
  double computed = model;
  for (Index l = 0; l < c.layers(); ++l) {
    const double h = static_cast<double>(c.heads[static_cast<std::size_t>(l)]);
    const double n = static_cast<double>(c.head_dim_of(l));
    const double hn = h * n;
    const double full = 2 * n_all * e * hn * 4 + 2 * 2 * b * h * s * s * n + 2 * 2 * n_all * e * w;
    model += full;
    if (l + 1 < c.layers()) {
      computed += full;
    } else {  // keys and values everywhere; the rest at the readout only
      computed +=
          2 * n_all * e * hn * 2 + 2 * b * e * hn * 2 + 2 * 2 * b * h * s * n + 2 * 2 * b * e * w;
    }
  }
  return {3 * model, 3 * computed};
}

double gemm_gflops(int threads) {
  const Index m = 1024;
  std::vector<Eigen::MatrixXf> a(static_cast<std::size_t>(threads), Eigen::MatrixXf::Ones(m, m));
  std::vector<Eigen::MatrixXf> c(static_cast<std::size_t>(threads), Eigen::MatrixXf::Zero(m, m));
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for num_threads(threads)
    for (int i = 0; i < threads; ++i)
      c[static_cast<std::size_t>(i)].noalias() =
          a[static_cast<std::size_t>(i)] * a[static_cast<std::size_t>(i)];
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return 2.0 * static_cast<double>(m * m * m) * threads / best / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 9) {
    std::cerr << "usage: bench_train_step T d E h1,h2,... W R batch steps\n";
    return 2;
  }
  nm::ModelConfig c;
  c.tokens = std::atol(argv[1]);
  c.token_dim = std::atol(argv[2]);
  c.embedding = std::atol(argv[3]);
  c.heads.clear();
  std::stringstream heads(argv[4]);
  for (std::string h; std::getline(heads, h, ',');) c.heads.push_back(std::atol(h.c_str()));
  c.ffn_width = std::atol(argv[5]);
  c.readout_width = std::atol(argv[6]);
  nm::TrainOptions o;
  o.batch = std::atol(argv[7]);
  o.steps = std::atol(argv[8]);
  o.eval_every = o.steps;
  o.validation_size = 64;
  o.seed = 1;

  nm::TaskOptions t;
  t.name = "intrinsic_dim";
  t.tokens = c.tokens;
  t.token_dim = c.token_dim;
  const auto task = nm::make_task(t);
  const Flop flop = step_flop(c, o.batch);
  const double gemm1 = gemm_gflops(1);
  const double gemm2 = gemm_gflops(2);
  // Best of three runs of `steps` steps: ms per step, data generation included.
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    const nm::TrainResult r = nm::train(c, *task, o);
    best = std::min(best, r.seconds_per_step());
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double peak_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;
  std::cout << fmt::format(
      "{{\"ms_per_step\": {:.3f}, \"threads\": {}, \"gflop_model\": {:.4f}, \"gflop_computed\": "
      "{:.4f}, "
      "\"gflops_computed\": {:.2f}, \"gflops_model\": {:.2f}, \"gemm_gflops_1\": {:.1f}, "
      "\"gemm_gflops_2\": {:.1f}, \"peak_rss_mib\": {:.1f}}}\n",
      1e3 * best, omp_get_num_procs(), flop.model / 1e9, flop.computed / 1e9,
      flop.computed / best / 1e9, flop.model / best / 1e9, gemm1, gemm2, peak_mib);
  return 0;
}
