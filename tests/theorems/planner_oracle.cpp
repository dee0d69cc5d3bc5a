// The exhaustive planner oracle: the formula tree read into the actions of docs/theory.md's rules,
// then every assignment of them to (layer, token class) slots tried. Nothing here calls the
// engine's compiler or placement search.
#include "theorems/planner_oracle.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace infoflow::planner_oracle {

namespace {

using targets::Node;
using Kind = Node::Kind;
using targets::ReduceOp;

constexpr double kZero = 1e-12;
/// Targets with more actions are out of range: the enumeration is exhaustive, not clever.
constexpr std::size_t kMaxActions = 4;

/// What a term needs of the network, before identical actions are merged.
struct Need {
  enum class What { kRetrieval, kChain, kPair, kTermMean, kVectorMean, kPositions };
  What what = What::kRetrieval;
  std::string score;  ///< kRetrieval, kChain: the score maximised; kPair: op, form, constraint
  long rank = 1;      ///< kChain: k
  /// kRetrieval: scores whose retrievals together serve instead (max |L| is at max L or min L).
  std::vector<std::string> either;
};

/// A term of the target's sum, read: the key under which like terms add up, and its needs.
struct Term {
  std::string key;
  double coefficient = 1;
  std::vector<Need> needs;
};

/// Ranged indices being unrolled (E0), with their current value.
using Unrolling = std::map<std::string, long>;

struct Reader {
  const targets::Bindings& bindings;
  std::vector<Term> terms;
  std::string error;

  bool fail(const std::string& why) {
    if (error.empty()) error = why;
    return false;
  }

  /// A parameter's name, a family member's with its unrolled index ("A[2]").
  static std::optional<std::string> parameter(const Node& n, const Unrolling& u) {
    if (n.kind != Kind::kRef || n.name == "x") return std::nullopt;
    if (n.index.empty()) return n.position > 0 ? n.name + "[" + std::to_string(n.position) + "]" : n.name;
    const auto it = u.find(n.index);
    if (it == u.end()) return std::nullopt;
    return n.name + "[" + std::to_string(it->second) + "]";
  }

  static bool is_token(const Node& n, const std::string& t) {
    return n.kind == Kind::kRef && n.name == "x" && n.index == t && n.offset == 0 &&
           n.position == 0 && n.position_name.empty();
  }

  /// sum_p c_p <p, x[t]>, or nothing where the node is not linear in x[t] alone.
  static std::optional<std::map<std::string, double>> linear(const Node& n, const std::string& t,
                                                             const Unrolling& u) {
    using Form = std::map<std::string, double>;
    switch (n.kind) {
      case Kind::kCall: {
        if (n.name != "dot" || n.args.size() != 2) return std::nullopt;
        for (int side = 0; side < 2; ++side) {
          if (!is_token(n.args[static_cast<std::size_t>(side)], t)) continue;
          if (const auto p = parameter(n.args[static_cast<std::size_t>(1 - side)], u)) return Form{{*p, 1.0}};
        }
        return std::nullopt;
      }
      case Kind::kAdd:
      case Kind::kSub: {
        auto left = linear(n.args[0], t, u);
        const auto right = linear(n.args[1], t, u);
        if (!left || !right) return std::nullopt;
        for (const auto& [p, c] : *right) (*left)[p] += n.kind == Kind::kAdd ? c : -c;
        return left;
      }
      case Kind::kNeg: {
        auto inner = linear(n.args[0], t, u);
        if (inner) {
          for (auto& [p, c] : *inner) c = -c;
        }
        return inner;
      }
      case Kind::kMul:
      case Kind::kDiv: {
        const bool number_left = n.kind == Kind::kMul && n.args[0].kind == Kind::kNumber;
        const bool number_right = n.args[1].kind == Kind::kNumber;
        if (!number_left && !number_right) return std::nullopt;
        double factor = number_left ? n.args[0].number : n.args[1].number;
        if (n.kind == Kind::kDiv) {
          if (factor == 0) return std::nullopt;
          factor = 1 / factor;
        }
        auto inner = linear(number_left ? n.args[1] : n.args[0], t, u);
        if (inner) {
          for (auto& [p, c] : *inner) c *= factor;
        }
        return inner;
      }
      default:
        return std::nullopt;
    }
  }

  /// A score as a key, scaled to a largest coefficient of 1 (a positive factor leaves the argmax
  /// alone), negated for a minimum; `scale` gets the factor taken out. Empty: no score left.
  static std::string score_key(std::map<std::string, double> form, bool minimum, double& scale) {
    double largest = 0;
    for (const auto& [p, c] : form) largest = std::max(largest, std::abs(c));
    scale = largest;
    if (largest <= kZero) return "";
    std::string key;
    for (const auto& [p, c] : form) {
      if (std::abs(c) <= kZero * largest) continue;
      const double v = (minimum ? -c : c) / largest;
      key += (key.empty() ? "" : ",") + p + ":" + targets::number_text(v);
    }
    return key;
  }

  /// Whether the node reads x (a token or a position); if not, it is a constant of the sequence.
  static bool reads_x(const Node& n) {
    if (n.kind == Kind::kRef && n.name == "x") return true;
    return std::any_of(n.args.begin(), n.args.end(), [](const Node& a) { return reads_x(a); });
  }

  static bool has_reduction(const Node& n) {
    if (n.kind == Kind::kReduce) return true;
    return std::any_of(n.args.begin(), n.args.end(), [](const Node& a) { return has_reduction(a); });
  }

  /// Every x the node reads is x[t] (a token-wise function of x[t]), and it reduces nothing.
  static bool token_wise(const Node& n, const std::string& t) {
    if (n.kind == Kind::kReduce) return false;
    if (n.kind == Kind::kRef && n.name == "x") return is_token(n, t);
    return std::all_of(n.args.begin(), n.args.end(), [&](const Node& a) { return token_wise(a, t); });
  }

  /// Whether every x the node reads is at a literal position (x[3]), with no reduction.
  static bool fixed_positions_only(const Node& n) {
    if (n.kind == Kind::kReduce) return false;
    if (n.kind == Kind::kRef && n.name == "x")
      return n.position > 0 && n.index.empty() && n.position_name.empty() && n.offset == 0;
    return std::all_of(n.args.begin(), n.args.end(), [](const Node& a) { return fixed_positions_only(a); });
  }

  static std::string unrolled_text(const Node& n, const Unrolling& u) {
    std::string out = targets::to_text(n);
    for (const auto& [i, v] : u) out += " @" + i + "=" + std::to_string(v);
    return out;
  }

  /// The sum's terms: numbers and signs folded into coefficients, parameter ranges unrolled.
  bool flatten(const Node& n, double coefficient, Unrolling& u) {
    switch (n.kind) {
      case Kind::kNumber:
        return true;  // a constant term needs no action
      case Kind::kAdd:
        return flatten(n.args[0], coefficient, u) && flatten(n.args[1], coefficient, u);
      case Kind::kSub:
        return flatten(n.args[0], coefficient, u) && flatten(n.args[1], -coefficient, u);
      case Kind::kNeg:
        return flatten(n.args[0], -coefficient, u);
      case Kind::kMul:
        if (n.args[0].kind == Kind::kNumber) return flatten(n.args[1], coefficient * n.args[0].number, u);
        if (n.args[1].kind == Kind::kNumber) return flatten(n.args[0], coefficient * n.args[1].number, u);
        break;
      case Kind::kDiv:
        if (n.args[1].kind == Kind::kNumber && n.args[1].number != 0)
          return flatten(n.args[0], coefficient / n.args[1].number, u);
        break;
      case Kind::kReduce:
        if (n.op == ReduceOp::kSum && n.binders.size() == 1 && n.binders[0].has_range &&
            n.constraints.empty() && !n.has_key()) {
          const targets::Binder& b = n.binders[0];
          const long low = targets::resolve(b.low, bindings);
          const long high = targets::resolve(b.high, bindings);
          if (high - low >= static_cast<long>(kMaxActions)) return fail("a range longer than the oracle unrolls");
          for (long v = low; v <= high; ++v) {
            u[b.name] = v;
            if (!flatten(n.args[0], coefficient, u)) return false;
          }
          u.erase(b.name);
          return true;
        }
        break;
      default:
        break;
    }
    Term term;
    term.coefficient = coefficient;
    if (!read_term(n, u, term)) return false;
    if (!term.key.empty()) terms.push_back(std::move(term));
    return true;
  }

  /// One term: a reduction the rules read, a product of such, or a function of fixed positions.
  bool read_term(const Node& n, const Unrolling& u, Term& term) {
    if (!reads_x(n)) return true;  // a function of the parameters alone: a constant
    if (!tame(n)) return fail("a function the catalogue's Lipschitz hypothesis may not cover (S)");
    if (!has_reduction(n)) {
      if (!fixed_positions_only(n)) return fail("a term reading x neither in a reduction nor at fixed positions");
      term.key = "positions:" + unrolled_text(n, u);
      term.needs.push_back({Need::What::kPositions, "", 1, {}});
      return true;
    }
    if (n.kind == Kind::kMul) {  // a product of terms: the readout's FFN multiplies their values
      Term left;
      Term right;
      if (!read_term(n.args[0], u, left) || !read_term(n.args[1], u, right)) return false;
      for (const Term* side : {&left, &right}) {
        for (const Need& need : side->needs) {
          if (need.what == Need::What::kTermMean || need.what == Need::What::kVectorMean)
            return fail("a mean inside a product");
        }
      }
      term.key = "product:" + unrolled_text(n, u);
      term.needs = left.needs;
      term.needs.insert(term.needs.end(), right.needs.begin(), right.needs.end());
      return true;
    }
    if (n.kind == Kind::kCall && n.args.size() == 1 &&
        (n.name == "abs" || n.name == "relu" || n.name == "tanh" || n.name == "sin" || n.name == "cos")) {
      // A Lipschitz function of the values: the readout's FFN applies it.
      Term inner;
      if (!read_term(n.args[0], u, inner)) return false;
      for (const Need& need : inner.needs) {
        if (need.what == Need::What::kTermMean || need.what == Need::What::kVectorMean)
          return fail("a mean inside a function");
      }
      term.key = "function:" + unrolled_text(n, u);
      term.needs = inner.needs;
      return true;
    }
    if (n.kind != Kind::kReduce) return fail("a function of a reduction other than a product");
    for (const targets::Binder& b : n.binders) {
      if (b.has_range) return fail("a range and tokens in one reduction");
    }
    if (n.binders.size() == 1 && n.constraints.empty()) return one_token(n, u, term);
    if (n.binders.size() == 2) return two_tokens(n, u, term);
    return fail("a reduction over more than two tokens");
  }

  bool one_token(const Node& n, const Unrolling& u, Term& term) {
    const std::string& t = n.binders[0].name;
    const Node& body = n.args[0];
    if (n.op == ReduceOp::kSum) {
      if (n.has_key() || !token_wise(body, t)) return fail("a sum over tokens of a term that is not token-wise");
      // R6: every mean that is a term of the sum is one value, the mean of their sum.
      const auto form = linear(body, t, u);
      std::string function;
      if (form) {
        double scale = 1;
        function = score_key(*form, false, scale);
        if (function.empty()) return true;
        term.coefficient *= scale;
      } else if (is_sqnorm(body, t)) {
        function = "sqnorm";
      } else {
        function = unrolled_text(body, u);
      }
      term.key = "mean:" + function;
      term.needs.push_back({Need::What::kTermMean, function, 1, {}});
      return true;
    }
    const bool selection = n.has_key();
    if (selection && !token_wise(body, t)) return fail("a selection's value that is not token-wise");
    long rank = 1;
    if (n.op == ReduceOp::kKth) {
      if (!n.rank.name.empty() && n.rank.name == "T") return fail("a rank named T");
      rank = targets::resolve(n.rank, bindings);
      if (rank < 1 || rank > static_cast<long>(kMaxActions)) return fail("a rank past the oracle's chains");
    }
    // g(max y) = max g(y) for a non-decreasing g: the token of the largest y (kth likewise); a
    // selection's key only through a strictly increasing g, since a flat one ties tokens.
    const Node* scored = selection ? &n.args[1] : &body;
    bool peeled = false;
    while (scored->kind == Kind::kCall && scored->args.size() == 1 &&
           (scored->name == "exp" || scored->name == "tanh" || (scored->name == "relu" && !selection))) {
      scored = &scored->args[0];
      peeled = true;
    }
    const bool minimum = n.op == ReduceOp::kMin;
    std::string score;
    if (const auto form = linear(*scored, t, u)) {
      double scale = 1;
      score = score_key(*form, minimum, scale);
      if (score.empty()) return fail("a score that cancels");
      // max(t) (c y) = c max(t) y for c > 0, and min(t) y = -max(t) (-y)
      if (!selection && !peeled) term.coefficient *= minimum ? -scale : scale;
    } else if (token_wise(*scored, t)) {
      // Any token-wise function of x[t] is a key feature the encoder computes before layer 1
      // (docs/theory.md, section 3): one retrieval, named by the function. A selection's key
      // must not tie (a flat relu, no x at all): ties pick a token by order (E4).
      if (selection && (!reads_x(*scored) || calls(*scored, "relu"))) return fail("a key that ties");
      double scale = 1;
      score = "f(" + signed_key(*scored, minimum, scale, [&](const Node& m) { return unrolled_text(m, u); }) + ")";
      if (!selection && !peeled) term.coefficient *= minimum ? -scale : scale;
    } else {
      return fail("a score that is not token-wise");
    }
    const std::string op = n.op == ReduceOp::kKth ? "kth" + std::to_string(rank) : "extremum";
    term.key = op + ":" + score + (selection ? " value " + unrolled_text(body, u) : "") +
               (peeled ? " through " + unrolled_text(selection ? n.args[1] : body, u) : "");
    if (rank == 1) {
      Need need{Need::What::kRetrieval, score, 1, {}};
      // |g(L)| and g(L)^p (p even), g affine, are largest where L is largest or smallest: the
      // maximum is also read off the two retrievals of L and -L.
      if (n.op == ReduceOp::kMax && !peeled) {
        if (const auto form = magnitude_of(*scored, t, u)) {
          double scale = 1;
          need.either = {score_key(*form, false, scale), score_key(*form, true, scale)};
          if (need.either[0].empty()) need.either.clear();
        }
      }
      term.needs.push_back(std::move(need));
    } else
      term.needs.push_back({Need::What::kChain, score, rank, {}});
    return true;
  }

  /// L where the node is |g(L)|, |g(L)|^p (p > 0) or g(L)^p (p even), or g(L) * g(L), for an
  /// affine g (a constant added, a sign) and L linear in x[t].
  static std::optional<std::map<std::string, double>> magnitude_of(const Node& n, const std::string& t,
                                                                   const Unrolling& u) {
    const Node* inner = nullptr;
    if (n.kind == Kind::kCall && n.name == "abs" && n.args.size() == 1) {
      inner = &n.args[0];
    } else if (n.kind == Kind::kPow && n.args[1].kind == Kind::kNumber) {
      const double p = n.args[1].number;
      const Node& base = n.args[0];
      if (base.kind == Kind::kCall && base.name == "abs" && base.args.size() == 1 && p > 0)
        inner = &base.args[0];
      else if (p >= 2 && std::fmod(p, 2) == 0)
        inner = &base;
    } else if (n.kind == Kind::kMul && targets::to_text(n.args[0]) == targets::to_text(n.args[1])) {
      inner = &n.args[0];
    }
    if (inner == nullptr) return std::nullopt;
    return affine(*inner, t, u);
  }

  /// The linear part of an affine function of x[t]: constants (no x) added or subtracted, signs.
  static std::optional<std::map<std::string, double>> affine(const Node& n, const std::string& t,
                                                             const Unrolling& u) {
    if (n.kind == Kind::kNeg) return affine(n.args[0], t, u);
    if (n.kind == Kind::kAdd || n.kind == Kind::kSub) {
      if (!reads_x(n.args[1])) return affine(n.args[0], t, u);
      if (!reads_x(n.args[0])) return affine(n.args[1], t, u);
    }
    return linear(n, t, u);
  }

  /// Functions Lipschitz where the tokens concentrate, which the catalogue's rates assume (S):
  /// no log, sqrt, exp, division by a quantity, negative or fractional power.
  static bool tame(const Node& n) {
    switch (n.kind) {
      case Kind::kCall:
        if (n.name == "log" || n.name == "sqrt") return false;
        if (n.name == "exp" && !linear_in_tokens(n.args[0])) return false;  // exp(|x|^2): unbounded variance
        break;
      case Kind::kDiv:
        if (n.args[1].kind != Kind::kNumber) return false;
        break;
      case Kind::kPow:
        if (n.args[1].kind != Kind::kNumber || n.args[1].number < 1 ||
            std::fmod(n.args[1].number, 1) != 0)
          return false;
        break;
      default:
        break;
    }
    return std::all_of(n.args.begin(), n.args.end(), [](const Node& a) { return tame(a); });
  }

  /// Numbers, parameters and dot(p, x[.]) combined linearly.
  static bool linear_in_tokens(const Node& n) {
    switch (n.kind) {
      case Kind::kNumber:
        return true;
      case Kind::kRef:
        return n.name != "x";
      case Kind::kCall:
        return n.name == "dot" && n.args.size() == 2 &&
               ((n.args[0].name == "x") != (n.args[1].name == "x")) && !has_reduction(n);
      case Kind::kAdd:
      case Kind::kSub:
        return linear_in_tokens(n.args[0]) && linear_in_tokens(n.args[1]);
      case Kind::kNeg:
        return linear_in_tokens(n.args[0]);
      case Kind::kMul:
        return (n.args[0].kind == Kind::kNumber && linear_in_tokens(n.args[1])) ||
               (n.args[1].kind == Kind::kNumber && linear_in_tokens(n.args[0]));
      case Kind::kDiv:
        return n.args[1].kind == Kind::kNumber && linear_in_tokens(n.args[0]);
      default:
        return false;
    }
  }

  static bool calls(const Node& n, const std::string& function) {
    if (n.kind == Kind::kCall && n.name == function) return true;
    return std::any_of(n.args.begin(), n.args.end(), [&](const Node& a) { return calls(a, function); });
  }

  /// A score as a sum of terms with their numbers, negated for a minimum and scaled to a largest
  /// number of 1, sorted: max(-y) and min(y) (or 2 y and y) are one score. `name` names a term.
  static std::string signed_key(const Node& n, bool minimum, double& scale,
                                const std::function<std::string(const Node&)>& name) {
    std::map<std::string, double> terms;
    std::function<void(const Node&, double)> add = [&](const Node& m, double c) {
      if (m.kind == Kind::kAdd || m.kind == Kind::kSub) {
        add(m.args[0], c);
        add(m.args[1], m.kind == Kind::kAdd ? c : -c);
      } else if (m.kind == Kind::kNeg) {
        add(m.args[0], -c);
      } else if (m.kind == Kind::kMul && m.args[0].kind == Kind::kNumber) {
        add(m.args[1], c * m.args[0].number);
      } else if (m.kind == Kind::kMul && m.args[1].kind == Kind::kNumber) {
        add(m.args[0], c * m.args[1].number);
      } else if (m.kind == Kind::kDiv && m.args[1].kind == Kind::kNumber && m.args[1].number != 0) {
        add(m.args[0], c / m.args[1].number);
      } else {
        terms[name(m)] += c;
      }
    };
    add(n, minimum ? -1 : 1);
    double largest = 0;
    for (const auto& [text, c] : terms) largest = std::max(largest, std::abs(c));
    scale = largest;
    std::string key;
    for (const auto& [text, c] : terms) {
      if (std::abs(c) <= kZero * largest) continue;
      key += (key.empty() ? "" : " + ") + targets::number_text(c / largest) + " " + text;
    }
    return key;
  }

  static bool is_sqnorm(const Node& n, const std::string& t) {
    if (n.kind != Kind::kCall) return false;
    if (n.name == "sqnorm" && n.args.size() == 1) return is_token(n.args[0], t);
    return n.name == "dot" && n.args.size() == 2 && is_token(n.args[0], t) && is_token(n.args[1], t);
  }

  /// A pairwise form of x[s] and x[t]: "dot" or "bilinear:A" (and whether it is symmetric).
  static std::optional<std::string> pair_form(const Node& n, const std::string& s, const std::string& t,
                                              const Unrolling& u) {
    if (n.kind != Kind::kCall) return std::nullopt;
    if (n.name == "dot" && n.args.size() == 2 &&
        ((is_token(n.args[0], s) && is_token(n.args[1], t)) || (is_token(n.args[0], t) && is_token(n.args[1], s))))
      return "dot";
    if (n.name == "bilinear" && n.args.size() == 3) {
      const auto m = parameter(n.args[0], u);
      if (!m) return std::nullopt;
      if (is_token(n.args[1], s) && is_token(n.args[2], t)) return "bilinear:" + *m + "(s,t)";
      if (is_token(n.args[1], t) && is_token(n.args[2], s)) return "bilinear:" + *m + "(t,s)";
    }
    return std::nullopt;
  }

  bool two_tokens(const Node& n, const Unrolling& u, Term& term) {
    if (n.has_key()) return fail("a selection over two tokens");
    const std::string& s = n.binders[0].name;
    const std::string& t = n.binders[1].name;
    bool distinct = false;
    for (const targets::IndexConstraint& c : n.constraints) {
      if (c.strict_order) return fail("an order constraint");
      distinct = true;
    }
    if (n.op != ReduceOp::kSum) {
      // E1/E2: a body of pairwise forms and terms in one token; a pairwise form couples s and t.
      bool coupled = false;
      bool dot = false;
      if (!pair_body(n.args[0], s, t, u, coupled, dot)) return fail("a pair's body the oracle does not read");
      if (!coupled) return fail("a pair's body with no pairwise form");
      if (dot && !distinct) return fail("an unconstrained pair of dot");
      if (n.op == ReduceOp::kKth) return fail("a k-th largest over pairs");
      double scale = 1;
      const std::string score =
          signed_key(n.args[0], n.op == ReduceOp::kMin, scale,
                     [&](const Node& m) {
                       if (const auto form = pair_form(m, s, t, u)) return *form;
                       return (token_wise(m, s) ? "s: " : "t: ") + unrolled_text(m, u);
                     }) +
          (distinct ? " s != t" : "");
      term.key = "pair:" + score;
      term.coefficient *= n.op == ReduceOp::kMin ? -scale : scale;
      term.needs.push_back({Need::What::kPair, score, 1, {}});
      return true;
    }
    // sum(s != t) <x_s, x_t> = |sum x|^2 - sum |x|^2: the mean of x and a term mean.
    const auto form = pair_form(n.args[0], s, t, u);
    if (!form || *form != "dot" || !distinct) return fail("a sum over pairs other than sum(s != t) dot");
    term.key = "pair sum";
    term.needs.push_back({Need::What::kVectorMean, "x", 1, {}});
    Term square;
    square.key = "mean:sqnorm";
    square.coefficient = -term.coefficient;
    square.needs.push_back({Need::What::kTermMean, "sqnorm", 1, {}});
    terms.push_back(std::move(square));
    return true;
  }

  /// A sum of pairwise forms (dot or bilinear of x[s] and x[t]) and token-wise terms of s or of
  /// t; `coupled`: a pairwise form among them, `dot`: a dot(x[s], x[t]) (unconstrained, its
  /// maximum is max |x_t|^2 by Cauchy-Schwarz, which the rules do not read: declined).
  static bool pair_body(const Node& n, const std::string& s, const std::string& t, const Unrolling& u,
                        bool& coupled, bool& dot) {
    switch (n.kind) {
      case Kind::kAdd:
      case Kind::kSub:
        return pair_body(n.args[0], s, t, u, coupled, dot) && pair_body(n.args[1], s, t, u, coupled, dot);
      case Kind::kNeg:
        return pair_body(n.args[0], s, t, u, coupled, dot);
      case Kind::kMul:
        if (n.args[0].kind == Kind::kNumber) return pair_body(n.args[1], s, t, u, coupled, dot);
        if (n.args[1].kind == Kind::kNumber) return pair_body(n.args[0], s, t, u, coupled, dot);
        break;
      default:
        break;
    }
    if (const auto form = pair_form(n, s, t, u)) {
      coupled = true;
      dot = dot || *form == "dot";
      return true;
    }
    return token_wise(n, s) || token_wise(n, t);
  }
};

/// Adds an action, or finds the identical one; returns its index.
int add(std::vector<Action>& actions, Action a) {
  for (std::size_t i = 0; i < actions.size(); ++i) {
    if (actions[i].name == a.name) {
      actions[i].output = actions[i].output || a.output;
      return static_cast<int>(i);
    }
  }
  actions.push_back(std::move(a));
  return static_cast<int>(actions.size() - 1);
}

int retrieval(std::vector<Action>& actions, const std::string& name, std::vector<int> inputs,
              bool output, bool token_only = false) {
  Action a;
  a.name = name;
  a.inputs = std::move(inputs);
  a.output = output;
  a.token_only = token_only;
  return add(actions, std::move(a));
}

}  // namespace

namespace {

/// The actions of the needs, each need with alternatives read the way `choice` says (bit i: the
/// i-th such need's alternative retrievals).
std::vector<Action> actions_of(const std::vector<Need>& needs, unsigned choice, long token_dim) {
  std::vector<Action> actions;
  bool term_mean = false;
  bool vector_mean = false;
  bool positions = false;
  unsigned alternative = 0;
  for (const Need& need : needs) {
    switch (need.what) {
      case Need::What::kRetrieval:
        if (!need.either.empty() && ((choice >> alternative++) & 1u) != 0) {
          for (const std::string& score : need.either) retrieval(actions, "R:" + score, {}, true);
        } else {
          retrieval(actions, "R:" + need.score, {}, true);
        }
        break;
      case Need::What::kChain: {
        // R2: step j is a retrieval masked by step j - 1; step 1 is the maximum's.
        int previous = retrieval(actions, "R:" + need.score, {}, false);
        for (long j = 2; j <= need.rank; ++j)
          previous = retrieval(actions, "C" + std::to_string(j) + ":" + need.score, {previous}, j == need.rank);
        break;
      }
      case Need::What::kPair: {
        // E2: each token fetches its partner, then one retrieval takes the best token.
        const int partner = retrieval(actions, "P:" + need.score, {}, false, true);
        retrieval(actions, "G:" + need.score, {partner}, true);
        break;
      }
      case Need::What::kTermMean:
        term_mean = true;
        break;
      case Need::What::kVectorMean:
        vector_mean = true;
        break;
      case Need::What::kPositions:
        positions = true;
        break;
    }
  }
  const auto mean = [&](const std::string& name, long values) {
    Action a;
    a.name = name;
    a.mode = Action::Mode::kMean;
    a.values = values;
    a.output = true;
    add(actions, std::move(a));
  };
  if (term_mean) mean("M:terms", 1);
  if (vector_mean) mean("M:x", token_dim);
  if (positions) {
    Action a;
    a.name = "positions";
    a.mode = Action::Mode::kPositions;
    a.output = true;
    add(actions, std::move(a));
  }
  return actions;
}

}  // namespace

Reading read(const targets::Formula& formula, const targets::Bindings& bindings, long token_dim) {
  Reader r{bindings, {}, {}};
  Unrolling u;
  Reading out;
  if (!r.flatten(formula.root(), 1, u)) {
    out.out_of_range = r.error;
    return out;
  }
  // C1: like terms add up, and vanish where their coefficients cancel.
  std::map<std::string, double> coefficient;
  std::map<std::string, std::vector<Need>> needs_of;
  for (const Term& t : r.terms) {
    coefficient[t.key] += t.coefficient;
    needs_of[t.key] = t.needs;
  }
  std::vector<Need> needs;
  unsigned choices = 0;
  for (const auto& [key, c] : coefficient) {
    if (std::abs(c) <= kZero) continue;
    for (const Need& need : needs_of[key]) {
      needs.push_back(need);
      if (!need.either.empty()) ++choices;
    }
  }
  if (choices > 4) {
    out.out_of_range = "more than four terms read two ways";
    return out;
  }
  // Every reading; one with more actions than the oracle enumerates is left out, which loses
  // nothing: it differs from another only by two retrievals in place of one.
  std::size_t fewest = std::string::npos;
  for (unsigned choice = 0; choice < (1u << choices); ++choice) {
    std::vector<Action> actions = actions_of(needs, choice, token_dim);
    fewest = std::min(fewest, actions.size());
    if (actions.size() <= kMaxActions) out.programs.push_back(std::move(actions));
  }
  if (out.programs.empty()) out.out_of_range = std::to_string(fewest) + " actions";
  return out;
}

namespace {

struct Instance {
  long layer = 0;
  bool readout = false;
};

class Enumerator {
 public:
  Enumerator(const std::vector<Action>& actions, const std::vector<long>& heads, long head_dim,
             long embedding)
      : actions_(actions),
        heads_(heads),
        n_(head_dim),
        e_(embedding),
        layers_(static_cast<long>(heads.size())),
        placed_(actions.size()),
        singles_(heads.size() + 1, {0, 0}),
        values_(heads.size() + 1, {0, 0}) {}

  bool run() { return place(0); }

 private:
  /// Heads a (layer, class) uses: one an action, and the means pooled n values a head.
  [[nodiscard]] long used(long l, bool readout) const {
    const auto& s = singles_[static_cast<std::size_t>(l)];
    const auto& v = values_[static_cast<std::size_t>(l)];
    const std::size_t c = readout ? 1 : 0;
    return s[c] + (v[c] + n_ - 1) / n_;
  }

  [[nodiscard]] bool within(long l, bool readout) const {
    return used(l, readout) <= heads_[static_cast<std::size_t>(l - 1)] &&
           values_[static_cast<std::size_t>(l)][readout ? 1 : 0] <= e_;
  }

  /// Whether an action at (l, readout) can read input b: b's result held by the querying
  /// token or by the candidates (the input tokens) after layer l - 1 (docs/theory.md, 5.2: a
  /// score computable from what both hold). What the readout holds, the tokens never get.
  [[nodiscard]] bool readable(int b, long l, bool readout) const {
    for (const Instance& i : placed_[static_cast<std::size_t>(b)]) {
      if (i.layer < l && (!i.readout || readout)) return true;
    }
    return false;
  }

  bool try_with(std::size_t a, const std::vector<Instance>& instances) {
    const Action& action = actions_[a];
    for (const Instance& i : instances) {
      for (const int b : action.inputs) {
        if (!readable(b, i.layer, i.readout)) return false;
      }
    }
    for (const Instance& i : instances) {
      auto& slot = action.mode == Action::Mode::kMean ? values_[static_cast<std::size_t>(i.layer)]
                                                      : singles_[static_cast<std::size_t>(i.layer)];
      slot[i.readout ? 1 : 0] += action.mode == Action::Mode::kMean ? action.values : 1;
    }
    bool ok = std::all_of(instances.begin(), instances.end(),
                          [&](const Instance& i) { return within(i.layer, i.readout); });
    placed_[a] = instances;
    if (ok) ok = place(a + 1);
    placed_[a].clear();
    for (const Instance& i : instances) {
      auto& slot = action.mode == Action::Mode::kMean ? values_[static_cast<std::size_t>(i.layer)]
                                                      : singles_[static_cast<std::size_t>(i.layer)];
      slot[i.readout ? 1 : 0] -= action.mode == Action::Mode::kMean ? action.values : 1;
    }
    return ok;
  }

  bool place(std::size_t a) {
    if (a == actions_.size()) return outputs_reach_the_readout();
    // Every layer, at the tokens, at the readout, or (a global action) at both.
    for (long l = 1; l <= layers_; ++l) {
      if (try_with(a, {{l, false}})) return true;
    }
    if (actions_[a].token_only) return false;
    for (long l = 1; l <= layers_; ++l) {
      if (try_with(a, {{l, true}})) return true;
      for (long k = 1; k <= layers_; ++k) {
        if (try_with(a, {{k, false}, {l, true}})) return true;
      }
    }
    return false;
  }

  /// The readout holds each output at the end: one it computed, or one the tokens computed in
  /// layer l, carried by a readout fetch in a later layer (R7), the readout's own retrievals
  /// or, where it makes none, one more head fetching any token.
  bool outputs_reach_the_readout() const {
    long carry_after = 0;
    for (std::size_t a = 0; a < actions_.size(); ++a) {
      if (!actions_[a].output) continue;
      long earliest = layers_ + 1;
      bool at_readout = false;
      for (const Instance& i : placed_[a]) {
        if (i.readout) at_readout = true;
        else earliest = std::min(earliest, i.layer);
      }
      if (!at_readout) carry_after = std::max(carry_after, earliest);
    }
    if (carry_after == 0) return true;
    for (std::size_t a = 0; a < actions_.size(); ++a) {
      if (actions_[a].mode == Action::Mode::kMean) continue;  // a mean adds no token's set
      for (const Instance& i : placed_[a]) {
        if (i.readout && i.layer > carry_after) return true;
      }
    }
    for (long l = carry_after + 1; l <= layers_; ++l) {
      if (used(l, true) < heads_[static_cast<std::size_t>(l - 1)]) return true;
    }
    return false;
  }

  const std::vector<Action>& actions_;
  const std::vector<long>& heads_;
  long n_;
  long e_;
  long layers_;
  std::vector<std::vector<Instance>> placed_;
  std::vector<std::array<long, 2>> singles_;  // [layer][tokens, readout]: actions but means
  std::vector<std::array<long, 2>> values_;   // [layer][tokens, readout]: averaged values
};

}  // namespace

bool fits(const std::vector<Action>& actions, const std::vector<long>& heads, long head_dim,
          long embedding, bool positional) {
  const bool reads_positions = std::any_of(actions.begin(), actions.end(), [](const Action& a) {
    return a.mode == Action::Mode::kPositions;
  });
  if (reads_positions && !positional) return false;
  return Enumerator(actions, heads, head_dim, embedding).run();
}

bool fits(const Reading& reading, const std::vector<long>& heads, long head_dim, long embedding,
          bool positional) {
  return std::any_of(reading.programs.begin(), reading.programs.end(), [&](const std::vector<Action>& p) {
    return fits(p, heads, head_dim, embedding, positional);
  });
}

std::string describe(const Reading& reading) {
  std::string out;
  for (const std::vector<Action>& actions : reading.programs) {
    if (!out.empty()) out += "; or ";
    for (std::size_t i = 0; i < actions.size(); ++i) {
      const Action& a = actions[i];
      if (i > 0) out += " | ";
      out += a.name;
      if (a.mode == Action::Mode::kMean) out += " (" + std::to_string(a.values) + " values)";
      if (a.token_only) out += " (tokens)";
      for (const int b : a.inputs) out += " <- " + actions[static_cast<std::size_t>(b)].name;
      if (a.output) out += " *";
    }
  }
  return out;
}

}  // namespace infoflow::planner_oracle
