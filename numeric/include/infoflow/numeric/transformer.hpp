#ifndef INFOFLOW_NUMERIC_TRANSFORMER_HPP_
#define INFOFLOW_NUMERIC_TRANSFORMER_HPP_

/// \file
/// The Transformer of docs/theory.md, section 3, with a hand-written backward pass.
///
/// Layout: a batch of `count` sequences is a column-major matrix with one column per position,
/// sequence after sequence; S = T + 1 positions per sequence, the readout token last. The
/// readout token queries in every layer and is never a key: keys and values range over the T
/// input tokens (docs/theory.md, section 2). The parameters, their gradients and the
/// activations each live in one flat buffer.
///
/// The last layer computes only what reaches the readout: its keys and values at every input
/// token, its queries, attention output and FFN at the readout token alone. The result is
/// exactly that of the full model (the other positions of the last layer are never read).

#include <cstdint>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include "infoflow/numeric/config.hpp"

namespace infoflow::numeric {

template <class Scalar>
using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
/// A flat buffer aligned as Eigen's own allocations are. Vectorised reductions group their
/// sums by address alignment, so an unaligned buffer would make results depend on where the
/// allocator put it (it moves with, for example, the length of the command line).
template <class Scalar>
using AlignedVector = std::vector<Scalar, Eigen::aligned_allocator<Scalar>>;
template <class Scalar>
using MatrixMap = Eigen::Map<Matrix<Scalar>>;
template <class Scalar>
using ConstMatrixMap = Eigen::Map<const Matrix<Scalar>>;

/// Parameters of a model, in the order of its ParameterLayout.
template <class Scalar>
class Transformer {
 public:
  /// Validates the configuration (InputError) and zeroes the parameters.
  explicit Transformer(ModelConfig config);

  /// GPT-2 style start: weights N(0, 1/fan_in), the residual projections (attention output,
  /// FFN output) scaled down by sqrt(2L), biases 0, LayerNorm gains 1, the readout token
  /// N(0, 1) and learned positions N(0, 0.1^2). Deterministic in `seed`.
  void initialize(std::uint64_t seed);

  [[nodiscard]] const ModelConfig& config() const { return config_; }
  [[nodiscard]] const ParameterLayout& layout() const { return layout_; }
  [[nodiscard]] AlignedVector<Scalar>& parameters() { return parameters_; }
  [[nodiscard]] const AlignedVector<Scalar>& parameters() const { return parameters_; }
  /// One tensor of the flat buffer, as a rows x cols matrix.
  [[nodiscard]] MatrixMap<Scalar> tensor(std::string_view name);
  [[nodiscard]] ConstMatrixMap<Scalar> tensor(std::string_view name) const;
  /// The same, for a buffer of the same layout (a gradient, an optimizer moment).
  [[nodiscard]] MatrixMap<Scalar> tensor_in(Scalar* buffer, const TensorInfo& info) const;
  /// Fixed sinusoidal encoding E x T (empty unless the configuration asks for it).
  [[nodiscard]] const Matrix<Scalar>& sinusoid() const { return sinusoid_; }

 private:
  ModelConfig config_;
  ParameterLayout layout_;
  AlignedVector<Scalar> parameters_;
  Matrix<Scalar> sinusoid_;
};

/// The activations of up to `capacity` sequences, and the scratch of their backward pass.
/// One per thread; reused across steps, so a step allocates nothing.
template <class Scalar>
class Workspace {
 public:
  Workspace(const ModelConfig& config, Index capacity);
  /// The scalars a workspace of `capacity` sequences holds, computed without allocating them.
  [[nodiscard]] static Index size_for(const ModelConfig& config, Index capacity);

  [[nodiscard]] Index capacity() const { return capacity_; }

  /// inputs: d x (count*T), one column per input token, sequence after sequence.
  /// Writes `count` predictions. 1 <= count <= capacity.
  void forward(const Transformer<Scalar>& model, const Scalar* inputs, Index count,
               Scalar* predictions);

  /// After forward(): adds to `gradient` (the layout's size) the gradient of
  /// sum_b output_gradient[b] * prediction[b] with respect to every parameter.
  void backward(const Transformer<Scalar>& model, const Scalar* output_gradient, Scalar* gradient);

  /// After forward() of `count` sequences, for inspection (numeric/inspect.hpp): the state
  /// entering `layer`, E x (count*S), and the attention weights of `layer`, T x Sq per
  /// (sequence, head), sequence-major: one row per key (the input tokens), one column per
  /// query (Sq = S for a full layer, 1 for the last).
  [[nodiscard]] ConstMatrixMap<Scalar> state_entering(Index layer, Index count) const;
  /// After forward(): the readout token's state entering the readout MLP, E x count.
  [[nodiscard]] ConstMatrixMap<Scalar> readout_state(Index count) const;
  [[nodiscard]] const Scalar* attention_weights(Index layer) const;

 private:
  Workspace(const ModelConfig& config, Index capacity, bool allocate);

  struct Slot {
    Index offset = 0;
    Index rows = 0;
    Index cols = 0;  ///< at capacity
  };
  struct LayerSlots {
    Slot input;       ///< z entering the layer, E x N
    Slot normed1;     ///< LN1(z), E x N (pre-LN only)
    Slot stats1;      ///< mean and 1/std per column, 2 x N (pre-LN only)
    Slot query_in;    ///< normed input at the readout, E x count (last layer only)
    Slot projections;  ///< K, V and Q stacked in rows, 3hn x N (K and V only in the last layer)
    Slot q;            ///< the last layer's queries, hn x count
    Slot probs;       ///< softmax weights, S x Sq per (sequence, head)
    Slot context;     ///< hn x Nq
    Slot mid;         ///< z after attention, E x Nq
    Slot normed2;     ///< LN2(mid), E x Nq (pre-LN only)
    Slot stats2;      ///< 2 x Nq (pre-LN only)
    Slot hidden_pre;  ///< W x Nq
    Slot hidden;      ///< W x Nq
  };

  MatrixMap<Scalar> map(const Slot& slot, Index cols);
  /// The MLP encoder: emb (E x count*T) = W2 relu(W1 x + U p(t) + b1) + b2 of x (d x count*T).
  void encoder_forward(const Transformer<Scalar>& model, ConstMatrixMap<Scalar> x, Index count,
                       MatrixMap<Scalar> emb);
  /// After encoder_forward: adds to `gradient` that of its parameters (and of the learned
  /// positions) for the output gradient demb (E x count*T).
  void encoder_backward(const Transformer<Scalar>& model, ConstMatrixMap<Scalar> demb,
                        Scalar* gradient);
  Slot reserve(Index rows, Index cols);
  [[nodiscard]] bool full(Index layer) const { return layer + 1 < config_.layers(); }

  ModelConfig config_;
  Index capacity_;
  Index count_ = 0;
  const Scalar* inputs_ = nullptr;
  std::vector<LayerSlots> layers_;
  Slot encoder_pre_, encoder_hidden_;  ///< the MLP encoder's, W_enc x (count*T)
  Slot encoder_position_;              ///< U p(t), then its gradient summed over sequences: W_enc x T
  Slot embedded_, readout_in_, readout_normed_, readout_stats_, readout_pre_, readout_hidden_;
  Slot stacked_weights_, grad_stacked_weights_;  ///< W_k, W_v, W_q stacked as the projections
  Slot grad_a_, grad_b_, grad_c_, grad_hidden_, grad_projections_, grad_q_, grad_ctx_;
  Slot attention_scratch_;  ///< S x (S + n): a head's K^T or V^T, and its score gradient
  AlignedVector<Scalar> buffer_;
  Index size_ = 0;
};

extern template class Transformer<float>;
extern template class Transformer<double>;
extern template class Workspace<float>;
extern template class Workspace<double>;

}  // namespace infoflow::numeric

#endif  // INFOFLOW_NUMERIC_TRANSFORMER_HPP_
