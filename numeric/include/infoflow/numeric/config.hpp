#ifndef INFOFLOW_NUMERIC_CONFIG_HPP_
#define INFOFLOW_NUMERIC_CONFIG_HPP_

/// \file
/// The model class of docs/theory.md, section 3, as a configuration, and the layout of its
/// parameters in one flat buffer (parameters, gradients and optimizer moments share it).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace infoflow::numeric {

using Index = std::ptrdiff_t;

enum class Activation { kGelu, kRelu };
enum class PositionalEncoding { kNone, kLearned, kSinusoidal };

std::string_view to_string(Activation a);
std::string_view to_string(PositionalEncoding p);
/// Parse "gelu"/"relu" and "none"/"learned"/"sinusoidal"; throw InputError otherwise.
Activation parse_activation(std::string_view text);
PositionalEncoding parse_positional_encoding(std::string_view text);

/// A Transformer with T input tokens and a trainable readout token at position T+1.
struct ModelConfig {
  Index tokens = 8;                ///< T
  Index token_dim = 4;             ///< d
  Index embedding = 16;            ///< E
  std::vector<Index> heads{2, 2};  ///< h_l, one entry per layer (L = heads.size())
  Index head_dim = 0;              ///< n; 0 means n = E / h_l in each layer
  Index ffn_width = 64;            ///< W, the token-wise FFN's hidden width
  Index readout_width = 64;        ///< hidden width of the readout MLP
  Activation activation = Activation::kGelu;
  PositionalEncoding positional = PositionalEncoding::kNone;
  bool pre_layer_norm = false;
  double attention_scale = 0;  ///< 0 means 1/sqrt(n)

  /// Throws InputError naming the first invalid field.
  void validate() const;
  [[nodiscard]] Index layers() const { return static_cast<Index>(heads.size()); }
  [[nodiscard]] Index sequence() const { return tokens + 1; }  ///< S = T + 1
  [[nodiscard]] Index head_dim_of(Index layer) const;
  [[nodiscard]] double scale_of(Index layer) const;
  /// "(3,3)"
  [[nodiscard]] std::string heads_string() const;
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
