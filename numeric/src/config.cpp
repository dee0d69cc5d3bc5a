#include "infoflow/numeric/config.hpp"

#include <cmath>
#include <stdexcept>

#include "infoflow/core/error.hpp"
#include "infoflow/core/limits.hpp"

namespace infoflow::numeric {

std::string_view to_string(Activation a) {
  return a == Activation::kGelu ? "gelu" : "relu";
}

Activation parse_activation(std::string_view text) {
  if (text == "gelu") return Activation::kGelu;
  if (text == "relu") return Activation::kRelu;
  throw InputError("unknown activation '" + std::string(text) + "' (expected gelu or relu)");
}

std::string_view to_string(Encoder e) {
  return e == Encoder::kLinear ? "linear" : "mlp";
}

Encoder parse_encoder(std::string_view text) {
  if (text == "linear") return Encoder::kLinear;
  if (text == "mlp") return Encoder::kMlp;
  throw InputError("unknown encoder '" + std::string(text) + "' (expected linear or mlp)");
}

void ModelConfig::validate() const {
  in_range(tokens, 1, limits::kTokens, "T");
  Architecture::validate();
  in_range(ffn_width, 1, limits::kWidth, "the FFN width");
  in_range(readout_width, 1, limits::kWidth, "the readout width");
  in_range(encoder_width, 0, limits::kWidth, "the encoder width (0: the FFN width)");
  if (!(attention_scale >= 0 && std::isfinite(attention_scale))) {
    throw InputError("the attention scale must be finite and positive (0 for 1/sqrt(n))");
  }
}

double ModelConfig::scale_of(Index layer) const {
  return attention_scale > 0 ? attention_scale
                             : 1.0 / std::sqrt(static_cast<double>(head_dim_of(layer)));
}

ParameterLayout::ParameterLayout(const ModelConfig& config) {
  const Index e = config.embedding;
  ModelTensors& ix = index_;
  const Index d = config.token_dim;
  if (config.encoder == Encoder::kLinear) {
    ix.embed_weight = add("embed.weight", e, d, ParameterGroup::kEncoder, true);
    ix.embed_bias = add("embed.bias", e, 1, ParameterGroup::kEncoder, false);
  } else {
    const Index w = config.encoder_hidden();
    ix.embed_w1 = add("embed.w1", w, d, ParameterGroup::kEncoder, true);
    if (config.encodes_positions()) {
      // The position vector's columns of W1 [x(t); p(t)], kept apart: p(t) is the same in
      // every sequence, so U p is computed once a batch.
      ix.embed_w1_position = add("embed.w1_position", w, e, ParameterGroup::kEncoder, true);
    }
    ix.embed_b1 = add("embed.b1", w, 1, ParameterGroup::kEncoder, false);
    ix.embed_w2 = add("embed.w2", e, w, ParameterGroup::kEncoder, true);
    ix.embed_b2 = add("embed.b2", e, 1, ParameterGroup::kEncoder, false);
  }
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
