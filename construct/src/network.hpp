#ifndef INFOFLOW_CONSTRUCT_NETWORK_HPP_
#define INFOFLOW_CONSTRUCT_NETWORK_HPP_

// The weights a construction writes (docs/constructions.md, "The network"): coordinates of the
// residual stream given out one by one, heads as query-key-value forms over the stream, and FFN
// units as gated ReLUs. Knows the numeric Transformer's layout, nothing of the engine.

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "infoflow/construct/construction.hpp"
#include "infoflow/numeric/transformer.hpp"

namespace infoflow::construct::detail {

/// A plan step that does not compile: whose rule is missing or what ran out, at which step.
struct Failure : std::runtime_error {
  Failure(Shortfall whose, std::string at_step, const std::string& what, long head_dim = 0)
      : std::runtime_error(what), shortfall(whose), step(std::move(at_step)), head_dim_needed(head_dim) {}
  Shortfall shortfall;
  std::string step;  ///< the step's label; "": the pass that failed names it
  long head_dim_needed = 0;  ///< kHeadWidth: the head dimension the step needs
};

/// The two token classes a head may act differently at.
enum class Class { kInputs = 0, kReadout = 1 };

/// A linear form over the stream (constants through the class's flag coordinate).
using Form = Eigen::VectorXd;

/// What one head does at one token class: argmax over the input tokens of
/// score(candidate) + sum_j query_j(holder) key_j(candidate), and the candidate's `values`
/// written to `into`. The readout token is never among the candidates: keys range over the
/// input tokens (docs/theory.md, section 2).
struct Role {
  bool used = false;
  bool only_means = false;  ///< holds uniform means only: further means share it (R6)
  Form score;               ///< the candidate's own part, against a constant query
  std::vector<Form> query;  ///< further query-key pairs; scaled by beta when written
  std::vector<Form> key;
  std::vector<Form> values;
  std::vector<long> into;   ///< a coordinate per value
};

class Network {
 public:
  /// The stream's coordinates 0 and 1 are the input and readout flags, then the token's d.
  static constexpr long kInputFlag = 0;
  static constexpr long kReadoutFlag = 1;
  static constexpr long kToken = 2;
  /// What keeps a token out of a softmax (masked candidates), in the score's
  /// units: beta times it is far below any score (exp(-1e6) is 0 in double), whatever beta.
  static constexpr double kPenalty = 1e3;
  /// The layer index of the MLP encoder (add_unit, units): the token-wise network before layer 1.
  static constexpr long kEncoder = -1;

  Network(numeric::ModelConfig config, double beta);

  [[nodiscard]] const numeric::ModelConfig& config() const { return model_.config(); }
  [[nodiscard]] numeric::Transformer<double>& model() { return model_; }
  [[nodiscard]] long width() const { return config().embedding; }
  [[nodiscard]] Form zero() const { return Form::Zero(width()); }
  [[nodiscard]] Form unit(long coordinate) const;
  [[nodiscard]] static long flag(Class c) { return c == Class::kInputs ? kInputFlag : kReadoutFlag; }

  /// A free coordinate, now holding `holds`; Failure(kEmbedding) when the stream is full.
  long allocate(const std::string& holds, const std::string& step);
  void release(long coordinate);
  [[nodiscard]] long free() const;  ///< coordinates not in use
  [[nodiscard]] std::vector<StreamSlot> layout() const;

  /// Head `head` (0-based) of `layer` (0-based) acting as `inputs` at the input tokens and as
  /// `readout` at the readout. Failure(kHeadWidth) when its key or value dimensions exceed n.
  void set_head(long layer, long head, const Role& inputs, const Role& readout,
                const std::string& step);

  /// The stream holds 1 in `coordinate` at input position `position` (1-based): how it holds
  /// positions, as indicators and one-hot codes. The linear encoder adds the learned position
  /// vector; the MLP encoder (which reads the position, not adds it) writes it from T units.
  void mark_position(long coordinate, long position);

  /// One hidden unit, relu(pre . z + bias), of the FFN after `layer` (added to the stream as
  /// `out`), of the readout MLP (layer = L: out(0) to the output) or of the MLP encoder (layer =
  /// kEncoder: out is the unit's share of the stream it writes, pre reads the token's x and the
  /// input flag of the stream as the linear encoder would write it).
  void add_unit(long layer, const Form& pre, double bias, const Eigen::VectorXd& out);
  [[nodiscard]] long units(long layer) const { return units_.at(static_cast<std::size_t>(layer + 1)); }
  /// A constant of the readout MLP's output (layer = L) or of the encoder's `into` (kEncoder):
  /// the output biases of the networks that run at one token class only.
  void add_constant(long layer, long into, double c);

 private:
  numeric::Transformer<double> model_;
  double beta_;
  std::vector<std::string> holds_;  ///< per coordinate; "" free
  std::vector<long> units_;         ///< the encoder's, then per layer, then the readout MLP's
  std::vector<long> position_units_;  ///< the MLP encoder's relu(t - k), k = 0..T-1
  /// Per coordinate written from the position: its value at positions 1..T (MLP encoder).
  std::map<long, Eigen::VectorXd> marks_;
};

}  // namespace infoflow::construct::detail

#endif  // INFOFLOW_CONSTRUCT_NETWORK_HPP_
