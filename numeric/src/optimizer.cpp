#include "infoflow/numeric/optimizer.hpp"

#include <algorithm>
#include <numbers>

#include <Eigen/Core>

namespace infoflow::numeric {

double Schedule::at(Index step) const {
  if (step < warmup) {
    return peak * static_cast<double>(step + 1) / static_cast<double>(warmup);
  }
  const Index decay_from = std::max(warmup, hold);
  if (step < decay_from) return peak;
  const double span = static_cast<double>(std::max<Index>(1, total - decay_from - 1));
  const double progress = std::min(1.0, static_cast<double>(step - decay_from) / span);
  const double floor = peak * min_ratio;
  return floor + 0.5 * (peak - floor) * (1.0 + std::cos(std::numbers::pi * progress));
}

template <class Scalar>
AdamW<Scalar>::AdamW(const ParameterLayout& layout, AdamWOptions options)
    : options_(options),
      m_(static_cast<std::size_t>(layout.size()), Scalar(0)),
      v_(static_cast<std::size_t>(layout.size()), Scalar(0)),
      decay_(static_cast<std::size_t>(layout.size()), 0) {
  for (const TensorInfo& t : layout.tensors()) {
    std::fill_n(decay_.begin() + t.offset, t.size(), t.decay ? 1 : 0);
  }
}

template <class Scalar>
void AdamW<Scalar>::step(Scalar* parameters, const Scalar* gradient, double lr) {
  ++steps_;
  const Scalar b1(options_.beta1);
  const Scalar b2(options_.beta2);
  const double correction1 = 1.0 - std::pow(options_.beta1, static_cast<double>(steps_));
  const double correction2 = 1.0 - std::pow(options_.beta2, static_cast<double>(steps_));
  const Scalar step_size(lr / correction1);
  const Scalar correction2_sqrt(std::sqrt(correction2));
  const Scalar eps(options_.epsilon);
  const Scalar shrink(1.0 - lr * options_.weight_decay);
  const std::size_t n = m_.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Scalar g = gradient[i];
    if (decay_[i] != 0) parameters[i] *= shrink;
    m_[i] = m_[i] * b1 + g * (Scalar(1) - b1);
    v_[i] = v_[i] * b2 + g * g * (Scalar(1) - b2);
    const Scalar denom = std::sqrt(v_[i]) / correction2_sqrt + eps;
    parameters[i] -= step_size * (m_[i] / denom);
  }
}

template <class Scalar>
void AdamW<Scalar>::restore(const Scalar* first, const Scalar* second, Index steps) {
  std::copy_n(first, m_.size(), m_.begin());
  std::copy_n(second, v_.size(), v_.begin());
  steps_ = steps;
}

template <class Scalar>
double clip_gradient_norm(Scalar* gradient, Index size, double max_norm) {
  Eigen::Map<Eigen::Matrix<Scalar, Eigen::Dynamic, 1>> g(gradient, size);
  const double norm = static_cast<double>(g.norm());
  if (max_norm > 0 && std::isfinite(norm)) {
    const double coefficient = std::min(1.0, max_norm / (norm + 1e-6));
    if (coefficient < 1.0) g *= static_cast<Scalar>(coefficient);
  }
  return norm;
}

template class AdamW<float>;
template class AdamW<double>;
template double clip_gradient_norm<float>(float*, Index, double);
template double clip_gradient_norm<double>(double*, Index, double);

}  // namespace infoflow::numeric
