// What C0's rewrites build and read (canonical_terms.hpp), and the structure key that tells
// equal monomials apart up to the order of operands and the names of bound indices.
#include "canonical_terms.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "infoflow/theorems/canonical_forms.hpp"

namespace infoflow::theorems {

namespace {

using targets::Node;
using K = targets::Node::Kind;

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

}  // namespace

std::string structure_key(const Node& n) {
  std::map<std::string, std::string> names;
  int bound = 0;
  return key_of(n, names, bound);
}

namespace detail::c0 {

using K = targets::Node::Kind;
using targets::ReduceOp;
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

// ---------------------------------------------------------------------------------------------
// Linear combinations: a node as sum of coefficient * monomial, the numbers taken out.

namespace {

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

}  // namespace

std::vector<LinearTerm> linear_terms(const Node& n) {
  std::vector<LinearTerm> out;
  linear_terms(n, 1, out);
  return out;
}

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

std::optional<LinearTerm> single_term(const Node& n) {
  const std::vector<LinearTerm> terms = collected(linear_terms(n));
  if (terms.size() != 1 || terms.front().monomial == nullptr) return std::nullopt;
  return terms.front();
}

bool all_negative(const std::vector<LinearTerm>& terms) {
  return !terms.empty() && std::all_of(terms.begin(), terms.end(),
                                       [](const LinearTerm& t) { return t.coefficient < 0; });
}


}  // namespace detail::c0

}  // namespace infoflow::theorems
