#ifndef INFOFLOW_NUMERIC_SRC_LAYERS_HPP_
#define INFOFLOW_NUMERIC_SRC_LAYERS_HPP_

// Paired forward/backward kernels. Matrices are column-major with one column per position.
// Backward kernels accumulate (+=) into parameter gradients and assign input gradients.

#include <cmath>
#include <type_traits>

#include <Eigen/Core>

#include "infoflow/numeric/config.hpp"

namespace infoflow::numeric::layers {

template <class Scalar>
using Mat = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
template <class Scalar>
using Ref = Eigen::Ref<Mat<Scalar>>;
template <class Scalar>
using CRef = Eigen::Ref<const Mat<Scalar>>;
template <class Scalar>
using Vec = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;

// ---- linear: y (out x N) = W (out x in) x (in x N) + b (out) --------------------------------

template <class Scalar>
void linear_forward(CRef<Scalar> w, const Scalar* bias, CRef<Scalar> x, Ref<Scalar> y) {
  if (bias == nullptr) {
    y.noalias() = w * x;
    return;
  }
  // The bias is where the product accumulates: no zeroing pass, no second pass for the bias.
  y.colwise() = Eigen::Map<const Vec<Scalar>>(bias, w.rows());
  y.noalias() += w * x;
}

/// dW += dy x^T, db += rowsum(dy). The input gradient is left to the caller (W^T dy), since
/// callers differ in whether they assign or accumulate it.
template <class Scalar>
void linear_backward_params(CRef<Scalar> x, CRef<Scalar> dy, Ref<Scalar> dw, Scalar* dbias) {
  dw.noalias() += dy * x.transpose();
  if (dbias != nullptr) {
    Eigen::Map<Vec<Scalar>>(dbias, dy.rows()) += dy.rowwise().sum();
  }
}

// ---- activations, elementwise ------------------------------------------------------------

// GELU, tanh form (PyTorch's approximate='tanh'): 0.5 x (1 + tanh(c (x + 0.044715 x^3))).
constexpr double kGeluC = 0.7978845608028654;  // sqrt(2/pi)
constexpr double kGeluA = 0.044715;

template <class Scalar>
void activation_forward(Activation act, CRef<Scalar> pre, Ref<Scalar> out) {
  if (act == Activation::kRelu) {
    out = pre.cwiseMax(Scalar(0));
    return;
  }
  const Scalar c(kGeluC);
  const Scalar a(kGeluA);
  out = (Scalar(0.5) * pre.array() *
         (Scalar(1) + (c * (pre.array() + a * pre.array().cube())).tanh()))
            .matrix();
}

/// grad (in: d out, out: d pre) *= act'(pre)
template <class Scalar>
void activation_backward(Activation act, CRef<Scalar> pre, Ref<Scalar> grad) {
  if (act == Activation::kRelu) {
    grad = (pre.array() > Scalar(0)).select(grad, Scalar(0));
    return;
  }
  // Column by column, with Eigen's vectorised tanh of the same expression as the forward pass
  // (std::tanh per element took half the step at the paper's scale).
  const Scalar c(kGeluC);
  const Scalar a(kGeluA);
  Eigen::Array<Scalar, Eigen::Dynamic, 1> t(pre.rows());
  for (Index j = 0; j < pre.cols(); ++j) {
    const auto x = pre.col(j).array();
    t = (c * (x + a * x.cube())).tanh();
    grad.col(j).array() *= Scalar(0.5) * (Scalar(1) + t) +
                           Scalar(0.5) * x * (Scalar(1) - t.square()) * c *
                               (Scalar(1) + Scalar(3) * a * x.square());
  }
}

// ---- layer norm over the rows of each column ---------------------------------------------

constexpr double kLayerNormEps = 1e-5;

/// stats: 2 x N (mean, 1/std) kept for backward.
template <class Scalar>
void layer_norm_forward(CRef<Scalar> x, const Scalar* gain, const Scalar* bias, Ref<Scalar> y,
                        Ref<Scalar> stats) {
  const Index e = x.rows();
  const Eigen::Map<const Vec<Scalar>> g(gain, e);
  const Eigen::Map<const Vec<Scalar>> b(bias, e);
  for (Index j = 0; j < x.cols(); ++j) {
    const Scalar mean = x.col(j).mean();
    const Scalar var = (x.col(j).array() - mean).square().mean();
    const Scalar rstd = Scalar(1) / std::sqrt(var + Scalar(kLayerNormEps));
    stats(0, j) = mean;
    stats(1, j) = rstd;
    y.col(j) = ((x.col(j).array() - mean) * rstd * g.array() + b.array()).matrix();
  }
}

/// dx = rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat)), dxhat = dy * gain.
template <class Scalar>
void layer_norm_backward(CRef<Scalar> x, CRef<Scalar> stats, const Scalar* gain, CRef<Scalar> dy,
                         Ref<Scalar> dx, Scalar* dgain, Scalar* dbias) {
  const Index e = x.rows();
  const Eigen::Map<const Vec<Scalar>> g(gain, e);
  Eigen::Map<Vec<Scalar>> dg(dgain, e);
  Eigen::Map<Vec<Scalar>> db(dbias, e);
  Vec<Scalar> xhat(e);
  Vec<Scalar> dxhat(e);
  for (Index j = 0; j < x.cols(); ++j) {
    const Scalar mean = stats(0, j);
    const Scalar rstd = stats(1, j);
    xhat = (x.col(j).array() - mean) * rstd;
    dg.array() += dy.col(j).array() * xhat.array();
    db += dy.col(j);
    dxhat = (dy.col(j).array() * g.array()).matrix();
    const Scalar m1 = dxhat.mean();
    const Scalar m2 = dxhat.dot(xhat) / Scalar(e);
    dx.col(j) = ((dxhat.array() - m1 - xhat.array() * m2) * rstd).matrix();
  }
}

// ---- multi-head softmax attention ----------------------------------------------------------
//
// For sequence b and head h: Q_bh = q(h*n.., b*Sq..) (n x Sq); K_bh, V_bh (n x Sk) are the
// first Sk of the sequence's S columns of k and v: the keys are the T input tokens, and the
// readout token (the last column) queries but is never a key (docs/theory.md, section 2).
// P_bh (Sk x Sq) = softmax over rows of scale K_bh^T Q_bh; context_bh (n x Sq) = V_bh P_bh.
// Sq is S for a full layer, 1 when only the readout token queries.

struct AttentionShape {
  Index count = 0;  // sequences
  Index heads = 0;
  Index head_dim = 0;
  Index positions = 0;  // S: columns of a sequence in k and v
  Index keys = 0;       // Sk = T: the first Sk of them are keys and values
  Index queries = 0;    // Sq
  double scale = 1;
};

// The products of one (sequence, head) are small: head_dim x S x Sq multiply-adds, a few
// thousand. Eigen's blocked product zeroes its destination and packs both operands on every
// call, which there costs as much as the arithmetic; head_product computes them in place.

// Eigen's packets (__m256 and the like) are template arguments here: GCC warns that their
// attributes are ignored there, which is harmless (Eigen's own headers do the same).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"

/// Rows r.. of dst = a b (head_product) in packets of `Packet` while a whole one fits: each
/// packet of rows of a block of kCols columns of dst is summed over k in registers (kCols
/// independent chains of multiply-adds), from a's columns and broadcast coefficients of b.
/// Returns the first row left.
template <class Packet, class A, class B, class Dst>
Index head_product_rows(const A& a, const B& b, Dst& dst, Index r) {
  namespace ei = Eigen::internal;
  using Scalar = typename A::Scalar;
  constexpr Index kPacket = ei::unpacket_traits<Packet>::size;
  constexpr Index kCols = 8;
  const Index k = a.cols();
  const Index n = b.cols();
  const Scalar* pa = a.data();
  const Index lda = a.outerStride();
  for (; r + kPacket <= a.rows(); r += kPacket) {
    Index j = 0;
    for (; j + kCols <= n; j += kCols) {
      Packet acc[kCols];
      for (Index c = 0; c < kCols; ++c) acc[c] = ei::pset1<Packet>(Scalar(0));
      for (Index l = 0; l < k; ++l) {
        const Packet x = ei::ploadu<Packet>(pa + r + l * lda);
        for (Index c = 0; c < kCols; ++c)
          acc[c] = ei::pmadd(x, ei::pset1<Packet>(b(l, j + c)), acc[c]);
      }
      for (Index c = 0; c < kCols; ++c) ei::pstoreu(&dst.coeffRef(r, j + c), acc[c]);
    }
    for (; j < n; ++j) {
      Packet acc = ei::pset1<Packet>(Scalar(0));
      for (Index l = 0; l < k; ++l)
        acc = ei::pmadd(ei::ploadu<Packet>(pa + r + l * lda), ei::pset1<Packet>(b(l, j)), acc);
      ei::pstoreu(&dst.coeffRef(r, j), acc);
    }
  }
  return r;
}

/// dst (m x n) = a (m x k) b (k x n); a and dst with unit inner stride, b any expression. Rows
/// in whole packets, then half packets (a head of 4 floats), then one at a time.
template <class A, class B, class Dst>
void head_product(const A& a, const B& b, Dst&& dst) {
  using Scalar = typename A::Scalar;
  using Packet = typename Eigen::internal::packet_traits<Scalar>::type;
  using Half = typename Eigen::internal::unpacket_traits<Packet>::half;
  Index r = head_product_rows<Packet>(a, b, dst, 0);
  if constexpr (!std::is_same_v<Half, Packet>) r = head_product_rows<Half>(a, b, dst, r);
  for (; r < a.rows(); ++r) {
    for (Index j = 0; j < b.cols(); ++j) {
      Scalar acc(0);
      for (Index l = 0; l < a.cols(); ++l) acc += a(r, l) * b(l, j);
      dst(r, j) = acc;
    }
  }
}

#pragma GCC diagnostic pop

/// scratch: at least Sk x n.
template <class Scalar>
void attention_forward(const AttentionShape& s, CRef<Scalar> q, CRef<Scalar> k, CRef<Scalar> v,
                       Scalar* probs, Ref<Scalar> context, Scalar* scratch) {
  const Scalar scale(s.scale);
  // K^T, so that the scores are computed in packets of positions.
  Eigen::Map<Mat<Scalar>> kt(scratch, s.keys, s.head_dim);
  for (Index b = 0; b < s.count; ++b) {
    for (Index h = 0; h < s.heads; ++h) {
      Eigen::Map<Mat<Scalar>> p(probs + (b * s.heads + h) * s.keys * s.queries, s.keys,
                                s.queries);
      const auto kb = k.block(h * s.head_dim, b * s.positions, s.head_dim, s.keys);
      const auto vb = v.block(h * s.head_dim, b * s.positions, s.head_dim, s.keys);
      const auto qb = q.block(h * s.head_dim, b * s.queries, s.head_dim, s.queries);
      kt = kb.transpose();
      head_product(kt, qb, p);
      for (Index j = 0; j < s.queries; ++j) {
        auto col = p.col(j).array();
        const Scalar top = col.maxCoeff();
        col = ((col - top) * scale).exp();
        col /= col.sum();
      }
      head_product(vb, p, context.block(h * s.head_dim, b * s.queries, s.head_dim, s.queries));
    }
  }
}

/// dq (n x Sq blocks), dk, dv (n x S blocks) are assigned, dk and dv zero past the Sk keys.
/// scratch: at least Sk x (Sq + n).
template <class Scalar>
void attention_backward(const AttentionShape& s, CRef<Scalar> q, CRef<Scalar> k, CRef<Scalar> v,
                        const Scalar* probs, CRef<Scalar> dcontext, Ref<Scalar> dq, Ref<Scalar> dk,
                        Ref<Scalar> dv, Scalar* scratch) {
  const Scalar scale(s.scale);
  Eigen::Map<Mat<Scalar>> dp(scratch, s.keys, s.queries);
  // V^T, as K^T in the forward pass.
  Eigen::Map<Mat<Scalar>> vt(scratch + s.keys * s.queries, s.keys, s.head_dim);
  const Index rest = s.positions - s.keys;
  for (Index b = 0; b < s.count; ++b) {
    for (Index h = 0; h < s.heads; ++h) {
      const Eigen::Map<const Mat<Scalar>> p(probs + (b * s.heads + h) * s.keys * s.queries,
                                            s.keys, s.queries);
      const Index row = h * s.head_dim;
      const Index col = b * s.positions;
      const auto kb = k.block(row, col, s.head_dim, s.keys);
      const auto vb = v.block(row, col, s.head_dim, s.keys);
      const auto qb = q.block(row, b * s.queries, s.head_dim, s.queries);
      const auto dcb = dcontext.block(row, b * s.queries, s.head_dim, s.queries);
      vt = vb.transpose();
      head_product(vt, dcb, dp);
      head_product(dcb, p.transpose(), dv.block(row, col, s.head_dim, s.keys));
      // Softmax backward, then the scale: d(score) = scale * P (dP - sum(P dP)).
      for (Index j = 0; j < s.queries; ++j) {
        const Scalar inner = p.col(j).dot(dp.col(j));
        dp.col(j) = (p.col(j).array() * (dp.col(j).array() - inner) * scale).matrix();
      }
      head_product(kb, dp, dq.block(row, b * s.queries, s.head_dim, s.queries));
      head_product(qb, dp.transpose(), dk.block(row, col, s.head_dim, s.keys));
      dk.block(row, col + s.keys, s.head_dim, rest).setZero();
      dv.block(row, col + s.keys, s.head_dim, rest).setZero();
    }
  }
}

}  // namespace infoflow::numeric::layers

#endif  // INFOFLOW_NUMERIC_SRC_LAYERS_HPP_
