// Facts read off a target's values: on random sequences against the same sequences permuted
// (E4), and across random sequences (E5).
#include "values.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "infoflow/core/error.hpp"
#include "infoflow/core/random.hpp"
#include "infoflow/targets/evaluator.hpp"

namespace infoflow::theorems::detail {

namespace {

using targets::Node;

/// Tokens beyond every fixed position, offset and rank, so that each reads a token that others
/// can be swapped with (at T = 8, x[t+8] would be the zero vector for every t).
constexpr long kSpareTokens = 8;
/// E4 also tries sequences this many times longer: a tie can be rare at T = 8 and common at
/// T = 512 (min(t by relu(L + 3)) ties when every L < -3).
constexpr long kLongerBy = 8;
/// The facts hold whatever the parameters (a, b, c, ...: E1 takes them of either sign) and d:
/// each is tried on several draws of the parameters, at several token dimensions.
constexpr std::uint64_t kParameterSeeds = 12;
constexpr long kTokenDims[] = {4, 2, 8};
/// Draws of E4 over all seeds and lengths: a tie of probability 2^-8 (max(t by relu(L)) at
/// T = 8, every L < 0) is missed with probability (1 - 2^-8)^2048 < 1e-3.
constexpr long kDraws = 2048;
constexpr long kBatch = 256;
/// A formula that varies takes two values on two random sequences (almost surely); more, at
/// scales from e^-3 to e^3, so that a threshold (relu(L - 3)) is crossed too. E5, per seed.
constexpr long kConstantDraws = 128;
constexpr double kLogScaleSpread = 3;
/// Index tuples the test may visit in all (a deep nesting gets fewer draws).
constexpr double kTupleBudget = 4e6;
/// Index tuples one sequence of every parameter draw may visit at a length E5 tries: six
/// ordered indices at 6 tokens fit, seven do not.
constexpr double kSampleBudget = 4 * kTupleBudget;
/// Two values differ by more than this fraction of the values' spread (their standard
/// deviation), plus kRounding of their root mean square: a target's units (sqnorm(x[1]) / 1e12)
/// must not decide, nor an offset (max(t) dot(a, x[t]) + 1e12, whose spread is 1e-12 of its
/// root mean square, was once a constant at 1e-9 of the latter), and a permuted sum differs from
/// the sum in its last bits (about 1e-16 of the root mean square a rounding).
constexpr double kTolerance = 1e-9;
constexpr double kRounding = 1e-12;

long largest_offset(const Node& n) {
  long out = std::abs(n.offset);
  for (const Node& a : n.args) out = std::max(out, largest_offset(a));
  return out;
}

/// The largest rank or range bound, resolved (kth(9, t ...) needs 9 tokens at least).
long largest_bound(const Node& n, const targets::Bindings& bindings) {
  auto value = [&](const targets::Bound& b) -> long {
    if (b.name.empty()) return b.value;
    const auto it = bindings.find(b.name);
    return it == bindings.end() || b.name == "T" ? 0 : it->second;
  };
  long out = n.kind == Node::Kind::kReduce ? value(n.rank) : 0;
  for (const targets::Binder& b : n.binders) {
    if (b.has_range) out = std::max(out, value(b.high));
  }
  for (const Node& a : n.args) out = std::max(out, largest_bound(a, bindings));
  return out;
}

/// Index tuples one evaluation visits, about (each binder counted as a range of T values).
double tuples_per_evaluation(const Node& n, double tokens) {
  double inside = 0;
  for (const Node& a : n.args) inside += tuples_per_evaluation(a, tokens);
  if (n.kind != Node::Kind::kReduce) return std::max(inside, 1.0);
  return std::pow(tokens, static_cast<double>(n.binders.size())) * std::max(inside, 1.0);
}

/// How far apart two of a set of values must be to differ (kTolerance, kRounding).
double tolerance(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  // In units of the largest value, so that no square overflows (1e200 * dot(a, x[t]) squared
  // was infinite, and every value within an infinite tolerance of the others: a constant).
  double largest = 0;
  for (const Eigen::VectorXd* v : {&a, &b}) {
    for (const double y : *v) {
      if (std::isfinite(y)) largest = std::max(largest, std::abs(y));
    }
  }
  if (largest == 0) return 0;
  double sum = 0;
  double squares = 0;
  long n = 0;
  for (const Eigen::VectorXd* v : {&a, &b}) {
    for (const double y : *v) {
      if (std::isfinite(y)) sum += y / largest, squares += (y / largest) * (y / largest), ++n;
    }
  }
  const double mean = sum / static_cast<double>(n);
  const double rms = std::sqrt(squares / static_cast<double>(n));
  double deviations = 0;
  for (const Eigen::VectorXd* v : {&a, &b}) {
    for (const double y : *v) {
      if (std::isfinite(y)) deviations += (y / largest - mean) * (y / largest - mean);
    }
  }
  const double spread = std::sqrt(deviations / static_cast<double>(n));
  return largest * (kTolerance * spread + kRounding * rms);
}

bool differ(double a, double b, double tolerance) {
  if (!std::isfinite(a) || !std::isfinite(b)) return false;  // a NaN witnesses nothing
  return std::abs(a - b) > tolerance;
}

/// Fills `x` (d x (n T)) with N(0, 1) tokens and, if given, `permuted` with each sequence's
/// tokens in a random order (Fisher-Yates).
void draw(Rng& rng, long tokens, Eigen::MatrixXd& x, Eigen::MatrixXd* permuted) {
  for (long j = 0; j < x.cols(); ++j) {
    for (long i = 0; i < x.rows(); ++i) x(i, j) = rng.normal();
  }
  std::vector<long> order(static_cast<std::size_t>(tokens));
  for (long start = 0; start < x.cols(); start += tokens) {
    if (permuted == nullptr) continue;
    for (long t = 0; t < tokens; ++t) order[static_cast<std::size_t>(t)] = t;
    for (long t = tokens - 1; t > 0; --t) {
      const auto pick = static_cast<long>(rng.uniform() * static_cast<double>(t + 1));
      std::swap(order[static_cast<std::size_t>(t)], order[static_cast<std::size_t>(pick)]);
    }
    for (long t = 0; t < tokens; ++t)
      permuted->col(start + t) = x.col(start + order[static_cast<std::size_t>(t)]);
  }
}

/// The sequence length that puts every fixed position, offset and rank inside, with tokens to
/// spare.
long tokens_for(const targets::Formula& formula, const targets::Bindings& bindings) {
  return kSpareTokens + formula.highest_position() + largest_offset(formula.root()) +
         largest_bound(formula.root(), bindings);
}

/// Token indices bound anywhere in the formula: a length with as many tokens gives every
/// reduction an index tuple (t1 < t2 < t3 needs 3).
long token_binders(const Node& n) {  // NOLINT(misc-no-recursion)
  long out = 0;
  if (n.kind == Node::Kind::kReduce) {
    out += std::count_if(n.binders.begin(), n.binders.end(),
                         [](const targets::Binder& b) { return !b.has_range; });
  }
  for (const Node& a : n.args) out += token_binders(a);
  return out;
}

/// The lengths E5 tries: the shortest that holds every fixed position, offset, rank and
/// reduction (2 at least), one more, and tokens_for(). A threshold a minimum crosses only where
/// every token does (min(t) relu(L - 1)) is crossed on short sequences, almost never on long
/// ones. Each within the budget for one sequence of every parameter draw (a deep nesting visits
/// T^m tuples a sequence: seven indices at 15 tokens took half a minute a target, thirteen at 3
/// as long), the longest shortened to fit; none where the shortest does not fit (the tests are
/// then not made: docs/infoflow_engine.md, E5).
std::vector<long> lengths_for(const targets::Formula& formula, const targets::Bindings& bindings) {
  const auto fits = [&](long tokens) {
    return 2 * tuples_per_evaluation(formula.root(), static_cast<double>(tokens)) *
               static_cast<double>(kParameterSeeds) <=
           kSampleBudget;
  };
  long longest = tokens_for(formula, bindings);
  const long shortest =
      std::max({2L, longest - kSpareTokens, token_binders(formula.root())});
  longest = std::max(longest, shortest + 1);
  while (longest > shortest + 1 && !fits(longest)) --longest;
  std::vector<long> out;
  for (const long tokens : {shortest, shortest + 1, longest}) {
    if (fits(tokens) && (out.empty() || out.back() < tokens)) out.push_back(tokens);
  }
  return out;
}

/// Runs `check(tokens)` at each of E5's lengths until it returns false (decided). A length too
/// short for the formula's reductions (t1 < t2 < t3 at 2 tokens: no index tuple) is skipped;
/// an error at the longest, or no length at all, leaves the test undecided: false.
template <class Check>
bool at_each_length(const targets::Formula& formula, const targets::Bindings& bindings,
                    Check check) {
  const std::vector<long> lengths = lengths_for(formula, bindings);
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    try {
      if (!check(lengths[i])) return true;
    } catch (const InputError&) {
      if (i + 1 == lengths.size()) return false;
    }
  }
  return !lengths.empty();
}

/// How many sequences fit the budget of index tuples, at most `wanted`.
long draws_within_budget(const targets::Formula& formula, long tokens, long wanted) {
  const double per_draw = 2 * tuples_per_evaluation(formula.root(), static_cast<double>(tokens));
  return std::clamp(static_cast<long>(kTupleBudget / per_draw), 1L, wanted);
}

/// The evaluator of parameter draw `seed`: its token dimension cycles through kTokenDims and
/// the target's own d (`token_dim`, 0 if not known).
targets::Evaluator evaluator(const targets::Formula& formula, targets::Bindings bindings,
                             long tokens, std::uint64_t seed, long token_dim) {
  bindings["T"] = tokens;
  std::vector<long> dims(std::begin(kTokenDims), std::end(kTokenDims));
  if (token_dim > 0 && std::find(dims.begin(), dims.end(), token_dim) == dims.end())
    dims.push_back(token_dim);
  return {formula, bindings, dims[seed % dims.size()], seed};
}

/// Scales each sequence of `x` (its `tokens` columns) by e^u, u uniform in +-kLogScaleSpread: a
/// threshold such as relu(L - 3) is crossed, which unit-scale tokens rarely do.
void spread_scales(Rng& rng, long tokens, Eigen::MatrixXd& x) {
  for (long start = 0; start < x.cols(); start += tokens)
    x.middleCols(start, tokens) *= std::exp(kLogScaleSpread * (2 * rng.uniform() - 1));
}

/// Whether permuting the tokens of `draws` random sequences of length `tokens` changes a value,
/// for the parameters of `seed`.
bool permutation_changes(const targets::Formula& formula, const targets::Bindings& bindings,
                         long tokens, long draws, std::uint64_t seed, long token_dim) {
  const targets::Evaluator f = evaluator(formula, bindings, tokens, seed, token_dim);
  Rng rng(seed);
  for (long done = 0; done < draws; done += kBatch) {
    const long n = std::min(kBatch, draws - done);
    Eigen::MatrixXd x(f.token_dim(), n * tokens);
    Eigen::MatrixXd permuted(f.token_dim(), n * tokens);
    draw(rng, tokens, x, &permuted);
    Eigen::VectorXd y(n);
    Eigen::VectorXd z(n);
    f(x, y);
    f(permuted, z);
    const double tol = tolerance(y, z);
    for (long i = 0; i < n; ++i) {
      if (differ(y(i), z(i), tol)) return true;
    }
  }
  return false;
}

/// The formula's values on `n` random sequences of `tokens` tokens, for each draw of the
/// parameters and d in turn, at unit scale or spread (spread_scales()); `visit(y)` returns false
/// to stop. Throws InputError where the formula cannot be evaluated.
template <class Visit>
void values_per_draw(const targets::Formula& formula, const targets::Bindings& bindings,
                     long token_dim, long tokens, long n, bool spread, Visit visit) {
  for (std::uint64_t seed = 1; seed <= kParameterSeeds; ++seed) {
    const targets::Evaluator f = evaluator(formula, bindings, tokens, seed, token_dim);
    Rng rng(seed);
    Eigen::MatrixXd x(f.token_dim(), n * tokens);
    draw(rng, tokens, x, nullptr);
    if (spread) spread_scales(rng, tokens, x);
    Eigen::VectorXd y(n);
    f(x, y);
    if (!visit(y)) return;
  }
}

}  // namespace

std::optional<bool> changes_when_tokens_permuted(const targets::Formula& formula,
                                                 const targets::Bindings& bindings,
                                                 long token_dim) {
  // One draw at each length must fit the budget of index tuples, as in E5: the longer length
  // is shortened to fit, and no test is made where the shorter does not. (At least one draw
  // each was made whatever it cost: kth(1024, s != t by ...) visited 2 x 8,256^2 pairs a draw
  // at 8 x 1,032 tokens, 24 draws, seconds a target.)
  const auto fits = [&](long tokens) {
    return 2 * tuples_per_evaluation(formula.root(), static_cast<double>(tokens)) <= kTupleBudget;
  };
  const long short_length = tokens_for(formula, bindings);
  if (!fits(short_length)) return std::nullopt;
  long longer = kLongerBy * short_length;
  if (!fits(longer)) {
    long low = short_length;  // fits; `longer` does not
    while (longer - low > 1) {
      const long middle = low + (longer - low) / 2;
      (fits(middle) ? low : longer) = middle;
    }
    longer = low;
  }
  std::vector<long> lengths{short_length};
  if (longer > short_length) lengths.push_back(longer);
  try {
    for (const long tokens : lengths) {
      // Half the draws at each length, spread over the parameter draws.
      const long per_seed =
          draws_within_budget(formula, tokens, kDraws / 2 / static_cast<long>(kParameterSeeds));
      for (std::uint64_t seed = 1; seed <= kParameterSeeds; ++seed) {
        if (permutation_changes(formula, bindings, tokens, per_seed, seed, token_dim)) return true;
      }
    }
    return false;
  } catch (const InputError&) {
    return std::nullopt;
  }
}

bool same_values(const targets::Formula& a, const targets::Formula& b,
                 const targets::Bindings& bindings, long token_dim) {
  const long short_length = std::max(tokens_for(a, bindings), tokens_for(b, bindings));
  try {
    // Two and three tokens too: a constraint that rarely binds on long random sequences binds
    // on short ones (min(s != t) dot(x[s], x[t]) is on the diagonal when x[1] is short and near
    // x[2]), and the rewrite must hold on every sequence, not on typical ones. (Longer ones give
    // the diagonal fewer chances still.)
    for (const long tokens : {2L, 3L, short_length}) {
      const long per_seed =
          std::min(draws_within_budget(a, tokens, kDraws / 3 / static_cast<long>(kParameterSeeds)),
                   draws_within_budget(b, tokens, kDraws / 3 / static_cast<long>(kParameterSeeds)));
      for (std::uint64_t seed = 1; seed <= kParameterSeeds; ++seed) {
        const targets::Evaluator fa = evaluator(a, bindings, tokens, seed, token_dim);
        const targets::Evaluator fb = evaluator(b, bindings, tokens, seed, token_dim);
        Rng rng(seed);
        for (long done = 0; done < per_seed; done += kBatch) {
          const long n = std::min(kBatch, per_seed - done);
          Eigen::MatrixXd x(fa.token_dim(), n * tokens);
          draw(rng, tokens, x, nullptr);
          // As E5: a threshold (relu(L - 4)) is crossed by one token of a short sequence, where
          // the constraint binds, only at larger scales.
          spread_scales(rng, tokens, x);
          Eigen::VectorXd y(n);
          Eigen::VectorXd z(n);
          fa(x, y);
          fb(x, z);
          const double tol = tolerance(y, z);
          for (long i = 0; i < n; ++i) {
            if (!std::isfinite(y(i)) || !std::isfinite(z(i)) || differ(y(i), z(i), tol))
              return false;
          }
        }
      }
    }
    return true;
  } catch (const InputError&) {
    return false;
  }
}

std::optional<double> constant_value(const targets::Formula& formula,
                                     const targets::Bindings& bindings, long token_dim,
                                     bool every_length) {
  std::optional<double> value;
  bool constant = true;
  const bool known = at_each_length(formula, bindings, [&](long tokens) {
    const long n = draws_within_budget(formula, tokens, kConstantDraws);
    constant = constant && n >= 2;  // one sequence tells nothing
    if (!every_length) value.reset();  // a constant may depend on the parameters and on T (sum(t) 1)
    // At random scales: E4 keeps unit scale, where a saturated tanh(20 L) rounds to 1.0 for
    // several tokens, a tie of the floats, not of the target.
    if (constant) {
      values_per_draw(formula, bindings, token_dim, tokens, n, true, [&](const Eigen::VectorXd& y) {
        const double tol = tolerance(y, y);
        // Each draw on its own (a constant may depend on the parameters), or all against one.
        const double first = every_length && value ? *value : y(0);
        for (long i = 0; i < n; ++i) {
          if (!std::isfinite(y(i)) || differ(first, y(i), tol)) constant = false;
        }
        if (constant && !value) value = y(0);
        return constant;
      });
    }
    return constant;
  });
  // At the longest length, for the first draw of the parameters.
  return known && constant ? value : std::nullopt;
}

std::optional<int> constant_sign(const targets::Formula& formula,
                                 const targets::Bindings& bindings, long token_dim) {
  bool finite = true;
  bool negative = false;
  bool positive = false;
  const auto undecided = [&] { return finite && !(negative && positive); };
  const bool known = at_each_length(formula, bindings, [&](long tokens) {
    const long n = draws_within_budget(formula, tokens, kConstantDraws);
    values_per_draw(formula, bindings, token_dim, tokens, n, true, [&](const Eigen::VectorXd& y) {
      finite = finite && y.allFinite();
      negative = negative || (y.array() < 0).any();
      positive = positive || (y.array() > 0).any();
      return undecided();
    });
    return undecided();
  });
  if (!known || !finite || negative == positive) return std::nullopt;
  return positive ? 1 : -1;
}

bool undefined_somewhere(const targets::Formula& formula, const targets::Bindings& bindings,
                         long token_dim) {
  bool finite = true;
  // A value that is not a number on some length is undefined, whatever the others gave.
  (void)at_each_length(formula, bindings, [&](long tokens) {
    const long n = draws_within_budget(formula, tokens, kConstantDraws);
    values_per_draw(formula, bindings, token_dim, tokens, n, false, [&](const Eigen::VectorXd& y) {
      finite = finite && y.allFinite();
      return finite;
    });
    return finite;
  });
  return !finite;
}

}  // namespace infoflow::theorems::detail
