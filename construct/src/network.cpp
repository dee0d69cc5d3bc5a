#include "network.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace infoflow::construct::detail {

Network::Network(numeric::ModelConfig config, double beta)
    : model_(std::move(config)), beta_(beta) {
  const numeric::ModelConfig& c = model_.config();
  holds_.assign(static_cast<std::size_t>(c.embedding), "");
  holds_[kInputFlag] = "1 at the input tokens";
  holds_[kReadoutFlag] = "1 at the readout token";
  for (long j = 0; j < c.token_dim; ++j) holds_[static_cast<std::size_t>(kToken + j)] = "x[t]";
  units_.assign(static_cast<std::size_t>(c.layers() + 2), 0);
  model_.tensor("embed.readout_token")(kReadoutFlag, 0) = 1;
  if (c.encoder == numeric::Encoder::kLinear) {
    // x into its coordinates, the input flag as the bias.
    numeric::MatrixMap<double> embed = model_.tensor("embed.weight");
    for (long j = 0; j < c.token_dim; ++j) embed(kToken + j, j) = 1;
    model_.tensor("embed.bias")(kInputFlag, 0) = 1;
    return;
  }
  // The MLP encoder writes what the linear one does: x through relu(x) - relu(-x), exactly, and
  // the input flag as its output bias; the features asked of it take the units after these.
  const bool positions = c.positional == numeric::PositionalEncoding::kLearned;
  const long fixed = 2 * c.token_dim + (positions ? c.tokens : 0);
  if (c.encoder_hidden() < fixed) {
    throw Failure(Shortfall::kFfnWidth, "the encoder", fmt::format("the encoder passes x through 2 d = {} units{} before any "
                                       "feature: width {} (use --encoder-width >= {})",
                                       2 * c.token_dim, positions ? " and writes positions from T" : "",
                                       c.encoder_hidden(), fixed));
  }
  model_.tensor("embed.b2")(kInputFlag, 0) = 1;
  for (long j = 0; j < c.token_dim; ++j) {
    for (const double sign : {1.0, -1.0}) {
      Form pre = zero();
      pre(kToken + j) = sign;
      Eigen::VectorXd out = Eigen::VectorXd::Zero(width());
      out(kToken + j) = sign;
      add_unit(kEncoder, pre, 0, out);
    }
  }
  if (!positions) return;
  // The position vector's first entry is t; relu(t - k) for k = 0..T-1 span every function of
  // t on 1..T (a triangular basis), so each coordinate mark_position writes costs no unit.
  for (long t = 1; t <= c.tokens; ++t) model_.tensor("embed.position")(0, t - 1) = static_cast<double>(t);
  numeric::MatrixMap<double> u = model_.tensor("embed.w1_position");
  numeric::MatrixMap<double> b1 = model_.tensor("embed.b1");
  for (long k = 0; k < c.tokens; ++k) {
    const long unit = units_[0]++;
    u(unit, 0) = 1;
    b1(unit, 0) = -static_cast<double>(k);
    position_units_.push_back(unit);
  }
}

Form Network::unit(long coordinate) const {
  Form f = zero();
  f(coordinate) = 1;
  return f;
}

long Network::allocate(const std::string& holds, const std::string& step) {
  for (std::size_t i = 0; i < holds_.size(); ++i) {
    if (holds_[i].empty()) {
      holds_[i] = holds;
      return static_cast<long>(i);
    }
  }
  throw Failure(Shortfall::kEmbedding, step, fmt::format("{}: no room in the stream: all E = {} coordinates are "
                                         "in use (a larger E)",
                                         step, holds_.size()));
}

long Network::free() const {
  return static_cast<long>(std::count(holds_.begin(), holds_.end(), std::string()));
}

void Network::release(long coordinate) { holds_.at(static_cast<std::size_t>(coordinate)).clear(); }

std::vector<StreamSlot> Network::layout() const {
  std::vector<StreamSlot> out;
  for (std::size_t i = 0; i < holds_.size(); ++i) {
    if (holds_[i].empty()) continue;
    if (!out.empty() && out.back().holds == holds_[i] &&
        out.back().first + out.back().width == static_cast<long>(i)) {
      ++out.back().width;
    } else {
      out.push_back(StreamSlot{static_cast<long>(i), 1, holds_[i]});
    }
  }
  return out;
}

void Network::set_head(long layer, long head, const Role& inputs, const Role& readout,
                       const std::string& step) {
  const numeric::ModelConfig& c = model_.config();
  const long n = c.head_dim_of(layer);
  // The readout token is never a key, so a role whose candidates have no score of their own
  // needs no key dimension beyond its query-key pairs.
  const auto scored = [](const Role& role) { return role.score.cwiseAbs().maxCoeff() > 0; };
  long keys = 0;
  long values = 0;
  for (const Role* role : {&inputs, &readout}) {
    if (!role->used) continue;
    keys += (scored(*role) ? 1 : 0) + static_cast<long>(role->key.size());
    values += static_cast<long>(role->values.size());
  }
  if (keys > n || values > n) {
    throw Failure(Shortfall::kHeadWidth, step,
                  fmt::format("{}: head {} of layer {} needs {} key and {} value dimensions (one "
                              "key dimension a role for the candidate's own score, where it has "
                              "one), n = {}",
                              step, head + 1, layer + 1, keys, values, n),
                  std::max(keys, values));
  }
  const std::string p = "layer" + std::to_string(layer + 1) + ".attn.";
  numeric::MatrixMap<double> q = model_.tensor(p + "q");
  numeric::MatrixMap<double> k = model_.tensor(p + "k");
  numeric::MatrixMap<double> v = model_.tensor(p + "v");
  numeric::MatrixMap<double> o = model_.tensor(p + "o");
  long row = head * n;
  long value_row = head * n;
  for (const Class at : {Class::kInputs, Class::kReadout}) {
    const Role& role = at == Class::kInputs ? inputs : readout;
    if (!role.used) continue;
    if (scored(role)) {
      // beta score(candidate), at this class's tokens only.
      q(row, flag(at)) = beta_;
      k.row(row) = role.score.transpose();
      ++row;
    }
    for (std::size_t j = 0; j < role.key.size(); ++j, ++row) {
      q.row(row) = beta_ * role.query[j].transpose();
      k.row(row) = role.key[j].transpose();
    }
    for (std::size_t j = 0; j < role.values.size(); ++j, ++value_row) {
      v.row(value_row) = role.values[j].transpose();
      o(role.into[j], value_row) = 1;
    }
  }
}

void Network::mark_position(long coordinate, long position) {
  const numeric::ModelConfig& c = model_.config();
  if (c.encoder == numeric::Encoder::kLinear) {
    model_.tensor("embed.position")(coordinate, position - 1) = 1;
    return;
  }
  auto [it, fresh] = marks_.emplace(coordinate, Eigen::VectorXd::Zero(c.tokens));
  it->second(position - 1) = 1;
  // m(t) = sum_k w_k relu(t - k): w_k is m's second difference at k (m(0) = m(-1) = 0), exact.
  const Eigen::VectorXd& m = it->second;
  auto at = [&](long t) { return t >= 1 ? m(t - 1) : 0.0; };
  numeric::MatrixMap<double> w2 = model_.tensor("embed.w2");
  for (long k = 0; k < c.tokens; ++k)
    w2(coordinate, position_units_[static_cast<std::size_t>(k)]) = at(k + 1) - 2 * at(k) + at(k - 1);
}

void Network::add_unit(long layer, const Form& pre, double bias, const Eigen::VectorXd& out) {
  const numeric::ModelConfig& c = model_.config();
  long& used = units_.at(static_cast<std::size_t>(layer + 1));
  if (layer == kEncoder) {
    if (used >= c.encoder_hidden()) throw std::logic_error("Network::add_unit(): past the encoder's width");
    // It runs at the input tokens only, before any stream: it reads x, and the flag is 1 there.
    for (long i = 0; i < pre.size(); ++i) {
      if (pre(i) != 0 && i != kInputFlag && (i < kToken || i >= kToken + c.token_dim))
        throw std::logic_error("Network::add_unit(): the encoder reads x only");
    }
    model_.tensor("embed.w1").row(used) = pre.segment(kToken, c.token_dim).transpose();
    model_.tensor("embed.b1")(used, 0) = bias + pre(kInputFlag);
    model_.tensor("embed.w2").col(used) = out;
    ++used;
    return;
  }
  const bool readout = layer == c.layers();
  const long width = readout ? c.readout_width : c.ffn_width;
  if (used >= width) throw std::logic_error("Network::add_unit(): past the width budgeted");
  const std::string p = readout ? "readout." : "layer" + std::to_string(layer + 1) + ".ffn.";
  model_.tensor(p + "w1").row(used) = pre.transpose();
  model_.tensor(p + "b1")(used, 0) = bias;
  if (readout) {
    model_.tensor(p + "w2")(0, used) = out(0);
  } else {
    model_.tensor(p + "w2").col(used) = out;
  }
  ++used;
}

void Network::add_constant(long layer, long into, double c) {
  if (layer == kEncoder) {
    model_.tensor("embed.b2")(into, 0) += c;
  } else {
    model_.tensor("readout.b2")(0, 0) += c;
  }
}

}  // namespace infoflow::construct::detail
