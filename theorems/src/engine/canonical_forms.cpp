// Canonical forms before planning (docs/infoflow_engine.md, "C0 Canonical forms"): each rewrite
// states the identity it applies; the registry at the end lists their order.
#include "infoflow/theorems/canonical_forms.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "infoflow/core/error.hpp"

namespace infoflow::theorems {

namespace {

using targets::Node;
using targets::ReduceOp;
using K = targets::Node::Kind;

/// How many rewrites one formula may take: each shortens or orders it, so a formula of the
/// language's size never nears this; it guards against two rules undoing each other.
constexpr int kRewriteBudget = 512;

// ---------------------------------------------------------------------------------------------
// Nodes

Node number(double value) {
  Node n;
  n.kind = K::kNumber;
  n.number = value;
  return n;
}

Node binary(K kind, Node a, Node b) {
  Node n;
  n.kind = kind;
  n.args = {std::move(a), std::move(b)};
  return n;
}

Node negation(Node a) {
  Node n;
  n.kind = K::kNeg;
  n.args = {std::move(a)};
  return n;
}

Node call(const std::string& name, std::vector<Node> args) {
  Node n;
  n.kind = K::kCall;
  n.name = name;
  n.args = std::move(args);
  return n;
}

/// sum(index) body, over the tokens.
Node token_sum(const std::string& index, Node body) {
  Node n;
  n.kind = K::kReduce;
  n.op = ReduceOp::kSum;
  targets::Binder b;
  b.name = index;
  n.binders = {b};
  n.args = {std::move(body)};
  return n;
}

/// Whether `n` reads the index `name` (a subscript, or a constraint of a reduction inside).
bool reads(const Node& n, const std::string& name) {  // NOLINT(misc-no-recursion)
  if (n.kind == K::kRef && n.index == name) return true;
  for (const targets::IndexConstraint& c : n.constraints) {
    if (c.left == name || c.right == name) return true;
  }
  return std::any_of(n.args.begin(), n.args.end(), [&](const Node& a) { return reads(a, name); });
}

bool binds(const Node& n, const std::string& name) {  // NOLINT(misc-no-recursion)
  if (std::any_of(n.binders.begin(), n.binders.end(),
                  [&](const targets::Binder& b) { return b.name == name; }))
    return true;
  return std::any_of(n.args.begin(), n.args.end(), [&](const Node& a) { return binds(a, name); });
}

bool has_reduction(const Node& n) {  // NOLINT(misc-no-recursion)
  return n.kind == K::kReduce ||
         std::any_of(n.args.begin(), n.args.end(), [](const Node& a) { return has_reduction(a); });
}

/// `n` with the index names renamed by `names` (subscripts and constraints), where no reduction
/// inside binds one of them.
Node renamed(Node n, const std::map<std::string, std::string>& names) {  // NOLINT(misc-no-recursion)
  const auto to = [&](std::string& name) {
    if (const auto it = names.find(name); it != names.end()) name = it->second;
  };
  if (n.kind == K::kRef) to(n.index);
  for (targets::IndexConstraint& c : n.constraints) {
    to(c.left);
    to(c.right);
  }
  for (Node& a : n.args) a = renamed(std::move(a), names);
  return n;
}

std::string key_of(const Node& n, std::map<std::string, std::string>& names, int& bound);

/// The operands of a chain of `+`/`-` (signed) or of `*`, keyed and sorted.
void chain_keys(const Node& n, bool additive, bool negative, std::map<std::string, std::string>& names,
                int& bound, std::vector<std::string>& out) {  // NOLINT(misc-no-recursion)
  if (additive && (n.kind == K::kAdd || n.kind == K::kSub)) {
    chain_keys(n.args[0], true, negative, names, bound, out);
    chain_keys(n.args[1], true, n.kind == K::kSub ? !negative : negative, names, bound, out);
  } else if (additive && n.kind == K::kNeg) {
    chain_keys(n.args[0], true, !negative, names, bound, out);
  } else if (!additive && n.kind == K::kMul) {
    chain_keys(n.args[0], false, false, names, bound, out);
    chain_keys(n.args[1], false, false, names, bound, out);
  } else {
    out.push_back((negative ? "-" : "+") + key_of(n, names, bound));
  }
}

std::string key_of(const Node& n, std::map<std::string, std::string>& names,
                   int& bound) {  // NOLINT(misc-no-recursion)
  const auto name = [&](const std::string& i) {
    const auto it = names.find(i);
    return it == names.end() ? i : it->second;
  };
  switch (n.kind) {
    case K::kNumber:
      return targets::number_text(n.number);
    case K::kRef:
      return fmt::format("{}[{}|{}|{}|{}]", n.name, name(n.index), n.position, n.position_name,
                         n.offset);
    case K::kAdd:
    case K::kSub:
    case K::kNeg:
    case K::kMul: {
      std::vector<std::string> parts;
      chain_keys(n, n.kind != K::kMul, false, names, bound, parts);
      std::sort(parts.begin(), parts.end());
      return fmt::format("{}({})", n.kind == K::kMul ? "mul" : "add", fmt::join(parts, ","));
    }
    case K::kCall: {
      std::vector<std::string> args;
      for (const Node& a : n.args) args.push_back(key_of(a, names, bound));
      if (n.name == "dot") std::sort(args.begin(), args.end());
      return fmt::format("{}({})", n.name, fmt::join(args, ","));
    }
    case K::kReduce: {
      // Bound names are numbered in the order bound, so renaming them changes nothing.
      std::map<std::string, std::string> inner = names;
      std::vector<std::string> binders;
      for (const targets::Binder& b : n.binders) {
        inner[b.name] = "#" + std::to_string(bound++);
        binders.push_back(inner[b.name] + (b.has_range ? "=" + b.low.text() + ".." + b.high.text() : ""));
      }
      std::vector<std::string> constraints;
      for (const targets::IndexConstraint& c : n.constraints) {
        std::string a = inner.count(c.left) ? inner[c.left] : c.left;
        std::string b = inner.count(c.right) ? inner[c.right] : c.right;
        if (!c.strict_order && b < a) std::swap(a, b);
        constraints.push_back(a + (c.strict_order ? "<" : "!=") + b);
      }
      std::sort(constraints.begin(), constraints.end());
      std::string out = fmt::format("{}:{}({};{})", static_cast<int>(n.op), n.rank.text(),
                                    fmt::join(binders, ","), fmt::join(constraints, ","));
      for (const Node& a : n.args) out += "[" + key_of(a, inner, bound) + "]";
      return out;
    }
    default: {
      std::string out = fmt::format("{}(", static_cast<int>(n.kind));
      for (const Node& a : n.args) out += key_of(a, names, bound) + ",";
      return out + ")";
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Linear combinations: a node as sum of coefficient * monomial, the numbers taken out.

struct LinearTerm {
  double coefficient = 1;
  const Node* monomial = nullptr;  ///< nullptr: the constant 1
};

void linear_terms(const Node& n, double c, std::vector<LinearTerm>& out) {  // NOLINT(misc-no-recursion)
  switch (n.kind) {
    case K::kAdd:
    case K::kSub:
      linear_terms(n.args[0], c, out);
      linear_terms(n.args[1], n.kind == K::kSub ? -c : c, out);
      return;
    case K::kNeg:
      linear_terms(n.args[0], -c, out);
      return;
    case K::kNumber:
      out.push_back({c * n.number, nullptr});
      return;
    case K::kMul:
      if (n.args[0].kind == K::kNumber) return linear_terms(n.args[1], c * n.args[0].number, out);
      if (n.args[1].kind == K::kNumber) return linear_terms(n.args[0], c * n.args[1].number, out);
      break;
    case K::kDiv:
      if (n.args[1].kind == K::kNumber && n.args[1].number != 0)
        return linear_terms(n.args[0], c / n.args[1].number, out);
      break;
    default:
      break;
  }
  out.push_back({c, &n});
}

std::vector<LinearTerm> linear_terms(const Node& n) {
  std::vector<LinearTerm> out;
  linear_terms(n, 1, out);
  return out;
}

/// Terms with equal monomials (structure_key) added, in the order first written; an
/// integer within rounding of the sum taken as exact ((y + y + y) / 3 is y).
std::vector<LinearTerm> collected(const std::vector<LinearTerm>& terms) {
  std::vector<LinearTerm> out;
  std::vector<double> sizes;  // the sum of |coefficient| added into each: the rounding's scale
  std::map<std::string, std::size_t> at;
  for (const LinearTerm& t : terms) {
    const std::string key = t.monomial == nullptr ? "1" : structure_key(*t.monomial);
    if (const auto it = at.find(key); it != at.end()) {
      out[it->second].coefficient += t.coefficient;
      sizes[it->second] += std::abs(t.coefficient);
    } else {
      at.emplace(key, out.size());
      out.push_back(t);
      sizes.push_back(std::abs(t.coefficient));
    }
  }
  // Rounding of terms that cancel is relative to what was added, never to 1: a term written
  // with a small number (sqnorm(x[1]) / 1e12) is no zero.
  for (std::size_t i = 0; i < out.size(); ++i) {
    LinearTerm& t = out[i];
    const double whole = std::round(t.coefficient);
    if (std::abs(t.coefficient - whole) <= 1e-12 * sizes[i]) t.coefficient = whole;
  }
  return out;
}

/// The sum of the terms, each as written times its number (0 for none).
Node combination(const std::vector<LinearTerm>& terms) {
  std::optional<Node> out;
  for (const LinearTerm& t : terms) {
    if (t.coefficient == 0) continue;
    const double size = std::abs(t.coefficient);
    Node term = t.monomial == nullptr ? number(size)
                : size == 1           ? *t.monomial
                                      : binary(K::kMul, number(size), *t.monomial);
    const bool negative = t.coefficient < 0;
    if (!out)
      out = negative ? negation(std::move(term)) : std::move(term);
    else
      out = binary(negative ? K::kSub : K::kAdd, std::move(*out), std::move(term));
  }
  return out ? *out : number(0);
}

std::vector<LinearTerm> negated(std::vector<LinearTerm> terms) {
  for (LinearTerm& t : terms) t.coefficient = -t.coefficient;
  return terms;
}

/// The body's one term with its number, if it is one monomial times a number.
std::optional<LinearTerm> single_term(const Node& n) {
  const std::vector<LinearTerm> terms = collected(linear_terms(n));
  if (terms.size() != 1 || terms.front().monomial == nullptr) return std::nullopt;
  return terms.front();
}

bool all_negative(const std::vector<LinearTerm>& terms) {
  return !terms.empty() && std::all_of(terms.begin(), terms.end(),
                                       [](const LinearTerm& t) { return t.coefficient < 0; });
}

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

std::string structure_key(const Node& n) {
  std::map<std::string, std::string> names;
  int bound = 0;
  return key_of(n, names, bound);
}

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
