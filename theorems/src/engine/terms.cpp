// The terms of an objective (docs/infoflow_engine.md, E1): how the compiler splits a score into
// additive terms, sets their constant factors aside, and keys them to merge identical actions.
#include "terms.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "infoflow/targets/node_algebra.hpp"

namespace infoflow::theorems::detail {

namespace {

using targets::Node;
using K = targets::Node::Kind;
using targets::literal_number;
using targets::mentions_token;
using targets::product_of;

/// The additive terms of a vector (or number) expression, each with its sign and the numbers
/// it is scaled by (a closed factor of a vector is a number: dot(a, 2 * x[t]) is 2 dot(a, x[t])).
void vector_terms(const Node& n, const Term& sign, std::vector<Term>& out) {
  if (n.kind == K::kAdd || n.kind == K::kSub) {
    vector_terms(n.args[0], sign, out);
    vector_terms(n.args[1], n.kind == K::kSub ? sign.negated() : sign, out);
  } else if (n.kind == K::kNeg) {
    vector_terms(n.args[0], sign.negated(), out);
  } else if (n.kind == K::kMul && !mentions_token(n.args[0])) {
    vector_terms(n.args[1], sign.scaled("*", n.args[0]), out);
  } else if ((n.kind == K::kMul || n.kind == K::kDiv) && !mentions_token(n.args[1])) {
    vector_terms(n.args[0], sign.scaled(n.kind == K::kMul ? "*" : "/", n.args[1]), out);
  } else {
    Term t = sign;
    t.node = &n;
    out.push_back(t);
  }
}

/// The factors of the product `n` that read tokens, in order, into `tokens`; its closed factors
/// and signs into `factor`. Whether there were any of those.
bool product_factors(const Node& n, Term& factor, std::vector<const Node*>& tokens) {
  if (n.kind == K::kMul) {
    const bool left = product_factors(n.args[0], factor, tokens);
    return product_factors(n.args[1], factor, tokens) || left;
  }
  if (n.kind == K::kNeg) {
    factor = factor.negated();
    product_factors(n.args[0], factor, tokens);
    return true;
  }
  if (n.kind == K::kDiv && !mentions_token(n.args[1])) {
    factor = factor.scaled("/", n.args[1]);
    product_factors(n.args[0], factor, tokens);
    return true;
  }
  if (!mentions_token(n)) {
    factor = factor.scaled("*", n);
    return true;
  }
  tokens.push_back(&n);
  return false;
}

}  // namespace

std::string canonical(
    const Node& n, const std::map<std::string, std::string>& rename) {  // NOLINT(misc-no-recursion)
  auto sub = [&](const Node& a) { return canonical(a, rename); };
  switch (n.kind) {
    case K::kAdd:
    case K::kSub:
    case K::kMul: {
      std::vector<std::string> parts;
      std::function<void(const Node&, bool)> flatten = [&](const Node& m, bool negative) {
        const bool additive = n.kind != K::kMul;
        if (additive && (m.kind == K::kAdd || m.kind == K::kSub)) {
          flatten(m.args[0], negative);
          flatten(m.args[1], m.kind == K::kSub ? !negative : negative);
        } else if (!additive && m.kind == K::kMul) {
          flatten(m.args[0], false);
          flatten(m.args[1], false);
        } else {
          parts.push_back((negative ? "-" : "+") + sub(m));
        }
      };
      flatten(n, false);
      std::sort(parts.begin(), parts.end());
      std::string out = n.kind == K::kMul ? "mul(" : "add(";
      for (const std::string& p : parts) out += p + ",";
      return out + ")";
    }
    case K::kRef: {
      std::string index = n.index;
      if (const auto it = rename.find(index); it != rename.end()) index = it->second;
      return fmt::format("{}[{}|{}|{}|{}]", n.name, index, n.position, n.position_name, n.offset);
    }
    case K::kCall: {
      std::vector<std::string> args;
      for (const Node& a : n.args) args.push_back(sub(a));
      if (n.name == "dot") std::sort(args.begin(), args.end());
      return n.name + "(" + fmt::format("{}", fmt::join(args, ",")) + ")";
    }
    case K::kReduce: {
      std::string out = targets::to_text(n);  // bound names inside stay as written
      for (const auto& [from, to] : rename) out += "|" + from + "=" + to;
      return out;
    }
    default: {
      std::string out =
          std::to_string(static_cast<int>(n.kind)) + ":" + std::to_string(n.number) + "(";
      for (const Node& a : n.args) out += sub(a) + ",";
      return out + ")";
    }
  }
}

Term Term::negated() const {
  Term t = *this;
  t.negative = !t.negative;
  return t;
}

Term Term::scaled(const char* op, const Node& constant) const {
  Term t = *this;
  const std::string text = targets::to_text(constant);
  t.written.push_back(op + (text.find(' ') == std::string::npos ? text : "(" + text + ")"));
  // A number's sign is the term's; its size is known to be positive (sign() leaves it out,
  // scale() keeps it: y + 2 z and y + z are two scores). A parameter's sign is a draw.
  if (const std::optional<double> number = literal_number(constant)) {
    if (*number == 0 && op[0] == '/') {  // y / 0 is no term that vanishes: keep it as written
      t.constants.push_back(op + canonical(constant, {}));
      return t;
    }
    if (*number < 0) t.negative = !t.negative;
    t.zero = t.zero || *number == 0;
    if (*number != 0)
      t.magnitude =
          op[0] == '/' ? t.magnitude / std::abs(*number) : t.magnitude * std::abs(*number);
    return t;
  }
  t.constants.push_back(op + canonical(constant, {}));
  return t;
}

Term Term::times(const Term& other) const {
  Term t = other.negative ? negated() : *this;
  t.zero = t.zero || other.zero;
  t.magnitude *= other.magnitude;
  t.constants.insert(t.constants.end(), other.constants.begin(), other.constants.end());
  t.written.insert(t.written.end(), other.written.begin(), other.written.end());
  return t;
}

std::string Term::shown(const std::string& text) const {
  std::string times;
  std::string divided;
  for (const std::string& c : written) {
    if (c.front() == '*')
      times += c.substr(1) + " * ";
    else
      divided += " / " + c.substr(1);
  }
  const std::string body =
      times.empty() && divided.empty() ? text : times + "(" + text + ")" + divided;
  return negative ? "-" + body : body;
}

std::string Term::scale() const {
  return sign() + (magnitude == 1 ? "" : fmt::format("*{}", magnitude)) + "|";
}

std::string Term::sign() const {
  std::vector<std::string> sorted = constants;
  std::sort(sorted.begin(), sorted.end());
  return (negative ? "-" : "+") + fmt::format("{}", fmt::join(sorted, ""));
}

void additive_terms(const Node& n, const Term& scale, std::vector<Term>& out,
                    std::deque<Node>& made, bool distribute) {
  if (n.kind == K::kCall && (n.name == "dot" || n.name == "bilinear")) {
    // dot(u + v, w) = dot(u, w) + dot(v, w): each pair of vector terms is a term of its own.
    const std::size_t first = n.name == "dot" ? 0 : 1;
    std::vector<Term> left;
    std::vector<Term> right;
    vector_terms(n.args[first], Term{}, left);
    vector_terms(n.args[first + 1], Term{}, right);
    const auto plain = [](const Term& t) { return !t.negative && t.written.empty(); };
    if (left.size() * right.size() > 1 || !plain(left.front()) || !plain(right.front())) {
      for (const Term& l : left) {
        for (const Term& r : right) {
          Node call = n;
          call.args[first] = *l.node;
          call.args[first + 1] = *r.node;
          made.push_back(std::move(call));
          Term t = scale.times(l).times(r);
          t.node = &made.back();
          out.push_back(t);
        }
      }
      return;
    }
  }
  if (n.kind == K::kMul && mentions_token(n.args[0]) && mentions_token(n.args[1])) {
    // A product of token terms: its numbers and signs, wherever they stand ((2 * u) * v,
    // -u * v), are the term's constant factor, and the rest its term (u * v).
    Term factor = scale;
    std::vector<const Node*> tokens;
    const bool moved = product_factors(n, factor, tokens);
    const auto sum = [](const Node* m) { return m->kind == K::kAdd || m->kind == K::kSub; };
    if (distribute && tokens.size() == 2 && (sum(tokens[0]) || sum(tokens[1]))) {
      // (u + v) * w = u * w + v * w, a term each: a product of linear forms in two tokens is
      // then a rank-one query-key product (R1: (dot(a, x[s]) + 1) * dot(b, x[t]) is one beside a
      // term in t). Not in the second reading, which reads a product of independent factors at
      // its vertices.
      std::vector<Term> left;
      std::vector<Term> right;
      vector_terms(*tokens[0], Term{}, left);
      vector_terms(*tokens[1], Term{}, right);
      for (const Term& l : left) {
        for (const Term& r : right) {
          Node product;
          product.kind = K::kMul;
          product.args = {*l.node, *r.node};
          made.push_back(std::move(product));
          additive_terms(made.back(), factor.times(l).times(r), out, made, distribute);
        }
      }
      return;
    }
    if (moved) {
      made.push_back(product_of(tokens));
      factor.node = &made.back();
      out.push_back(factor);
      return;
    }
  }
  switch (n.kind) {
    case K::kAdd:
    case K::kSub:
      additive_terms(n.args[0], scale, out, made, distribute);
      additive_terms(n.args[1], n.kind == K::kSub ? scale.negated() : scale, out, made, distribute);
      return;
    case K::kNeg:
      additive_terms(n.args[0], scale.negated(), out, made, distribute);
      return;
    case K::kMul:
      if (!mentions_token(n.args[0]))
        return additive_terms(n.args[1], scale.scaled("*", n.args[0]), out, made, distribute);
      if (!mentions_token(n.args[1]))
        return additive_terms(n.args[0], scale.scaled("*", n.args[1]), out, made, distribute);
      break;
    case K::kDiv:
      if (!mentions_token(n.args[1]))
        return additive_terms(n.args[0], scale.scaled("/", n.args[1]), out, made, distribute);
      break;
    default:
      break;
  }
  Term t = scale;
  t.node = &n;
  out.push_back(t);
}

std::string Factor::key(const std::map<std::string, std::string>& rename, bool up_to_size) const {
  auto named = [&](const std::string& i) {
    const auto it = rename.find(i);
    return it == rename.end() ? i : it->second;
  };
  if (term != nullptr) return (up_to_size ? sign + "|" : scale) + canonical(*term, rename);
  if (constraint != nullptr) {
    std::string a = named(constraint->left);
    std::string b = named(constraint->right);
    if (!constraint->strict_order && b < a) std::swap(a, b);
    return (constraint->strict_order ? "lt(" : "ne(") + a + "," + b + ")";
  }
  return (scale.empty() ? "+" : scale) + "q" + std::to_string(message) + "(" + named(message_at) +
         ")";
}

/// A factor as a construction reads it; nullopt where a parameter (not a number) scales it.
std::optional<FormTerm> form_term(const Factor& f) {
  FormTerm t;
  if (f.message >= 0) {
    t.message = f.message;
    t.message_at = f.message_at;
    t.coefficient = f.ratio;
    return t;
  }
  if (f.term == nullptr || f.sign.size() != 1) return std::nullopt;
  t.node = std::make_shared<const Node>(*f.term);
  t.coefficient = (f.sign == "-" ? -1.0 : 1.0) * f.magnitude;
  return t;
}

FactorsReading factors_reading(const std::vector<Factor>& factors, const std::string& v) {
  FactorsReading out;
  for (const Factor& f : factors) {
    if (f.indices.count(v) == 0) continue;
    out.message.insert(f.indices.begin(), f.indices.end());
    out.needs.insert(f.quantities.begin(), f.quantities.end());
    (f.constraint != nullptr ? out.constraints : out.texts).push_back(f.signed_text());
    out.used.push_back(&f);
  }
  return out;
}

long scoring_terms(const std::vector<const Factor*>& factors) {
  return std::count_if(factors.begin(), factors.end(),
                       [](const Factor* f) { return f->constraint == nullptr; });
}

/// The one term of a score that is not an index constraint (the caller counted them).
const Factor* single_score(const std::vector<const Factor*>& terms) {
  for (const Factor* f : terms) {
    if (f->constraint == nullptr) return f;
  }
  return nullptr;
}

}  // namespace infoflow::theorems::detail
