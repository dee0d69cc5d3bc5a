// Canonical forms before planning (docs/infoflow_engine.md, "C0 Canonical forms"): each rewrite
// states the identity it applies; the registry at the end lists their order.
#include "infoflow/theorems/canonical_forms.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <utility>

#include "infoflow/core/error.hpp"

#include "canonical_terms.hpp"

namespace infoflow::theorems {

namespace {

using targets::Node;
using targets::ReduceOp;
using K = targets::Node::Kind;

/// How many rewrites one formula may take: each shortens or orders it, so a formula of the
/// language's size never nears this; it guards against two rules undoing each other.
constexpr int kRewriteBudget = 512;

using detail::c0::LinearTerm, detail::c0::all_negative, detail::c0::binary, detail::c0::binds,
    detail::c0::call, detail::c0::collected, detail::c0::combination, detail::c0::has_reduction,
    detail::c0::linear_terms, detail::c0::negated, detail::c0::negation, detail::c0::number,
    detail::c0::reads, detail::c0::renamed, detail::c0::single_term, detail::c0::token_sum;

// ---------------------------------------------------------------------------------------------
// The rewrites. Each: the rule, then the function.

/// `terms` with each sqnorm or dot of a sum of vectors expanded by bilinearity (sqnorm(u + v) =
/// sqnorm(u) + 2 dot(u, v) + sqnorm(v)); the new monomials are kept in `made`.
std::vector<LinearTerm> expanded(const std::vector<LinearTerm>& terms, std::deque<Node>& made) {
  std::vector<LinearTerm> out;
  for (const LinearTerm& t : terms) {
    const Node* m = t.monomial;
    const bool square = m != nullptr && m->kind == K::kCall && m->name == "sqnorm";
    const bool product = m != nullptr && m->kind == K::kCall && m->name == "dot";
    if (!square && !product) {
      out.push_back(t);
      continue;
    }
    const std::vector<LinearTerm> left = linear_terms(m->args[0]);
    const std::vector<LinearTerm> right = linear_terms(m->args[square ? 0 : 1]);
    for (const LinearTerm& u : left) {
      for (const LinearTerm& v : right) {
        if (u.monomial == nullptr || v.monomial == nullptr) return terms;  // not a vector sum
        made.push_back(structure_key(*u.monomial) == structure_key(*v.monomial)
                           ? call("sqnorm", {*u.monomial})
                           : call("dot", {*u.monomial, *v.monomial}));
        out.push_back({t.coefficient * u.coefficient * v.coefficient, &made.back()});
      }
    }
  }
  return out;
}

/// C1 like terms: c1 m + c2 m = (c1 + c2) m, with 0 m and + 0 dropped (y - y + z is z,
/// (y + y) / 2 is y, max(t) y - max(s) y is 0, y * 0 is 0). Where expanding the sqnorm and dot
/// of sums leaves fewer terms than written, they are expanded ((sqnorm(x[s] + x[t]) -
/// sqnorm(x[s]) - sqnorm(x[t])) / 2 is dot(x[s], x[t])); elsewhere they stay as written.
std::optional<Node> like_terms(const Node& n) {
  const bool scaled = (n.kind == K::kMul && (n.args[0].kind == K::kNumber || n.args[1].kind == K::kNumber)) ||
                      (n.kind == K::kDiv && n.args[1].kind == K::kNumber && n.args[1].number != 0);
  if (n.kind != K::kAdd && n.kind != K::kSub && n.kind != K::kNeg && !scaled) return std::nullopt;
  const std::vector<LinearTerm> terms = linear_terms(n);
  const std::vector<LinearTerm> together = collected(terms);
  const bool merged = together.size() < terms.size();
  const bool vanished = std::any_of(together.begin(), together.end(),
                                    [](const LinearTerm& t) { return t.coefficient == 0; });
  // -(-y) and (2 * y) / 2 are y.
  const bool unit = together.size() == 1 && together.front().coefficient == 1 &&
                    together.front().monomial != nullptr;
  if (merged || vanished || unit) return combination(together);
  std::deque<Node> made;
  const std::vector<LinearTerm> spread = collected(expanded(terms, made));
  const auto left = std::count_if(spread.begin(), spread.end(),
                                  [](const LinearTerm& t) { return t.coefficient != 0; });
  if (left < static_cast<long>(terms.size())) return combination(spread);
  return std::nullopt;
}

/// C8 numbers out of bilinear forms: dot(c u, v) = c dot(u, v) (bilinear likewise), sqnorm(c u)
/// = c^2 sqnorm(u), norm(c u) = |c| norm(u), for a number c.
std::optional<Node> numbers_out(const Node& n) {
  if (n.kind != K::kCall) return std::nullopt;
  const bool dot = n.name == "dot" || n.name == "bilinear";
  if (!dot && n.name != "sqnorm" && n.name != "norm") return std::nullopt;
  Node out = n;
  double factor = 1;
  for (std::size_t i = n.name == "bilinear" ? 1 : 0; i < n.args.size(); ++i) {
    const std::optional<LinearTerm> t = single_term(n.args[i]);
    if (!t || t->coefficient == 1) continue;
    factor *= t->coefficient;
    out.args[i] = *t->monomial;
  }
  if (factor == 1) return std::nullopt;
  if (n.name == "sqnorm") factor *= factor;
  if (n.name == "norm") factor = std::abs(factor);
  return factor < 0 ? negation(binary(K::kMul, number(-factor), std::move(out)))
                    : binary(K::kMul, number(factor), std::move(out));
}

/// C2 self dot: dot(u, u) = sqnorm(u).
std::optional<Node> self_dot(const Node& n) {
  if (n.kind != K::kCall || n.name != "dot" || structure_key(n.args[0]) != structure_key(n.args[1]))
    return std::nullopt;
  return call("sqnorm", {n.args[0]});
}

bool ranked_by_literal(const Node& n) { return n.op == ReduceOp::kKth && n.rank.name.empty(); }

/// C3 duality and positive scaling: max(t) (-y) = -min(t) y (and min likewise), a sum's -y is
/// -sum(t) y; max(t) (c y) = c max(t) y and kth(k, t) (c y) = c kth(k, t) y for a number c > 0;
/// sum(t) (c y) = c sum(t) y for any number c. A selection's key: max(t by -y) = min(t by y),
/// and a number c > 0 leaves the token of the largest c y alone.
std::optional<Node> extremum_scaling(const Node& n) {
  if (n.kind != K::kReduce) return std::nullopt;
  const bool extremum = n.op == ReduceOp::kMax || n.op == ReduceOp::kMin;
  const auto flipped = [](ReduceOp op) { return op == ReduceOp::kMax ? ReduceOp::kMin : ReduceOp::kMax; };
  if (n.has_key()) {
    const std::vector<LinearTerm> key = collected(linear_terms(n.args[1]));
    if (extremum && all_negative(key)) {
      Node out = n;
      out.op = flipped(n.op);
      out.args[1] = combination(negated(key));
      return out;
    }
    if (const std::optional<LinearTerm> t = single_term(n.args[1]);
        t && t->coefficient > 0 && t->coefficient != 1 && (extremum || n.op == ReduceOp::kKth)) {
      Node out = n;
      out.args[1] = *t->monomial;
      return out;
    }
    return std::nullopt;
  }
  const std::vector<LinearTerm> body = collected(linear_terms(n.args[0]));
  if ((extremum || n.op == ReduceOp::kSum) && all_negative(body)) {
    Node out = n;
    if (extremum) out.op = flipped(n.op);
    out.args[0] = combination(negated(body));
    return negation(std::move(out));
  }
  if (const std::optional<LinearTerm> t = single_term(n.args[0]);
      t && t->coefficient > 0 && t->coefficient != 1) {
    Node out = n;
    out.args[0] = *t->monomial;
    return binary(K::kMul, number(t->coefficient), std::move(out));
  }
  return std::nullopt;
}

/// The two token indices a reduction binds and its one constraint between them, if that is all
/// it binds and constrains (no range, nothing bound inside under either name).
struct Pair {
  std::string s;
  std::string t;
  bool ordered = false;
};
std::optional<Pair> constrained_pair(const Node& n) {
  if (n.kind != K::kReduce || n.binders.size() != 2 || n.constraints.size() != 1) return std::nullopt;
  const targets::Binder& a = n.binders[0];
  const targets::Binder& b = n.binders[1];
  const targets::IndexConstraint& c = n.constraints[0];
  if (a.has_range || b.has_range) return std::nullopt;
  if (!((c.left == a.name && c.right == b.name) || (c.left == b.name && c.right == a.name)))
    return std::nullopt;
  for (const Node& arg : n.args) {
    if (binds(arg, a.name) || binds(arg, b.name)) return std::nullopt;
  }
  return Pair{c.left, c.right, c.strict_order};
}

/// Whether the body (and the key) are unchanged by swapping the pair's indices.
bool symmetric(const Node& n, const Pair& p) {
  const std::map<std::string, std::string> swap{{p.s, p.t}, {p.t, p.s}};
  return std::all_of(n.args.begin(), n.args.end(), [&](const Node& a) {
    return structure_key(a) == structure_key(renamed(a, swap));
  });
}

/// C4 symmetric bodies under an order: where the body (and key) is symmetric in s and t, each
/// unordered pair is one s < t and two s != t, so max(s < t) = max(s != t) (min likewise),
/// sum(s < t) = 0.5 sum(s != t), and kth(k, s < t) = kth(2k - 1, s != t).
std::optional<Node> symmetric_order(const Node& n) {
  const std::optional<Pair> p = constrained_pair(n);
  if (!p || !p->ordered || !symmetric(n, *p)) return std::nullopt;
  if (n.op == ReduceOp::kKth && !ranked_by_literal(n)) return std::nullopt;
  Node out = n;
  out.constraints[0].strict_order = false;
  if (n.op == ReduceOp::kKth) out.rank.value = 2 * n.rank.value - 1;
  if (n.op == ReduceOp::kSum) return binary(K::kMul, number(0.5), std::move(out));
  return out;
}

/// C5 ranks of symmetric pairs: under s != t a symmetric body lists each value twice, so
/// kth(2j, s != t) = kth(2j - 1, s != t) (kth(2, s != t) is max(s != t)).
std::optional<Node> symmetric_rank(const Node& n) {
  const std::optional<Pair> p = constrained_pair(n);
  if (!p || p->ordered || !ranked_by_literal(n) || n.rank.value % 2 != 0 || !symmetric(n, *p))
    return std::nullopt;
  Node out = n;
  out.rank.value = n.rank.value - 1;
  return out;
}

/// C6 first rank: kth(1, ...) = max(...).
std::optional<Node> first_rank(const Node& n) {
  if (n.kind != K::kReduce || !ranked_by_literal(n) || n.rank.value != 1) return std::nullopt;
  Node out = n;
  out.op = ReduceOp::kMax;
  out.rank = {};
  return out;
}

/// sum(s, t) of one term that is a dot, a bilinear form or a product of a factor in s and one
/// in t: the product of the sums (bilinearity). (sum(s) u) and (sum(t) u) are one vector, so
/// their dot is sqnorm and their product a square.
std::optional<Node> factored(const Node& term, const std::string& s, const std::string& t) {
  const auto only = [](const Node& m, const std::string& in, const std::string& out) {
    return reads(m, in) && !reads(m, out);
  };
  if (term.kind == K::kCall && (term.name == "dot" || term.name == "bilinear")) {
    const std::size_t first = term.name == "dot" ? 0 : 1;
    if (first == 1 && (reads(term.args[0], s) || reads(term.args[0], t))) return std::nullopt;
    const Node& u = term.args[first];
    const Node& v = term.args[first + 1];
    std::optional<std::pair<Node, Node>> sums;
    if (only(u, s, t) && only(v, t, s)) sums = {token_sum(s, u), token_sum(t, v)};
    if (only(u, t, s) && only(v, s, t)) sums = {token_sum(t, u), token_sum(s, v)};
    if (!sums) return std::nullopt;
    if (first == 1) return call("bilinear", {term.args[0], sums->first, sums->second});
    if (structure_key(sums->first) == structure_key(sums->second)) return call("sqnorm", {sums->first});
    return call("dot", {std::move(sums->first), std::move(sums->second)});
  }
  if (term.kind != K::kMul) return std::nullopt;
  std::vector<const Node*> factors;
  std::vector<const Node*> stack{&term};
  while (!stack.empty()) {
    const Node* m = stack.back();
    stack.pop_back();
    if (m->kind == K::kMul) {
      stack.push_back(&m->args[1]);
      stack.push_back(&m->args[0]);
    } else {
      factors.push_back(m);
    }
  }
  std::optional<Node> in_s;
  std::optional<Node> in_t;
  std::optional<Node> closed;
  const auto times = [](std::optional<Node>& into, const Node& f) {
    into = into ? binary(K::kMul, std::move(*into), f) : f;
  };
  for (const Node* f : factors) {
    if (only(*f, s, t))
      times(in_s, *f);
    else if (only(*f, t, s))
      times(in_t, *f);
    else if (!reads(*f, s) && !reads(*f, t))
      times(closed, *f);
    else
      return std::nullopt;
  }
  if (!in_s || !in_t) return std::nullopt;
  Node left = token_sum(s, *in_s);
  Node right = token_sum(t, *in_t);
  Node product = structure_key(left) == structure_key(right)
                     ? binary(K::kPow, std::move(left), number(2))
                     : binary(K::kMul, std::move(left), std::move(right));
  return closed ? binary(K::kMul, std::move(*closed), std::move(product)) : product;
}

/// The double sum over all (s, t) of `body`, every term of which reads both s and t and
/// factors (factored()); nullopt otherwise (a term in s alone would need a factor T).
std::optional<Node> factored_double_sum(const Node& body, const std::string& s, const std::string& t) {
  if (has_reduction(body)) return std::nullopt;
  std::vector<LinearTerm> terms = collected(linear_terms(body));
  std::vector<Node> made;
  made.reserve(terms.size());
  for (const LinearTerm& term : terms) {
    if (term.monomial == nullptr) return std::nullopt;
    std::optional<Node> f = factored(*term.monomial, s, t);
    if (!f) return std::nullopt;
    made.push_back(std::move(*f));
  }
  for (std::size_t i = 0; i < terms.size(); ++i) terms[i].monomial = &made[i];
  return combination(terms);
}

/// C7 double sums that factor: sum(s, t) B(s, t) with B bilinear in a vector of s and one of t
/// is the product of two sums over one token (sum(s, t) dot(x[s], x[t]) = sqnorm(sum(t) x[t]));
/// under s != t the diagonal is taken off: sum(s != t) B(s, t) = sum(s, t) B(s, t) - sum(t)
/// B(t, t).
std::optional<Node> pair_sum(const Node& n) {
  if (n.kind != K::kReduce || n.op != ReduceOp::kSum || n.has_key() || n.binders.size() != 2)
    return std::nullopt;
  const std::string& s = n.binders[0].name;
  const std::string& t = n.binders[1].name;
  if (n.binders[0].has_range || n.binders[1].has_range) return std::nullopt;
  if (n.constraints.empty()) return factored_double_sum(n.args[0], s, t);
  const std::optional<Pair> p = constrained_pair(n);
  if (!p || p->ordered) return std::nullopt;
  std::optional<Node> all = factored_double_sum(n.args[0], s, t);
  if (!all) return std::nullopt;
  return binary(K::kSub, std::move(*all), token_sum(t, renamed(n.args[0], {{s, t}})));
}

// ---------------------------------------------------------------------------------------------
// The driver

class Canonicaliser {
 public:
  Node run(const Node& n) {  // NOLINT(misc-no-recursion)
    Node m = n;
    for (Node& a : m.args) a = run(a);
    for (const CanonicalRewrite& r : canonical_rewrites()) {
      if (budget_ <= 0) return m;
      std::optional<Node> next = r.apply(m);
      if (!next) continue;
      --budget_;
      if (std::find(applied_.begin(), applied_.end(), r.id) == applied_.end()) applied_.push_back(r.id);
      return run(*next);  // the rewritten node's parts may take rewrites of their own
    }
    return m;
  }
  [[nodiscard]] const std::vector<std::string>& applied() const { return applied_; }

 private:
  int budget_ = kRewriteBudget;
  std::vector<std::string> applied_;
};

}  // namespace

const std::vector<CanonicalRewrite>& canonical_rewrites() {
  static const std::vector<CanonicalRewrite> rewrites{
      {"C1 like terms", "c1 m + c2 m = (c1 + c2) m; 0 m and + 0 vanish", like_terms},
      {"C2 self dot", "dot(u, u) = sqnorm(u)", self_dot},
      {"C3 duality and scaling",
       "max(t) (-y) = -min(t) y; max(t) (c y) = c max(t) y for a number c > 0; sum(t) (c y) = c "
       "sum(t) y",
       extremum_scaling},
      {"C4 symmetric order",
       "a body symmetric in s, t: max(s < t) = max(s != t), sum(s < t) = sum(s != t) / 2, "
       "kth(k, s < t) = kth(2k - 1, s != t)",
       symmetric_order},
      {"C5 symmetric ranks", "a body symmetric in s, t: kth(2j, s != t) = kth(2j - 1, s != t)",
       symmetric_rank},
      {"C6 first rank", "kth(1, ...) = max(...)", first_rank},
      {"C7 double sums",
       "sum(s, t) dot(u_s, v_t) = dot(sum(s) u_s, sum(t) v_t); sum(s != t) B = sum(s, t) B - "
       "sum(t) B(t, t)",
       pair_sum},
      {"C8 numbers out of bilinear forms", "dot(c u, v) = c dot(u, v); sqnorm(c u) = c^2 sqnorm(u)",
       numbers_out},
  };
  return rewrites;
}

CanonicalForm canonical_form(const Node& root) {
  Canonicaliser c;
  Node out = c.run(root);
  return {std::move(out), c.applied()};
}

bool reads_positions_when_canonical(const targets::Formula& formula) {
  if (!formula.reads_positions()) return false;
  const CanonicalForm canonical = canonical_form(formula.root());
  if (canonical.applied.empty()) return true;
  try {
    return targets::Formula::from_tree(canonical.root).reads_positions();
  } catch (const InputError&) {  // the compiler reads the formula as written then (program.cpp)
    return true;
  }
}

}  // namespace infoflow::theorems
