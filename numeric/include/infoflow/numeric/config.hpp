#ifndef INFOFLOW_NUMERIC_CONFIG_HPP_
#define INFOFLOW_NUMERIC_CONFIG_HPP_

/// \file
/// The model class of docs/theory.md, section 3, as a configuration, and the layout of its
/// parameters in one flat buffer (parameters, gradients and optimizer moments share it).

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "infoflow/core/architecture.hpp"

namespace infoflow::numeric {

using Index = std::ptrdiff_t;
static_assert(std::is_same_v<Index, long>, "the shape (core::Architecture) counts in long");

enum class Activation { kGelu, kRelu };
/// How a token enters the stream (docs/theory.md, section 2): a linear map, a sub-class, or the
/// papers' token-wise network P_phi(x(t), t), a ReLU MLP that receives the position as an input.
enum class Encoder { kLinear, kMlp };
using core::parse_positional_encoding;
using core::PositionalEncoding;
using core::to_string;

std::string_view to_string(Activation a);
/// Parse "gelu"/"relu"; throw InputError otherwise.
Activation parse_activation(std::string_view text);
std::string_view to_string(Encoder e);
/// Parse "linear"/"mlp"; throw InputError otherwise.
Encoder parse_encoder(std::string_view text);

/// A Transformer of the engine's shape (heads per layer, E, d, n, positional encoding) with T
/// input tokens and a trainable readout token at position T+1.
struct ModelConfig : core::Architecture {
  ModelConfig() : core::Architecture{{2, 2}} {}  // train's default (2,2); the engine's is (1,1)

  Index tokens = core::defaults::kTokens;  ///< T
  Index ffn_width = 64;      ///< W, the token-wise FFN's hidden width
  Index readout_width = 64;  ///< hidden width of the readout MLP
  /// The papers' class by default. kMlp: z(t) = W2 relu(W1 x(t) + U p(t) + b1) + b2, where p(t)
  /// is the position vector (learned or sinusoidal, E wide; none without positions), so that
  /// the encoder can form products of position and content such as e_t (kron) x(t).
  /// kLinear: z(t) = W x(t) + b + p(t), the position added after the map.
  Encoder encoder = Encoder::kMlp;
  Index encoder_width = 0;  ///< the MLP encoder's hidden width; 0: the FFN width W
  Activation activation = Activation::kGelu;
  bool pre_layer_norm = false;
  double attention_scale = 0;  ///< 0 means 1/sqrt(n)

  /// Throws InputError naming the first invalid field: T, then the shape
  /// (Architecture::validate, which this hides), then the widths and the scale.
  void validate() const;
  [[nodiscard]] Index sequence() const { return tokens + 1; }  ///< S = T + 1
  /// The MLP encoder's hidden width (0 for the linear encoder).
  [[nodiscard]] Index encoder_hidden() const {
    if (encoder == Encoder::kLinear) return 0;
    return encoder_width > 0 ? encoder_width : ffn_width;
  }
  [[nodiscard]] double scale_of(Index layer) const;
};

/// How the theory counts parameters: the encoder and the token-wise networks (FFN and readout
/// MLP) are M; attention and normalisation weights are reported apart.
enum class ParameterGroup { kEncoder, kAttention, kFfn, kNorm, kReadout };

struct TensorInfo {
  std::string name;  ///< e.g. "layer1.attn.q"
  Index rows = 0;
  Index cols = 0;
  Index offset = 0;  ///< into the flat buffer; column-major rows x cols
  ParameterGroup group = ParameterGroup::kEncoder;
  bool decay = false;  ///< weight decay applies (weight matrices only)
  [[nodiscard]] Index size() const { return rows * cols; }
};

struct ParameterCount {
  Index total = 0;
  Index encoder = 0;
  Index attention = 0;
  Index ffn = 0;
  Index norm = 0;
  Index readout = 0;
  /// M as the theory counts it: encoder + FFN + readout MLP.
  [[nodiscard]] Index theory() const { return encoder + ffn + readout; }
};

/// Where each tensor of a model is in ParameterLayout::tensors(), found once, so that the
/// forward and backward passes never look a tensor up by name; -1 for a tensor the
/// configuration does not have (positions without a learned encoding, LayerNorm without pre-LN).
struct LayerTensors {
  int ln1_gain = -1, ln1_bias = -1;
  int attn_q = -1, attn_k = -1, attn_v = -1, attn_o = -1, attn_o_bias = -1;
  int ln2_gain = -1, ln2_bias = -1;
  int ffn_w1 = -1, ffn_b1 = -1, ffn_w2 = -1, ffn_b2 = -1;
};
struct ModelTensors {
  int embed_weight = -1, embed_bias = -1, embed_position = -1, embed_readout_token = -1;
  /// The MLP encoder's layers (embed_weight and embed_bias are the linear encoder's); U, its
  /// first layer's weight on the position vector, is -1 without positions.
  int embed_w1 = -1, embed_b1 = -1, embed_w1_position = -1, embed_w2 = -1, embed_b2 = -1;
  int final_ln_gain = -1, final_ln_bias = -1;
  int readout_w1 = -1, readout_b1 = -1, readout_w2 = -1, readout_b2 = -1;
  std::vector<LayerTensors> layers;
};

/// The tensors of a model, in a fixed order, packed back to back.
class ParameterLayout {
 public:
  explicit ParameterLayout(const ModelConfig& config);
  [[nodiscard]] const std::vector<TensorInfo>& tensors() const { return tensors_; }
  [[nodiscard]] Index size() const { return size_; }
  /// Throws std::out_of_range for an unknown name.
  [[nodiscard]] const TensorInfo& find(std::string_view name) const;
  [[nodiscard]] ParameterCount count() const;
  [[nodiscard]] const ModelTensors& index() const { return index_; }

 private:
  /// Appends a tensor and returns its position in tensors().
  int add(std::string name, Index rows, Index cols, ParameterGroup group, bool decay);
  std::vector<TensorInfo> tensors_;
  ModelTensors index_;
  Index size_ = 0;
};

}  // namespace infoflow::numeric

#endif  // INFOFLOW_NUMERIC_CONFIG_HPP_
