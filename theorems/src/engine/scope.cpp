// The scope check (docs/infoflow_engine.md, "S Scope"): where a target leaves the hypotheses of
// the catalogue's theorems, the verdict is "outside the framework" with the reason.
#include "scope.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "infoflow/core/error.hpp"
#include "infoflow/targets/node_algebra.hpp"
#include "values.hpp"

namespace infoflow::theorems::detail {

namespace {

using targets::Node;
using K = targets::Node::Kind;

/// A number written as one (2, -1): NaN for anything else.
double number(const Node& n) {  // NOLINT(misc-no-recursion)
  if (n.kind == K::kNumber) return n.number;
  if (n.kind == K::kNeg) return -number(n.args[0]);
  return std::numeric_limits<double>::quiet_NaN();
}

/// The hypothesis a reason names: every entry of the catalogue lists it in `assumes`.
constexpr const char* kHypothesis =
    "and every rate of the catalogue assumes a target Lipschitz in each token where the tokens "
    "concentrate (the hypothesis in each entry's `assumes`: docs/infoflow_engine.md, S Scope)";

/// How fast a value grows with the tokens' size: 0 bounded or constant, 1 linear, 2 quadratic;
/// infinity for an exponential of a growing value.
double growth(const Node& n) {  // NOLINT(misc-no-recursion)
  constexpr double kExponential = std::numeric_limits<double>::infinity();
  const auto of = [](const Node& a) { return growth(a); };
  switch (n.kind) {
    case K::kNumber:
      return 0;
    case K::kRef:
      return n.name == "x" ? 1 : 0;
    case K::kAdd:
    case K::kSub:
      return std::max(of(n.args[0]), of(n.args[1]));
    case K::kNeg:
    case K::kDiv:  // a denominator that crosses 0 is the division check's
    case K::kReduce:
      return of(n.args[0]);
    case K::kMul:
      return of(n.args[0]) + of(n.args[1]);
    case K::kPow:
      if (n.args[1].kind == K::kNumber && n.args[1].number >= 0) return of(n.args[0]) * n.args[1].number;
      return of(n.args[0]) > 0 ? kExponential : 0;
    case K::kCall:
      if (n.name == "dot" || n.name == "bilinear") {
        double sum = 0;
        for (const Node& a : n.args) sum += of(a);
        return sum;
      }
      if (n.name == "sqnorm") return 2 * of(n.args[0]);
      if (n.name == "sqrt") return of(n.args[0]) / 2;
      if (n.name == "exp") return of(n.args[0]) > 0 ? kExponential : 0;
      if (n.name == "tanh" || n.name == "sin" || n.name == "cos" || n.name == "log") return 0;
      return of(n.args[0]);  // norm, abs, relu
  }
  return 0;
}

bool reads_tokens(const Node& n) {  // NOLINT(misc-no-recursion)
  if ((n.kind == K::kRef && n.name == "x") || n.kind == K::kReduce) return true;
  return std::any_of(n.args.begin(), n.args.end(), [](const Node& a) { return reads_tokens(a); });
}

class Checker {
 public:
  Checker(const targets::Bindings& bindings, long token_dim)
      : bindings_(bindings), token_dim_(token_dim) {}

  std::optional<std::string> check(const Node& n) {  // NOLINT(misc-no-recursion)
    if (n.kind == K::kReduce) {
      reductions_.push_back(&n);
    }
    std::optional<std::string> out;
    for (const Node& a : n.args) {
      if (!out) out = check(a);
    }
    if (n.kind == K::kReduce) reductions_.pop_back();
    if (out) return out;
    if (auto why = lipschitz_check(n)) return why;
    return exp_check(n);
  }

 private:
  static std::string whole(const Node& m) { return "'" + targets::to_text(m) + "'"; }

  std::optional<std::string> lipschitz_check(const Node& n) {
    // An outer function is inside where the composition is Lipschitz on its argument's range:
    // 1/y, y^-p and log y are not near y = 0, sqrt y is not near 0 unless y is a sum of
    // squares (sqrt(sqnorm(u)) is norm(u)).
    const Node& y = n.args.empty() ? n : n.args[n.kind == K::kDiv ? 1 : 0];
    const bool divides = n.kind == K::kDiv || (n.kind == K::kPow && number(n.args[1]) < 0);
    const bool log_or_sqrt = n.kind == K::kCall && (n.name == "log" || n.name == "sqrt");
    if (!(divides || log_or_sqrt) || !reads_tokens(y)) return std::nullopt;
    if (log_or_sqrt && fixed_sign(y) != 1) {
      return fmt::format(
          "{} takes the {} of {}, a token quantity that is not always positive on "
          "random sequences: the target is undefined there, {}",
          whole(n), n.name, whole(y), kHypothesis);
    }
    if (n.kind == K::kCall && n.name == "sqrt" && sum_of_squares(y)) return std::nullopt;
    const std::optional<std::string> zero = reaches_zero(y);
    if (!zero) return std::nullopt;
    const std::string what = n.kind == K::kDiv   ? "divides by"
                             : n.kind == K::kPow ? "is a negative power of"
                                                 : "takes the " + n.name + " of";
    const std::string outer = n.kind == K::kDiv   ? "1/y"
                              : n.kind == K::kPow ? "y^(" + targets::to_text(n.args[1]) + ")"
                                                  : n.name + "(y)";
    return fmt::format(
        "{} {} {}, which {}: {} is not Lipschitz near y = 0, so the target is "
        "not Lipschitz on the range of its argument, {}",
        whole(n), what, whole(y), *zero, outer, kHypothesis);
    return std::nullopt;
  }

  /// How `y` (a token quantity) comes arbitrarily near 0 on the inputs, or nullopt where it
  /// stays away from 0: it takes both signs on random sequences (so crosses 0), or is 0 where a
  /// factor, its argument or every term of its sum is (abs, even powers, relu, norms of vectors
  /// the tokens can cancel, products, reductions over tokens, whose tokens can all be alike).
  std::optional<std::string> reaches_zero(const Node& y) {  // NOLINT(misc-no-recursion)
    if (!reads_tokens(y)) return std::nullopt;
    if (y.kind == K::kReduce) {  // its body's sign is sampled over its own indices too
      reductions_.push_back(&y);
      std::optional<std::string> out = reaches_zero(y.args[0]);
      reductions_.pop_back();
      if (!out) return std::nullopt;
      return "is 0 where " + whole(y.args[0]) + " is at every index";
    }
    if (!fixed_sign(y)) return "takes both signs on random sequences, so crosses 0";
    const auto through = [&](const Node& z) -> std::optional<std::string> {
      if (!reaches_zero(z)) return std::nullopt;
      return "is 0 where " + whole(z) + " is";
    };
    switch (y.kind) {
      case K::kNeg:
        return through(y.args[0]);
      case K::kDiv:
        return through(y.args[0]);
      case K::kMul:
        if (auto z = through(y.args[0])) return z;
        return through(y.args[1]);
      case K::kPow:
        return number(y.args[1]) > 0 ? through(y.args[0]) : std::nullopt;
      case K::kAdd:
      case K::kSub:  // one sign throughout: 0 only where both terms are
        if (reaches_zero(y.args[0]) && reaches_zero(y.args[1]))
          return "is 0 where both " + whole(y.args[0]) + " and " + whole(y.args[1]) + " are";
        return std::nullopt;
      case K::kCall:
        if (y.name == "abs" || y.name == "tanh") return through(y.args[0]);
        if (y.name == "relu") return "is 0 wherever " + whole(y.args[0]) + " is not positive";
        if (y.name == "sqnorm" || y.name == "norm" ||
            (y.name == "dot" && y.args.size() == 2 && targets::same_expression(y.args[0], y.args[1]))) {
          return "is 0 where " + whole(y.args[0]) + " is the zero vector, which the tokens reach";
        }
        return std::nullopt;
      default:
        return std::nullopt;
    }
  }

  /// A sum of squares (with positive weights and constants), over tokens too: its sqrt is a
  /// Euclidean norm, Lipschitz in its terms, and so in the tokens.
  static bool sum_of_squares(const Node& y) {  // NOLINT(misc-no-recursion)
    switch (y.kind) {
      case K::kNumber:
        return y.number >= 0;
      case K::kAdd:
        return sum_of_squares(y.args[0]) && sum_of_squares(y.args[1]);
      case K::kMul:
        return (y.args[0].kind == K::kNumber && y.args[0].number > 0 &&
                sum_of_squares(y.args[1])) ||
               (y.args[1].kind == K::kNumber && y.args[1].number > 0 && sum_of_squares(y.args[0]));
      case K::kDiv:
        return y.args[1].kind == K::kNumber && y.args[1].number > 0 && sum_of_squares(y.args[0]);
      case K::kPow:
        return number(y.args[1]) == 2;
      case K::kReduce:  // max, min, k-th, sum or mean of sums of squares over tokens
        return sum_of_squares(y.args[0]);
      case K::kCall:
        return y.name == "sqnorm" ||
               (y.name == "dot" && y.args.size() == 2 && targets::same_expression(y.args[0], y.args[1]));
      default:
        return false;
    }
  }

  std::optional<std::string> exp_check(const Node& n) const {
    if (n.kind == K::kCall && n.name == "exp" && growth(n.args[0]) > 1) {
      return fmt::format(
          "{} grows without bound faster than an exponential of a linear score (its argument "
          "grows faster than linearly in the tokens): on Gaussian tokens its variance is "
          "infinite at a large enough scale, and the catalogue's rates assume a target of "
          "bounded variation",
          whole(n));
    }
    return std::nullopt;
  }

  /// +1 or -1 where `n` keeps that sign over every index tuple of random sequences; nullopt
  /// where it takes both (or is 0 throughout). Where `n` cannot be evaluated on its own (a named
  /// integer without a value) no verdict is drawn: +1.
  std::optional<int> fixed_sign(const Node& n) const {
    const std::vector<std::string> read =
        targets::free_indices(n, {.parameters = true, .constraints = true});
    const std::set<std::string> free(read.begin(), read.end());
    // The enclosing reductions' indices `n` reads, with their constraints (s != t keeps the
    // diagonal out: sqnorm(x[s] - x[t]) is positive there).
    Node over;
    over.kind = K::kReduce;
    for (const Node* r : reductions_) {
      for (const targets::Binder& b : r->binders) {
        if (free.count(b.name) != 0) over.binders.push_back(b);
      }
      for (const targets::IndexConstraint& c : r->constraints) {
        if (free.count(c.left) != 0 && free.count(c.right) != 0) over.constraints.push_back(c);
      }
    }
    // The smallest and the largest value over the tuples: one sign for both, or none.
    std::optional<targets::Formula> low;
    std::optional<targets::Formula> high;
    try {
      const auto reduced = [&](targets::ReduceOp op) {
        if (over.binders.empty()) return n;
        over.op = op;
        over.args = {n};
        return over;
      };
      low = targets::Formula::from_tree(reduced(targets::ReduceOp::kMin));
      high = targets::Formula::from_tree(reduced(targets::ReduceOp::kMax));
    } catch (const InputError&) {
      return 1;
    }
    for (const std::string& name : low->free_integers()) {
      if (name != "T" && bindings_.count(name) == 0) return 1;
    }
    const std::optional<int> below = constant_sign(*low, bindings_, token_dim_);
    if (below == 1) return 1;
    const std::optional<int> above = constant_sign(*high, bindings_, token_dim_);
    if (above == -1) return -1;
    return std::nullopt;
  }

  const targets::Bindings& bindings_;
  long token_dim_;
  std::vector<const Node*> reductions_;  ///< the reductions around the node checked
};

}  // namespace

std::optional<std::string> broken_hypothesis(const targets::Formula& formula,
                                             const targets::Bindings& bindings, long token_dim) {
  return Checker(bindings, token_dim).check(formula.root());
}

}  // namespace infoflow::theorems::detail
