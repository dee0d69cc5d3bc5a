// The pass "measure" (registry.cpp): the built network's NMSE on `samples` fresh sequences.
#include <algorithm>

#include <fmt/format.h>

#include "infoflow/core/progress.hpp"
#include "infoflow/numeric/transformer.hpp"

#include "passes.hpp"

namespace infoflow::construct::detail {

void measure(Lowering& st) {
  core::progress::set(fmt::format("measuring the NMSE on {} fresh sequences", st.options.samples));
  const numeric::ModelConfig& c = st.network->config();
  const long count = st.options.samples;
  Eigen::MatrixXd x(st.d, count * st.tokens);
  Eigen::VectorXd y(count);
  numeric::draw_samples(*st.task, st.options.seed, 0, count, x, y);
  numeric::Workspace<double> ws(c, kBatch);
  Eigen::VectorXd predictions(count);
  for (long first = 0; first < count; first += kBatch) {
    const long n = std::min(kBatch, count - first);
    ws.forward(st.network->model(), x.data() + first * st.tokens * st.d, n,
               predictions.data() + first);
  }
  const double mean = y.mean();
  st.target_variance = (y.array() - mean).square().mean();
  const double mse = (predictions - y).squaredNorm() / static_cast<double>(count);
  st.nmse = st.target_variance > 0 ? mse / st.target_variance : mse;
}

}  // namespace infoflow::construct::detail
