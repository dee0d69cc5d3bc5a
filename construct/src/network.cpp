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
  units_.assign(static_cast<std::size_t>(c.layers() + 1), 0);
  // The encoder: x into its coordinates, the input flag as the bias; the readout token its flag.
  numeric::MatrixMap<double> embed = model_.tensor("embed.weight");
  for (long j = 0; j < c.token_dim; ++j) embed(kToken + j, j) = 1;
  model_.tensor("embed.bias")(kInputFlag, 0) = 1;
  model_.tensor("embed.readout_token")(kReadoutFlag, 0) = 1;
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
  throw Failure("engine", fmt::format("{}: no room in the stream: all E = {} coordinates are "
                                      "in use",
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
    throw Failure("width",
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
  model_.tensor("embed.position")(coordinate, position - 1) = 1;
}

void Network::add_unit(long layer, const Form& pre, double bias, const Eigen::VectorXd& out) {
  const numeric::ModelConfig& c = model_.config();
  const bool readout = layer == c.layers();
  long& used = units_.at(static_cast<std::size_t>(layer));
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

void Network::add_output_constant(double c) { model_.tensor("readout.b2")(0, 0) += c; }

}  // namespace infoflow::construct::detail
