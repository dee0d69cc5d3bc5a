#include "infoflow/numeric/transformer.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "infoflow/numeric/random.hpp"

#include "layers.hpp"

namespace infoflow::numeric {

namespace {
constexpr double kPositionStd = 0.1;

/// A block of rows of a stacked matrix (a projection's rows within the stacked projections).
template <class Scalar>
using Strided = Eigen::Map<Matrix<Scalar>, 0, Eigen::OuterStride<>>;

/// W_k, W_v and, where `w` has room for three, W_q, stacked in rows in that order.
template <class Scalar>
void stack_projection_weights(const Transformer<Scalar>& model, const LayerTensors& lt,
                              MatrixMap<Scalar> w) {
  const std::vector<TensorInfo>& tensors = model.layout().tensors();
  const int order[] = {lt.attn_k, lt.attn_v, lt.attn_q};
  Index row = 0;
  for (const int i : order) {
    if (row == w.rows()) break;
    const TensorInfo& info = tensors[static_cast<std::size_t>(i)];
    w.middleRows(row, info.rows) =
        ConstMatrixMap<Scalar>(model.parameters().data() + info.offset, info.rows, info.cols);
    row += info.rows;
  }
}

/// The position vectors p(1..T), E x T, or nullptr without positions.
template <class Scalar>
const Scalar* position_vectors(const Transformer<Scalar>& model) {
  const ModelTensors& ix = model.layout().index();
  switch (model.config().positional) {
    case PositionalEncoding::kLearned:
      return model.parameters().data() +
             model.layout().tensors()[static_cast<std::size_t>(ix.embed_position)].offset;
    case PositionalEncoding::kSinusoidal:
      return model.sinusoid().data();
    case PositionalEncoding::kNone:
      break;
  }
  return nullptr;
}

template <class Scalar>
Matrix<Scalar> sinusoidal_encoding(Index e, Index t) {
  // Vaswani et al.: even rows sin(p / 10000^(2i/E)), odd rows cos, positions p = 1..T.
  Matrix<Scalar> out(e, t);
  for (Index p = 0; p < t; ++p) {
    for (Index r = 0; r < e; ++r) {
      const double rate =
          std::pow(10000.0, -static_cast<double>(r - r % 2) / static_cast<double>(e));
      const double angle = static_cast<double>(p + 1) * rate;
      out(r, p) = static_cast<Scalar>(r % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  }
  return out;
}
}  // namespace

template <class Scalar>
Transformer<Scalar>::Transformer(ModelConfig config)
    : config_((config.validate(), std::move(config))),
      layout_(config_),
      parameters_(static_cast<std::size_t>(layout_.size()), Scalar(0)) {
  if (config_.positional == PositionalEncoding::kSinusoidal) {
    sinusoid_ = sinusoidal_encoding<Scalar>(config_.embedding, config_.tokens);
  }
}

template <class Scalar>
void Transformer<Scalar>::initialize(std::uint64_t seed) {
  Rng rng(seed);
  const double residual_scale = 1.0 / std::sqrt(2.0 * static_cast<double>(config_.layers()));
  for (const TensorInfo& t : layout_.tensors()) {
    MatrixMap<Scalar> m = tensor_in(parameters_.data(), t);
    const std::string& name = t.name;
    const bool gain = name.ends_with(".gain");
    double std = 0;
    if (t.decay) {
      std = 1.0 / std::sqrt(static_cast<double>(t.cols));
      if (name.ends_with("attn.o") || name.ends_with("ffn.w2")) std *= residual_scale;
    } else if (name == "embed.readout_token") {
      std = 1.0;
    } else if (name == "embed.position") {
      std = kPositionStd;
    }
    for (Index j = 0; j < m.cols(); ++j) {
      for (Index i = 0; i < m.rows(); ++i) {
        m(i, j) = gain ? Scalar(1) : static_cast<Scalar>(std * rng.normal());
      }
    }
  }
}

template <class Scalar>
MatrixMap<Scalar> Transformer<Scalar>::tensor(std::string_view name) {
  return tensor_in(parameters_.data(), layout_.find(name));
}

template <class Scalar>
ConstMatrixMap<Scalar> Transformer<Scalar>::tensor(std::string_view name) const {
  const TensorInfo& t = layout_.find(name);
  return ConstMatrixMap<Scalar>(parameters_.data() + t.offset, t.rows, t.cols);
}

template <class Scalar>
MatrixMap<Scalar> Transformer<Scalar>::tensor_in(Scalar* buffer, const TensorInfo& info) const {
  return MatrixMap<Scalar>(buffer + info.offset, info.rows, info.cols);
}

// ---------------------------------------------------------------------------------------------

template <class Scalar>
typename Workspace<Scalar>::Slot Workspace<Scalar>::reserve(Index rows, Index cols) {
  const Slot slot{size_, rows, cols};
  size_ += rows * cols;
  return slot;
}

template <class Scalar>
MatrixMap<Scalar> Workspace<Scalar>::map(const Slot& slot, Index cols) {
  return MatrixMap<Scalar>(buffer_.data() + slot.offset, slot.rows, cols);
}

template <class Scalar>
ConstMatrixMap<Scalar> Workspace<Scalar>::state_entering(Index layer, Index count) const {
  const Slot& slot = layers_.at(static_cast<std::size_t>(layer)).input;
  return ConstMatrixMap<Scalar>(buffer_.data() + slot.offset, slot.rows,
                                count * (config_.tokens + 1));
}

template <class Scalar>
ConstMatrixMap<Scalar> Workspace<Scalar>::readout_state(Index count) const {
  return ConstMatrixMap<Scalar>(buffer_.data() + readout_in_.offset, readout_in_.rows, count);
}

template <class Scalar>
const Scalar* Workspace<Scalar>::attention_weights(Index layer) const {
  return buffer_.data() + layers_.at(static_cast<std::size_t>(layer)).probs.offset;
}

template <class Scalar>
Workspace<Scalar>::Workspace(const ModelConfig& config, Index capacity)
    : Workspace(config, capacity, true) {}

template <class Scalar>
Index Workspace<Scalar>::size_for(const ModelConfig& config, Index capacity) {
  return Workspace(config, capacity, false).size_;
}

template <class Scalar>
Workspace<Scalar>::Workspace(const ModelConfig& config, Index capacity, bool allocate)
    : config_(config), capacity_(capacity) {
  config_.validate();
  const Index e = config_.embedding;
  const Index s = config_.sequence();
  const Index n_all = capacity * s;
  Index hn_max = 0;
  embedded_ = reserve(e, capacity * config_.tokens);
  const Index w_enc = config_.encoder_hidden();
  if (w_enc > 0) {
    encoder_pre_ = reserve(w_enc, capacity * config_.tokens);
    encoder_hidden_ = reserve(w_enc, capacity * config_.tokens);
    encoder_position_ = reserve(w_enc, config_.tokens);
  }
  for (Index l = 0; l < config_.layers(); ++l) {
    const Index hn = config_.heads[static_cast<std::size_t>(l)] * config_.head_dim_of(l);
    hn_max = std::max(hn_max, hn);
    const Index nq = full(l) ? n_all : capacity;
    const Index sq = full(l) ? s : 1;
    LayerSlots ls;
    ls.input = reserve(e, n_all);
    if (config_.pre_layer_norm) {
      ls.normed1 = reserve(e, n_all);
      ls.stats1 = reserve(2, n_all);
      ls.normed2 = reserve(e, nq);
      ls.stats2 = reserve(2, nq);
    }
    ls.projections = reserve((full(l) ? 3 : 2) * hn, n_all);
    if (!full(l)) {
      ls.query_in = reserve(e, capacity);
      ls.q = reserve(hn, capacity);
    }
    ls.probs = reserve(config_.tokens * sq, capacity * config_.heads[static_cast<std::size_t>(l)]);
    ls.context = reserve(hn, nq);
    ls.mid = reserve(e, nq);
    ls.hidden_pre = reserve(config_.ffn_width, nq);
    ls.hidden = reserve(config_.ffn_width, nq);
    layers_.push_back(ls);
  }
  readout_in_ = reserve(e, capacity);
  if (config_.pre_layer_norm) {
    readout_normed_ = reserve(e, capacity);
    readout_stats_ = reserve(2, capacity);
  }
  readout_pre_ = reserve(config_.readout_width, capacity);
  readout_hidden_ = reserve(config_.readout_width, capacity);
  grad_a_ = reserve(e, n_all);
  grad_b_ = reserve(e, n_all);
  grad_c_ = reserve(e, n_all);
  grad_hidden_ = reserve(std::max({config_.ffn_width, config_.readout_width, w_enc}), n_all);
  stacked_weights_ = reserve(3 * hn_max, e);
  grad_stacked_weights_ = reserve(3 * hn_max, e);
  grad_projections_ = reserve(3 * hn_max, n_all);
  grad_q_ = reserve(hn_max, capacity);
  grad_ctx_ = reserve(hn_max, n_all);
  attention_scratch_ = reserve(s, s + hn_max);
  if (allocate) buffer_.assign(static_cast<std::size_t>(size_), Scalar(0));
}

template <class Scalar>
void Workspace<Scalar>::encoder_forward(const Transformer<Scalar>& model,
                                        ConstMatrixMap<Scalar> x, Index count,
                                        MatrixMap<Scalar> emb) {
  const ModelConfig& c = config_;
  const Index t = c.tokens;
  const ModelTensors& ix = model.layout().index();
  auto p = [&](int i) {
    const TensorInfo& info = model.layout().tensors()[static_cast<std::size_t>(i)];
    return ConstMatrixMap<Scalar>(model.parameters().data() + info.offset, info.rows, info.cols);
  };
  MatrixMap<Scalar> pre = map(encoder_pre_, count * t);  // W_enc x count*T
  MatrixMap<Scalar> hid = map(encoder_hidden_, count * t);
  layers::linear_forward<Scalar>(p(ix.embed_w1), p(ix.embed_b1).data(), x, pre);
  if (const Scalar* pv = position_vectors(model)) {
    // W1 [x(t); p(t)] = W1_x x(t) + U p(t): U p, W_enc x T, once for all sequences.
    MatrixMap<Scalar> up = map(encoder_position_, t);
    up.noalias() = p(ix.embed_w1_position) * ConstMatrixMap<Scalar>(pv, c.embedding, t);
    for (Index b = 0; b < count; ++b) pre.middleCols(b * t, t) += up;
  }
  layers::activation_forward<Scalar>(Activation::kRelu, pre, hid);
  layers::linear_forward<Scalar>(p(ix.embed_w2), p(ix.embed_b2).data(), hid, emb);
}

template <class Scalar>
void Workspace<Scalar>::encoder_backward(const Transformer<Scalar>& model,
                                         ConstMatrixMap<Scalar> demb, Scalar* gradient) {
  const ModelConfig& c = config_;
  const Index t = c.tokens;
  const Index count = count_;
  const Index w = c.encoder_hidden();
  const ModelTensors& ix = model.layout().index();
  auto info = [&](int i) -> const TensorInfo& {
    return model.layout().tensors()[static_cast<std::size_t>(i)];
  };
  auto p = [&](int i) {
    return ConstMatrixMap<Scalar>(model.parameters().data() + info(i).offset, info(i).rows,
                                  info(i).cols);
  };
  auto g = [&](int i) { return model.tensor_in(gradient, info(i)); };
  auto graw = [&](int i) { return gradient + info(i).offset; };
  const MatrixMap<Scalar> pre = map(encoder_pre_, count * t);
  layers::linear_backward_params<Scalar>(map(encoder_hidden_, count * t), demb, g(ix.embed_w2),
                                         graw(ix.embed_b2));
  MatrixMap<Scalar> dhid(buffer_.data() + grad_hidden_.offset, w, count * t);  // W_enc x count*T
  dhid.noalias() = p(ix.embed_w2).transpose() * demb;
  layers::activation_backward<Scalar>(Activation::kRelu, pre, dhid);
  const ConstMatrixMap<Scalar> x(inputs_, c.token_dim, count * t);
  layers::linear_backward_params<Scalar>(x, dhid, g(ix.embed_w1), graw(ix.embed_b1));
  if (const Scalar* pv = position_vectors(model)) {
    MatrixMap<Scalar> dup = map(encoder_position_, t);  // d(U p), summed over the sequences
    dup = dhid.leftCols(t);
    for (Index b = 1; b < count; ++b) dup += dhid.middleCols(b * t, t);
    const ConstMatrixMap<Scalar> pos(pv, c.embedding, t);
    g(ix.embed_w1_position).noalias() += dup * pos.transpose();
    if (c.positional == PositionalEncoding::kLearned)
      g(ix.embed_position).noalias() += p(ix.embed_w1_position).transpose() * dup;
  }
}

template <class Scalar>
void Workspace<Scalar>::forward(const Transformer<Scalar>& model, const Scalar* inputs, Index count,
                                Scalar* predictions) {
  using layers::Mat;
  const ModelConfig& c = config_;
  const Index e = c.embedding;
  const Index t = c.tokens;
  const Index s = c.sequence();
  const Index n_all = count * s;
  if (count < 1 || count > capacity_) {
    throw std::invalid_argument("Workspace::forward(): " + std::to_string(count) +
                                " sequences for a workspace of " + std::to_string(capacity_));
  }
  count_ = count;
  inputs_ = inputs;
  const std::vector<TensorInfo>& tensors = model.layout().tensors();
  const ModelTensors& ix = model.layout().index();
  auto p = [&](int i) {
    const TensorInfo& info = tensors[static_cast<std::size_t>(i)];
    return ConstMatrixMap<Scalar>(model.parameters().data() + info.offset, info.rows, info.cols);
  };
  auto raw = [&](int i) { return p(i).data(); };

  // Encoder: z[:, b*S + i] = enc(x_i, i), z[:, b*S + T] = the readout token.
  const ConstMatrixMap<Scalar> x(inputs, c.token_dim, count * t);
  MatrixMap<Scalar> emb = map(embedded_, count * t);
  if (c.encoder == Encoder::kMlp) {
    encoder_forward(model, x, count, emb);
  } else {
    layers::linear_forward<Scalar>(p(ix.embed_weight), raw(ix.embed_bias), x, emb);
  }
  MatrixMap<Scalar> z0 = map(layers_[0].input, n_all);
  const ConstMatrixMap<Scalar> token = p(ix.embed_readout_token);
  // The linear encoder adds the position after its map; the MLP took it as an input.
  const Scalar* added = c.encoder == Encoder::kLinear ? position_vectors(model) : nullptr;
  for (Index b = 0; b < count; ++b) {
    z0.block(0, b * s, e, t) = emb.block(0, b * t, e, t);
    if (added != nullptr) z0.block(0, b * s, e, t) += ConstMatrixMap<Scalar>(added, e, t);
    z0.col(b * s + t) = token;
  }

  for (Index l = 0; l < c.layers(); ++l) {
    const LayerSlots& ls = layers_[static_cast<std::size_t>(l)];
    const LayerTensors& lt = ix.layers[static_cast<std::size_t>(l)];
    const Index heads = c.heads[static_cast<std::size_t>(l)];
    const Index hn = heads * c.head_dim_of(l);
    const Index nq = full(l) ? n_all : count;
    MatrixMap<Scalar> z = map(ls.input, n_all);
    Scalar* a1_data = z.data();
    if (c.pre_layer_norm) {
      MatrixMap<Scalar> a1 = map(ls.normed1, n_all);
      MatrixMap<Scalar> st = map(ls.stats1, n_all);
      layers::layer_norm_forward<Scalar>(z, raw(lt.ln1_gain), raw(lt.ln1_bias), a1, st);
      a1_data = a1.data();
    }
    const MatrixMap<Scalar> a1(a1_data, e, n_all);
    // K, V and, in a full layer, Q in one product of their stacked weights: the input is packed
    // once rather than three times, and the kernel runs on taller panels.
    const Index stacked = (full(l) ? 3 : 2) * hn;
    MatrixMap<Scalar> w(buffer_.data() + stacked_weights_.offset, stacked, e);
    stack_projection_weights(model, lt, w);
    MatrixMap<Scalar> proj = map(ls.projections, n_all);
    proj.noalias() = w * a1;
    MatrixMap<Scalar> mid = map(ls.mid, nq);
    // mid starts as the residual plus the output bias, and the projection accumulates into it.
    const auto bias_o = p(lt.attn_o_bias).col(0);
    if (full(l)) {
      mid = z.colwise() + bias_o;
    } else {
      MatrixMap<Scalar> qin = map(ls.query_in, count);
      for (Index b = 0; b < count; ++b) {
        qin.col(b) = a1.col(b * s + t);
        mid.col(b) = z.col(b * s + t) + bias_o;
      }
      map(ls.q, count).noalias() = p(lt.attn_q) * qin;
    }
    const Strided<Scalar> q =
        full(l) ? Strided<Scalar>(proj.data() + 2 * hn, hn, nq, Eigen::OuterStride<>(stacked))
                : Strided<Scalar>(map(ls.q, count).data(), hn, count, Eigen::OuterStride<>(hn));
    const layers::AttentionShape shape{count, heads, c.head_dim_of(l), s,
                                       t,     full(l) ? s : 1, c.scale_of(l)};
    MatrixMap<Scalar> ctx = map(ls.context, nq);
    layers::attention_forward<Scalar>(shape, q, proj.topRows(hn), proj.middleRows(hn, hn),
                                      buffer_.data() + ls.probs.offset, ctx,
                                      buffer_.data() + attention_scratch_.offset);
    mid.noalias() += p(lt.attn_o) * ctx;

    Scalar* a2_data = mid.data();
    if (c.pre_layer_norm) {
      MatrixMap<Scalar> a2 = map(ls.normed2, nq);
      MatrixMap<Scalar> st = map(ls.stats2, nq);
      layers::layer_norm_forward<Scalar>(mid, raw(lt.ln2_gain), raw(lt.ln2_bias), a2, st);
      a2_data = a2.data();
    }
    const MatrixMap<Scalar> a2(a2_data, e, nq);
    MatrixMap<Scalar> hp = map(ls.hidden_pre, nq);
    MatrixMap<Scalar> hid = map(ls.hidden, nq);
    layers::linear_forward<Scalar>(p(lt.ffn_w1), raw(lt.ffn_b1), a2, hp);
    layers::activation_forward<Scalar>(c.activation, hp, hid);
    MatrixMap<Scalar> out = full(l) ? map(layers_[static_cast<std::size_t>(l + 1)].input, n_all)
                                    : map(readout_in_, count);
    out = mid.colwise() + p(lt.ffn_b2).col(0);
    out.noalias() += p(lt.ffn_w2) * hid;
  }

  // Readout MLP on the readout token's final state.
  MatrixMap<Scalar> r = map(readout_in_, count);
  Scalar* rn_data = r.data();
  if (c.pre_layer_norm) {
    MatrixMap<Scalar> rn = map(readout_normed_, count);
    MatrixMap<Scalar> st = map(readout_stats_, count);
    layers::layer_norm_forward<Scalar>(r, raw(ix.final_ln_gain), raw(ix.final_ln_bias), rn, st);
    rn_data = rn.data();
  }
  const MatrixMap<Scalar> rn(rn_data, e, count);
  MatrixMap<Scalar> gp = map(readout_pre_, count);
  MatrixMap<Scalar> g = map(readout_hidden_, count);
  layers::linear_forward<Scalar>(p(ix.readout_w1), raw(ix.readout_b1), rn, gp);
  layers::activation_forward<Scalar>(c.activation, gp, g);
  Eigen::Map<Mat<Scalar>> y(predictions, 1, count);
  layers::linear_forward<Scalar>(p(ix.readout_w2), raw(ix.readout_b2), g, y);
}

template <class Scalar>
void Workspace<Scalar>::backward(const Transformer<Scalar>& model, const Scalar* output_gradient,
                                 Scalar* gradient) {
  using layers::Mat;
  const ModelConfig& c = config_;
  const Index count = count_;
  const Index e = c.embedding;
  const Index t = c.tokens;
  const Index s = c.sequence();
  const Index n_all = count * s;
  const ParameterLayout& layout = model.layout();
  const ModelTensors& ix = layout.index();
  auto info = [&](int i) -> const TensorInfo& {
    return layout.tensors()[static_cast<std::size_t>(i)];
  };
  auto p = [&](int i) {
    return ConstMatrixMap<Scalar>(model.parameters().data() + info(i).offset, info(i).rows,
                                  info(i).cols);
  };
  auto g = [&](int i) { return model.tensor_in(gradient, info(i)); };
  auto graw = [&](int i) { return gradient + info(i).offset; };
  auto raw = [&](int i) { return p(i).data(); };

  // Readout MLP.
  const Eigen::Map<const Mat<Scalar>> dy(output_gradient, 1, count);
  MatrixMap<Scalar> gp = map(readout_pre_, count);
  MatrixMap<Scalar> gh = map(readout_hidden_, count);
  layers::linear_backward_params<Scalar>(gh, dy, g(ix.readout_w2), graw(ix.readout_b2));
  MatrixMap<Scalar> dgh(buffer_.data() + grad_hidden_.offset, c.readout_width, count);
  dgh.noalias() = p(ix.readout_w2).transpose() * dy;
  layers::activation_backward<Scalar>(c.activation, gp, dgh);
  const MatrixMap<Scalar> r = map(readout_in_, count);
  const Scalar* rn_data = c.pre_layer_norm ? map(readout_normed_, count).data() : r.data();
  const Eigen::Map<const Mat<Scalar>> rn(rn_data, e, count);
  layers::linear_backward_params<Scalar>(rn, dgh, g(ix.readout_w1), graw(ix.readout_b1));
  // dout: the gradient of the last layer's output; grad_a_ holds it, E x Nq.
  MatrixMap<Scalar> dout(buffer_.data() + grad_a_.offset, e, count);
  if (c.pre_layer_norm) {
    MatrixMap<Scalar> drn(buffer_.data() + grad_b_.offset, e, count);
    drn.noalias() = p(ix.readout_w1).transpose() * dgh;
    layers::layer_norm_backward<Scalar>(r, map(readout_stats_, count), raw(ix.final_ln_gain), drn,
                                        dout, graw(ix.final_ln_gain), graw(ix.final_ln_bias));
  } else {
    dout.noalias() = p(ix.readout_w1).transpose() * dgh;
  }

  Scalar* ga = buffer_.data() + grad_a_.offset;  // dout of the current layer, then its dz_in
  Scalar* gb = buffer_.data() + grad_b_.offset;  // d(mid)
  Scalar* gc = buffer_.data() + grad_c_.offset;  // d(normed input)
  for (Index l = c.layers() - 1; l >= 0; --l) {
    const LayerSlots& ls = layers_[static_cast<std::size_t>(l)];
    const LayerTensors& lt = ix.layers[static_cast<std::size_t>(l)];
    const Index heads = c.heads[static_cast<std::size_t>(l)];
    const Index hn = heads * c.head_dim_of(l);
    const Index nq = full(l) ? n_all : count;
    MatrixMap<Scalar> d_out(ga, e, nq);
    MatrixMap<Scalar> d_mid(gb, e, nq);

    // FFN: out = mid + W2 act(W1 a2 + b1) + b2.
    const MatrixMap<Scalar> mid = map(ls.mid, nq);
    const Scalar* a2_data = c.pre_layer_norm ? map(ls.normed2, nq).data() : mid.data();
    const Eigen::Map<const Mat<Scalar>> a2(a2_data, e, nq);
    MatrixMap<Scalar> dhid(buffer_.data() + grad_hidden_.offset, c.ffn_width, nq);
    layers::linear_backward_params<Scalar>(map(ls.hidden, nq), d_out, g(lt.ffn_w2),
                                           graw(lt.ffn_b2));
    dhid.noalias() = p(lt.ffn_w2).transpose() * d_out;
    layers::activation_backward<Scalar>(c.activation, map(ls.hidden_pre, nq), dhid);
    layers::linear_backward_params<Scalar>(a2, dhid, g(lt.ffn_w1), graw(lt.ffn_b1));
    if (c.pre_layer_norm) {
      MatrixMap<Scalar> da2(gc, e, nq);
      da2.noalias() = p(lt.ffn_w1).transpose() * dhid;
      layers::layer_norm_backward<Scalar>(mid, map(ls.stats2, nq), raw(lt.ln2_gain), da2, d_mid,
                                          graw(lt.ln2_gain), graw(lt.ln2_bias));
      d_mid += d_out;
    } else {
      d_mid = d_out;
      d_mid.noalias() += p(lt.ffn_w1).transpose() * dhid;
    }

    // Attention: mid = z_q + W_o context + b_o.
    MatrixMap<Scalar> ctx = map(ls.context, nq);
    layers::linear_backward_params<Scalar>(ctx, d_mid, g(lt.attn_o), graw(lt.attn_o_bias));
    MatrixMap<Scalar> dctx(buffer_.data() + grad_ctx_.offset, hn, nq);
    dctx.noalias() = p(lt.attn_o).transpose() * d_mid;
    // The projections stacked as in forward(): K, V and, in a full layer, Q.
    const Index stacked = (full(l) ? 3 : 2) * hn;
    MatrixMap<Scalar> proj = map(ls.projections, n_all);
    MatrixMap<Scalar> dproj(buffer_.data() + grad_projections_.offset, stacked, n_all);
    const Strided<Scalar> q =
        full(l) ? Strided<Scalar>(proj.data() + 2 * hn, hn, nq, Eigen::OuterStride<>(stacked))
                : Strided<Scalar>(map(ls.q, count).data(), hn, count, Eigen::OuterStride<>(hn));
    Strided<Scalar> dq =
        full(l) ? Strided<Scalar>(dproj.data() + 2 * hn, hn, nq, Eigen::OuterStride<>(stacked))
                : Strided<Scalar>(buffer_.data() + grad_q_.offset, hn, count,
                                  Eigen::OuterStride<>(hn));
    const layers::AttentionShape shape{count, heads, c.head_dim_of(l), s,
                                       t,     full(l) ? s : 1, c.scale_of(l)};
    layers::attention_backward<Scalar>(shape, q, proj.topRows(hn), proj.middleRows(hn, hn),
                                       buffer_.data() + ls.probs.offset, dctx, dq,
                                       dproj.topRows(hn), dproj.middleRows(hn, hn),
                                       buffer_.data() + attention_scratch_.offset);

    // Projections: one product for the stacked weights' gradient, one for the input's.
    const MatrixMap<Scalar> z = map(ls.input, n_all);
    const Scalar* a1_data = c.pre_layer_norm ? map(ls.normed1, n_all).data() : z.data();
    const Eigen::Map<const Mat<Scalar>> a1(a1_data, e, n_all);
    MatrixMap<Scalar> dw(buffer_.data() + grad_stacked_weights_.offset, stacked, e);
    dw.noalias() = dproj * a1.transpose();
    g(lt.attn_k) += dw.topRows(hn);
    g(lt.attn_v) += dw.middleRows(hn, hn);
    MatrixMap<Scalar> w(buffer_.data() + stacked_weights_.offset, stacked, e);
    stack_projection_weights(model, lt, w);
    MatrixMap<Scalar> da1(gc, e, n_all);
    da1.noalias() = w.transpose() * dproj;
    if (full(l)) {
      g(lt.attn_q) += dw.bottomRows(hn);
    } else {
      layers::linear_backward_params<Scalar>(map(ls.query_in, count), dq, g(lt.attn_q), nullptr);
      // The readout columns of da1 receive W_q^T dq; d_out (ga) is free again, use it as scratch.
      MatrixMap<Scalar> dqin(ga, e, count);
      dqin.noalias() = p(lt.attn_q).transpose() * dq;
      for (Index b = 0; b < count; ++b) da1.col(b * s + t) += dqin.col(b);
    }
    MatrixMap<Scalar> dz(ga, e, n_all);
    if (c.pre_layer_norm) {
      layers::layer_norm_backward<Scalar>(z, map(ls.stats1, n_all), raw(lt.ln1_gain), da1, dz,
                                          graw(lt.ln1_gain), graw(lt.ln1_bias));
    } else {
      dz = da1;
    }
    if (full(l)) {
      dz += MatrixMap<Scalar>(gb, e, n_all);
    } else {
      for (Index b = 0; b < count; ++b) dz.col(b * s + t) += d_mid.col(b);
    }
  }

  // Encoder.
  const MatrixMap<Scalar> dz(ga, e, n_all);
  MatrixMap<Scalar> demb(gb, e, count * t);
  MatrixMap<Scalar> dtoken = g(ix.embed_readout_token);
  for (Index b = 0; b < count; ++b) {
    demb.block(0, b * t, e, t) = dz.block(0, b * s, e, t);
    dtoken.col(0) += dz.col(b * s + t);
  }
  if (c.encoder == Encoder::kMlp) {
    encoder_backward(model, ConstMatrixMap<Scalar>(demb.data(), e, count * t), gradient);
    return;
  }
  if (c.positional == PositionalEncoding::kLearned) {
    MatrixMap<Scalar> dpos = g(ix.embed_position);
    for (Index b = 0; b < count; ++b) dpos += demb.block(0, b * t, e, t);
  }
  const ConstMatrixMap<Scalar> x(inputs_, c.token_dim, count * t);
  layers::linear_backward_params<Scalar>(x, demb, g(ix.embed_weight), graw(ix.embed_bias));
}

template class Transformer<float>;
template class Transformer<double>;
template class Workspace<float>;
template class Workspace<double>;

}  // namespace infoflow::numeric
