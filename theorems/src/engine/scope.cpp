// The scope check (docs/infoflow_engine.md, "S Scope"): where a target leaves the hypotheses of
// the catalogue's theorems, the verdict is "outside the framework" with the reason.
#include "scope.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "infoflow/core/error.hpp"
#include "values.hpp"

namespace infoflow::theorems::detail {

namespace {

using targets::Node;
using K = targets::Node::Kind;

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

/// Index names `n` reads that no reduction inside it binds.
void free_indices(const Node& n, std::set<std::string>& out) {  // NOLINT(misc-no-recursion)
  std::set<std::string> inner;
  if (n.kind == K::kRef && !n.index.empty()) inner.insert(n.index);
  for (const targets::IndexConstraint& c : n.constraints) inner.insert({c.left, c.right});
  for (const Node& a : n.args) free_indices(a, inner);
  for (const targets::Binder& b : n.binders) inner.erase(b.name);
  out.insert(inner.begin(), inner.end());
}

class Checker {
 public:
  Checker(const targets::Bindings& bindings, long token_dim)
      : bindings_(bindings), token_dim_(token_dim) {}

  std::optional<std::string> check(const Node& n) {  // NOLINT(misc-no-recursion)
    if (n.kind == K::kReduce) {
      for (const targets::Binder& b : n.binders) binders_.push_back(&b);
    }
    std::optional<std::string> out;
    for (const Node& a : n.args) {
      if (!out) out = check(a);
    }
    if (n.kind == K::kReduce) binders_.resize(binders_.size() - n.binders.size());
    if (out) return out;
    const auto whole = [](const Node& m) { return "'" + targets::to_text(m) + "'"; };
    if (n.kind == K::kDiv && reads_tokens(n.args[1]) && !fixed_sign(n.args[1])) {
      return fmt::format(
          "{} divides by {}, a token quantity that takes both signs on random sequences, so "
          "comes arbitrarily near 0: the target is not Lipschitz, and its variation is not "
          "bounded on the input distribution, which every rate of the catalogue assumes",
          whole(n), whole(n.args[1]));
    }
    if (n.kind == K::kPow && reads_tokens(n.args[0]) && n.args[1].kind == K::kNumber &&
        n.args[1].number < 0 && !fixed_sign(n.args[0])) {
      return fmt::format("{} is a negative power of {}, which takes both signs on random "
                         "sequences: the target is not bounded near its zeros, which every rate "
                         "of the catalogue assumes",
                         whole(n), whole(n.args[0]));
    }
    if (n.kind == K::kCall && (n.name == "log" || n.name == "sqrt") && reads_tokens(n.args[0]) &&
        fixed_sign(n.args[0]) != 1) {
      return fmt::format("{} takes the {} of {}, a token quantity that is not always positive on "
                         "random sequences: the target is undefined or not Lipschitz there, "
                         "which every rate of the catalogue assumes",
                         whole(n), n.name, whole(n.args[0]));
    }
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

 private:
  /// +1 or -1 where `n` keeps that sign over every index tuple of random sequences; nullopt
  /// where it takes both (or is 0 throughout). Where `n` cannot be evaluated on its own (a named
  /// integer without a value) no verdict is drawn: +1.
  std::optional<int> fixed_sign(const Node& n) const {
    std::set<std::string> free;
    free_indices(n, free);
    std::vector<std::string> binders;
    for (const targets::Binder* b : binders_) {
      if (free.count(b->name) == 0) continue;
      binders.push_back(b->has_range ? b->name + " = " + b->low.text() + ".." + b->high.text()
                                     : b->name);
    }
    // The smallest and the largest value over the tuples: one sign for both, or none.
    std::optional<targets::Formula> low;
    std::optional<targets::Formula> high;
    try {
      const std::string text = targets::to_text(n);
      const std::string over = fmt::format("{}", fmt::join(binders, ", "));
      low = targets::Formula::parse(binders.empty() ? text : "min(" + over + ") (" + text + ")");
      high = targets::Formula::parse(binders.empty() ? text : "max(" + over + ") (" + text + ")");
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
  std::vector<const targets::Binder*> binders_;
};

}  // namespace

std::optional<std::string> broken_hypothesis(const targets::Formula& formula,
                                             const targets::Bindings& bindings, long token_dim) {
  return Checker(bindings, token_dim).check(formula.root());
}

}  // namespace infoflow::theorems::detail
