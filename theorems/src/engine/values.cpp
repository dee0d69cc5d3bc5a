// Facts read off a target's values: on random sequences against the same sequences permuted
// (E4), and across random sequences (E5).
#include "values.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

#include <Eigen/Core>

#include "infoflow/core/error.hpp"
#include "infoflow/core/random.hpp"
#include "infoflow/targets/evaluator.hpp"

namespace infoflow::theorems::detail {

namespace {

using targets::Node;

/// Tokens beyond every fixed position and offset, so that each reads a token that others can
/// be swapped with (at T = 8, x[t+8] would be the zero vector for every t).
constexpr long kSpareTokens = 8;
constexpr long kTokenDim = 4;
constexpr std::uint64_t kSeed = 1;
/// Draws: a tie of probability 2^-8 (max(t by relu(L)) at T = 8, every L < 0) is missed with
/// probability (1 - 2^-8)^2048 < 1e-3.
constexpr long kDraws = 2048;
constexpr long kBatch = 256;
/// A formula that varies takes two values on two random sequences (almost surely); more, at
/// scales from e^-3 to e^3, so that a threshold (relu(L - 3)) is crossed too.
constexpr long kConstantDraws = 64;
constexpr double kLogScaleSpread = 3;
/// Index tuples the test may visit in all (a deep nesting gets fewer draws).
constexpr double kTupleBudget = 4e6;
/// Relative: a permuted sum differs from the sum in its last bits.
constexpr double kTolerance = 1e-9;

long largest_offset(const Node& n) {
  long out = std::abs(n.offset);
  for (const Node& a : n.args) out = std::max(out, largest_offset(a));
  return out;
}

/// Index tuples one evaluation visits, about (each binder counted as a range of T values).
double tuples_per_evaluation(const Node& n, double tokens) {
  double inside = 0;
  for (const Node& a : n.args) inside += tuples_per_evaluation(a, tokens);
  if (n.kind != Node::Kind::kReduce) return std::max(inside, 1.0);
  return std::pow(tokens, static_cast<double>(n.binders.size())) * std::max(inside, 1.0);
}

bool differ(double a, double b) {
  if (!std::isfinite(a) || !std::isfinite(b)) return false;  // a NaN witnesses nothing
  return std::abs(a - b) > kTolerance * (1 + std::max(std::abs(a), std::abs(b)));
}

/// Fills `x` (d x (n T)) with N(0, 1) tokens and `permuted` with each sequence's tokens in a
/// random order (Fisher-Yates).
void draw(Rng& rng, long tokens, Eigen::MatrixXd& x, Eigen::MatrixXd& permuted) {
  for (long j = 0; j < x.cols(); ++j) {
    for (long i = 0; i < x.rows(); ++i) x(i, j) = rng.normal();
  }
  std::vector<long> order(static_cast<std::size_t>(tokens));
  for (long start = 0; start < x.cols(); start += tokens) {
    for (long t = 0; t < tokens; ++t) order[static_cast<std::size_t>(t)] = t;
    for (long t = tokens - 1; t > 0; --t) {
      const auto pick = static_cast<long>(rng.uniform() * static_cast<double>(t + 1));
      std::swap(order[static_cast<std::size_t>(t)], order[static_cast<std::size_t>(pick)]);
    }
    for (long t = 0; t < tokens; ++t)
      permuted.col(start + t) = x.col(start + order[static_cast<std::size_t>(t)]);
  }
}

/// The sequence length that puts every fixed position and offset inside, with tokens to spare.
long tokens_for(const targets::Formula& formula) {
  return kSpareTokens + formula.highest_position() + largest_offset(formula.root());
}

/// How many sequences fit the budget of index tuples, at most `wanted`.
long draws_within_budget(const targets::Formula& formula, long tokens, long wanted) {
  const double per_draw = 2 * tuples_per_evaluation(formula.root(), static_cast<double>(tokens));
  return std::clamp(static_cast<long>(kTupleBudget / per_draw), 1L, wanted);
}

targets::Evaluator evaluator(const targets::Formula& formula, targets::Bindings bindings,
                             long tokens) {
  bindings["T"] = tokens;
  return {formula, bindings, kTokenDim, kSeed};
}

}  // namespace

std::optional<bool> changes_when_tokens_permuted(const targets::Formula& formula,
                                                 const targets::Bindings& bindings) {
  const long tokens = tokens_for(formula);
  const long draws = draws_within_budget(formula, tokens, kDraws);
  try {
    const targets::Evaluator f = evaluator(formula, bindings, tokens);
    Rng rng(kSeed);
    for (long done = 0; done < draws; done += kBatch) {
      const long n = std::min(kBatch, draws - done);
      Eigen::MatrixXd x(kTokenDim, n * tokens);
      Eigen::MatrixXd permuted(kTokenDim, n * tokens);
      draw(rng, tokens, x, permuted);
      Eigen::VectorXd y(n);
      Eigen::VectorXd z(n);
      f(x, y);
      f(permuted, z);
      for (long i = 0; i < n; ++i) {
        if (differ(y(i), z(i))) return true;
      }
    }
    return false;
  } catch (const InputError&) {
    return std::nullopt;
  }
}

std::optional<double> constant_value(const targets::Formula& formula,
                                     const targets::Bindings& bindings) {
  const long tokens = tokens_for(formula);
  const long n = draws_within_budget(formula, tokens, kConstantDraws);
  try {
    const targets::Evaluator f = evaluator(formula, bindings, tokens);
    Rng rng(kSeed);
    Eigen::MatrixXd x(kTokenDim, n * tokens);
    Eigen::MatrixXd unused(kTokenDim, n * tokens);
    draw(rng, tokens, x, unused);
    for (long start = 0; start < x.cols(); start += tokens)
      x.middleCols(start, tokens) *= std::exp(kLogScaleSpread * (2 * rng.uniform() - 1));
    Eigen::VectorXd y(n);
    f(x, y);
    if (n < 2 || !std::isfinite(y(0))) return std::nullopt;
    for (long i = 1; i < n; ++i) {
      if (!std::isfinite(y(i)) || differ(y(0), y(i))) return std::nullopt;
    }
    return y(0);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

}  // namespace infoflow::theorems::detail
