#include "infoflow/numeric/inspect.hpp"

#include <cstring>
#include <string>

#include <Eigen/QR>

#include "infoflow/core/error.hpp"
#include "infoflow/numeric/checkpoint.hpp"
#include "infoflow/numeric/train.hpp"

namespace infoflow::numeric {

namespace {

/// `sequences` inputs of the task, d x (sequences*T), from the seed's own streams.
Eigen::MatrixXd draw_inputs(const Task& task, Index sequences, std::uint64_t seed) {
  Eigen::MatrixXd x(task.token_dim(), sequences * task.tokens());
  Eigen::VectorXd y(sequences);
  draw_samples(task, seed, 0, sequences, x, y);
  return x;
}

/// Held-out NMSE of the least-squares map (with bias) from features to targets: fitted on the
/// first half of the columns, scored on the second.
double probe_nmse(const Eigen::MatrixXd& features, const Eigen::MatrixXd& targets) {
  const Index half = features.cols() / 2;
  Eigen::MatrixXd a(half, features.rows() + 1);
  a.leftCols(features.rows()) = features.leftCols(half).transpose();
  a.col(features.rows()).setOnes();
  const Eigen::MatrixXd w = a.colPivHouseholderQr().solve(targets.leftCols(half).transpose());
  const Index rest = features.cols() - half;
  Eigen::MatrixXd b(rest, features.rows() + 1);
  b.leftCols(features.rows()) = features.rightCols(rest).transpose();
  b.col(features.rows()).setOnes();
  const Eigen::MatrixXd held = targets.rightCols(rest).transpose();
  const double sse = (b * w - held).squaredNorm();
  const double sst = (held.rowwise() - held.colwise().mean()).squaredNorm();
  return sst > 0 ? sse / sst : 0.0;
}

}  // namespace

std::vector<ProbeScore> probe_first_layer(const Transformer<double>& model, const Task& task,
                                          Index sequences, std::uint64_t seed) {
  const ModelConfig& c = model.config();
  const Index t = c.tokens;
  const Index s = t + 1;
  if (c.layers() < 2) {
    throw InputError("--probe needs at least two layers: it reads the input tokens' state after "
                     "layer 1, which a one-layer model computes only at the readout");
  }
  if (t < 2) throw InputError("--probe needs T >= 2 (a largest and a second largest position)");
  if (sequences < 8) throw InputError("--probe needs at least 8 sequences");
  const Eigen::MatrixXd x = draw_inputs(task, sequences, seed);
  Workspace<double> ws(c, sequences);
  Eigen::VectorXd predictions(sequences);
  ws.forward(model, x.data(), sequences, predictions.data());
  const ConstMatrixMap<double> state = ws.state_entering(1, sequences);
  const Index heads = c.heads.front();
  const double* weights = ws.attention_weights(0);

  std::vector<ProbeScore> out;
  for (Index h = 0; h < heads; ++h) {
    Eigen::MatrixXd features(c.embedding, sequences * t);
    Eigen::MatrixXd largest(c.token_dim, sequences * t);
    Eigen::MatrixXd second(c.token_dim, sequences * t);
    for (Index b = 0; b < sequences; ++b) {
      // T x S, column q: the weights of query position q over the keys, the input tokens.
      const ConstMatrixMap<double> p(weights + (b * heads + h) * t * s, t, s);
      for (Index q = 0; q < t; ++q) {
        Index first = -1;
        Index next = -1;
        for (Index k = 0; k < t; ++k) {
          if (first < 0 || p(k, q) > p(first, q)) {
            next = first;
            first = k;
          } else if (next < 0 || p(k, q) > p(next, q)) {
            next = k;
          }
        }
        const Index col = b * t + q;
        features.col(col) = state.col(b * s + q);
        largest.col(col) = x.col(b * t + first);
        second.col(col) = x.col(b * t + next);
      }
    }
    out.push_back({h, probe_nmse(features, largest), probe_nmse(features, second)});
  }
  return out;
}

Eigen::MatrixXd readout_attention(const Transformer<double>& model, const Task& task,
                                  Index sequences, std::uint64_t seed, Index layer, Index head) {
  const ModelConfig& c = model.config();
  if (layer < 0 || layer >= c.layers()) {
    throw InputError("attention: layer " + std::to_string(layer + 1) + " is not in 1.." +
                     std::to_string(c.layers()));
  }
  const Index heads = c.heads[static_cast<std::size_t>(layer)];
  if (head < 0 || head >= heads) {
    throw InputError("attention: head " + std::to_string(head + 1) + " is not in 1.." +
                     std::to_string(heads) + " of layer " + std::to_string(layer + 1));
  }
  const Index t = c.tokens;
  const Index queries = layer + 1 < c.layers() ? t + 1 : 1;
  const Eigen::MatrixXd x = draw_inputs(task, sequences, seed);
  Workspace<double> ws(c, sequences);
  Eigen::VectorXd predictions(sequences);
  ws.forward(model, x.data(), sequences, predictions.data());
  Eigen::MatrixXd out(sequences, t);
  for (Index b = 0; b < sequences; ++b) {
    const ConstMatrixMap<double> p(ws.attention_weights(layer) + (b * heads + head) * t * queries,
                                   t, queries);
    out.row(b) = p.col(queries - 1).transpose();  // the readout token queries last
  }
  return out;
}

Transformer<double> model_from_checkpoint(const ModelConfig& config,
                                          const std::filesystem::path& checkpoint) {
  const Checkpoint ck = load_checkpoint(checkpoint);
  Transformer<double> model(config);
  const std::size_t size = model.parameters().size();
  const std::size_t bytes = static_cast<std::size_t>(ck.scalar_bytes);
  if ((bytes != 4 && bytes != 8) || ck.parameters.size() != size * bytes) {
    throw InputError(SourceLocation{checkpoint.string()},
                     "the checkpoint's parameters do not fit this configuration");
  }
  for (std::size_t i = 0; i < size; ++i) {
    if (bytes == 4) {
      float v = 0;
      std::memcpy(&v, ck.parameters.data() + i * 4, 4);
      model.parameters()[i] = v;
    } else {
      std::memcpy(&model.parameters()[i], ck.parameters.data() + i * 8, 8);
    }
  }
  return model;
}

Transformer<double> initial_model(const ModelConfig& config, std::uint64_t run_seed) {
  Transformer<double> model(config);
  model.initialize(initialization_seed(run_seed));
  return model;
}

}  // namespace infoflow::numeric
