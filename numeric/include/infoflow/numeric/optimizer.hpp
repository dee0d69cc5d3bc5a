#ifndef INFOFLOW_NUMERIC_OPTIMIZER_HPP_
#define INFOFLOW_NUMERIC_OPTIMIZER_HPP_

/// \file
/// AdamW (decoupled weight decay, on weight matrices only), the warm-up + cosine learning-rate
/// schedule, and clipping by the global gradient norm. The update follows PyTorch's
/// torch.optim.AdamW and clip_grad_norm_ formula for formula, so the two agree to rounding.

#include <cmath>
#include <vector>

#include <Eigen/Core>

#include "infoflow/numeric/config.hpp"

namespace infoflow::numeric {

struct AdamWOptions {
  double learning_rate = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1e-8;
  double weight_decay = 1e-2;
};

/// Linear warm-up over `warmup` steps to the peak, held at the peak until step `hold`, then a
/// cosine down to min_ratio * peak at the last step (`total` - 1). With hold <= warmup the
/// cosine starts right after the warm-up; training until the plateau holds the peak until the
/// plateau test starts its cool-down (train.hpp).
struct Schedule {
  double peak = 1e-3;
  Index warmup = 0;
  Index total = 1;
  double min_ratio = 0;
  Index hold = 0;
  /// The learning rate of step `step` (0-based).
  [[nodiscard]] double at(Index step) const;
};

template <class Scalar>
class AdamW {
 public:
  AdamW(const ParameterLayout& layout, AdamWOptions options);
  /// One update with learning rate `lr`; steps are counted from 1 for the bias corrections.
  void step(Scalar* parameters, const Scalar* gradient, double lr);
  [[nodiscard]] Index steps_taken() const { return steps_; }
  /// The moments, for checkpoints (one scalar per parameter).
  [[nodiscard]] const Scalar* first_moment() const { return m_.data(); }
  [[nodiscard]] const Scalar* second_moment() const { return v_.data(); }
  /// Continues from a checkpoint's moments and step count.
  void restore(const Scalar* first, const Scalar* second, Index steps);

 private:
  AdamWOptions options_;
  std::vector<Scalar, Eigen::aligned_allocator<Scalar>> m_;
  std::vector<Scalar, Eigen::aligned_allocator<Scalar>> v_;
  std::vector<unsigned char> decay_;  ///< per parameter: weight decay applies
  Index steps_ = 0;
};

/// Scales the gradient so its Euclidean norm is at most max_norm (0: never), as PyTorch does
/// (coefficient max_norm / (norm + 1e-6), capped at 1). Returns the norm before clipping.
template <class Scalar>
double clip_gradient_norm(Scalar* gradient, Index size, double max_norm);

extern template class AdamW<float>;
extern template class AdamW<double>;

}  // namespace infoflow::numeric

#endif  // INFOFLOW_NUMERIC_OPTIMIZER_HPP_
