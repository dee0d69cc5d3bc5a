#include "infoflow/numeric/config.hpp"

#include <cmath>
#include <stdexcept>

#include "infoflow/core/error.hpp"
#include "infoflow/core/limits.hpp"

namespace infoflow::numeric {

std::string_view to_string(Activation a) {
  return a == Activation::kGelu ? "gelu" : "relu";
}

std::string_view to_string(PositionalEncoding p) {
  switch (p) {
    case PositionalEncoding::kNone:
      return "none";
    case PositionalEncoding::kLearned:
      return "learned";
    case PositionalEncoding::kSinusoidal:
      return "sinusoidal";
  }
  return "none";
}

Activation parse_activation(std::string_view text) {
  if (text == "gelu") return Activation::kGelu;
  if (text == "relu") return Activation::kRelu;
  throw InputError("unknown activation '" + std::string(text) + "' (expected gelu or relu)");
}

PositionalEncoding parse_positional_encoding(std::string_view text) {
  if (text == "none" || text == "off") return PositionalEncoding::kNone;  // off: as derive prints
  if (text == "learned") return PositionalEncoding::kLearned;
  if (text == "sinusoidal") return PositionalEncoding::kSinusoidal;
  throw InputError("unknown positional encoding '" + std::string(text) +
                   "' (expected none or off, learned or sinusoidal)");
}

namespace {
void require(bool ok, const std::string& message) {
  if (!ok) throw InputError(message);
}
}  // namespace

void ModelConfig::validate() const {
  const auto in_range = [](Index value, Index low, Index high, const std::string& what) {
    require(value >= low && value <= high, what + " must be between " + std::to_string(low) +
                                               " and " + std::to_string(high) + " (got " +
                                               std::to_string(value) + ")");
  };
  in_range(tokens, 1, limits::kTokens, "T");
  in_range(token_dim, 1, limits::kTokenDim, "d");
  in_range(embedding, 1, limits::kWidth, "E");
  require(!heads.empty(), "at least one layer of heads is needed");
  in_range(static_cast<Index>(heads.size()), 1, limits::kLayers, "the number of layers L");
  in_range(head_dim, 0, limits::kWidth, "the head dimension n (0: E / h)");
  for (std::size_t l = 0; l < heads.size(); ++l) {
    const std::string layer = "layer " + std::to_string(l + 1);
    in_range(heads[l], 1, limits::kHeads, layer + "'s head count");
    require(head_dim > 0 || embedding % heads[l] == 0,
            layer + ": " + std::to_string(heads[l]) + " heads do not divide E = " +
                std::to_string(embedding) + " (set the head dimension n to fix it)");
  }
  in_range(ffn_width, 1, limits::kWidth, "the FFN width");
  in_range(readout_width, 1, limits::kWidth, "the readout width");
  require(attention_scale >= 0 && std::isfinite(attention_scale),
          "the attention scale must be finite and positive (0 for 1/sqrt(n))");
}

Index ModelConfig::head_dim_of(Index layer) const {
  return head_dim > 0 ? head_dim : embedding / heads[static_cast<std::size_t>(layer)];
}

double ModelConfig::scale_of(Index layer) const {
  return attention_scale > 0 ? attention_scale
                             : 1.0 / std::sqrt(static_cast<double>(head_dim_of(layer)));
}

std::string ModelConfig::heads_string() const {
  std::string out = "(";
  for (std::size_t l = 0; l < heads.size(); ++l) {
    if (l > 0) out += ",";
    out += std::to_string(heads[l]);
  }
  return out + ")";
}

ParameterLayout::ParameterLayout(const ModelConfig& config) {
  const Index e = config.embedding;
  ModelTensors& ix = index_;
  ix.embed_weight = add("embed.weight", e, config.token_dim, ParameterGroup::kEncoder, true);
  ix.embed_bias = add("embed.bias", e, 1, ParameterGroup::kEncoder, false);
  if (config.positional == PositionalEncoding::kLearned) {
    ix.embed_position = add("embed.position", e, config.tokens, ParameterGroup::kEncoder, false);
  }
  ix.embed_readout_token = add("embed.readout_token", e, 1, ParameterGroup::kEncoder, false);
  for (Index l = 0; l < config.layers(); ++l) {
    const std::string p = "layer" + std::to_string(l + 1) + ".";
    const Index hn = config.heads[static_cast<std::size_t>(l)] * config.head_dim_of(l);
    LayerTensors lt;
    if (config.pre_layer_norm) {
      lt.ln1_gain = add(p + "ln1.gain", e, 1, ParameterGroup::kNorm, false);
      lt.ln1_bias = add(p + "ln1.bias", e, 1, ParameterGroup::kNorm, false);
    }
    lt.attn_q = add(p + "attn.q", hn, e, ParameterGroup::kAttention, true);
    lt.attn_k = add(p + "attn.k", hn, e, ParameterGroup::kAttention, true);
    lt.attn_v = add(p + "attn.v", hn, e, ParameterGroup::kAttention, true);
    lt.attn_o = add(p + "attn.o", e, hn, ParameterGroup::kAttention, true);
    lt.attn_o_bias = add(p + "attn.o_bias", e, 1, ParameterGroup::kAttention, false);
    if (config.pre_layer_norm) {
      lt.ln2_gain = add(p + "ln2.gain", e, 1, ParameterGroup::kNorm, false);
      lt.ln2_bias = add(p + "ln2.bias", e, 1, ParameterGroup::kNorm, false);
    }
    lt.ffn_w1 = add(p + "ffn.w1", config.ffn_width, e, ParameterGroup::kFfn, true);
    lt.ffn_b1 = add(p + "ffn.b1", config.ffn_width, 1, ParameterGroup::kFfn, false);
    lt.ffn_w2 = add(p + "ffn.w2", e, config.ffn_width, ParameterGroup::kFfn, true);
    lt.ffn_b2 = add(p + "ffn.b2", e, 1, ParameterGroup::kFfn, false);
    ix.layers.push_back(lt);
  }
  if (config.pre_layer_norm) {
    ix.final_ln_gain = add("final_ln.gain", e, 1, ParameterGroup::kNorm, false);
    ix.final_ln_bias = add("final_ln.bias", e, 1, ParameterGroup::kNorm, false);
  }
  ix.readout_w1 = add("readout.w1", config.readout_width, e, ParameterGroup::kReadout, true);
  ix.readout_b1 = add("readout.b1", config.readout_width, 1, ParameterGroup::kReadout, false);
  ix.readout_w2 = add("readout.w2", 1, config.readout_width, ParameterGroup::kReadout, true);
  ix.readout_b2 = add("readout.b2", 1, 1, ParameterGroup::kReadout, false);
}

int ParameterLayout::add(std::string name, Index rows, Index cols, ParameterGroup group,
                         bool decay) {
  tensors_.push_back(TensorInfo{std::move(name), rows, cols, size_, group, decay});
  size_ += rows * cols;
  return static_cast<int>(tensors_.size()) - 1;
}

const TensorInfo& ParameterLayout::find(std::string_view name) const {
  for (const TensorInfo& t : tensors_) {
    if (t.name == name) return t;
  }
  throw std::out_of_range("ParameterLayout::find(): no tensor named " + std::string(name));
}

ParameterCount ParameterLayout::count() const {
  ParameterCount c;
  for (const TensorInfo& t : tensors_) {
    c.total += t.size();
    switch (t.group) {
      case ParameterGroup::kEncoder:
        c.encoder += t.size();
        break;
      case ParameterGroup::kAttention:
        c.attention += t.size();
        break;
      case ParameterGroup::kFfn:
        c.ffn += t.size();
        break;
      case ParameterGroup::kNorm:
        c.norm += t.size();
        break;
      case ParameterGroup::kReadout:
        c.readout += t.size();
        break;
    }
  }
  return c;
}

}  // namespace infoflow::numeric
