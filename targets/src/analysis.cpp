#include "infoflow/targets/analysis.hpp"

#include <algorithm>
#include <set>

namespace infoflow::targets {

namespace {

/// Token indices: those that subscript x somewhere below `n`.
void token_indices(const Node& n, std::set<std::string>& out) {
  if (n.kind == Node::Kind::kRef && n.name == "x" && !n.index.empty()) out.insert(n.index);
  for (const Node& a : n.args) token_indices(a, out);
}

/// The index names referenced below `n` (free in it or not: names are unique along a path).
void referenced(const Node& n, std::set<std::string>& out) {
  if (n.kind == Node::Kind::kRef && !n.index.empty()) out.insert(n.index);
  for (const Node& a : n.args) referenced(a, out);
}

void positions(const Node& n, std::vector<long>& out) {
  if (n.kind == Node::Kind::kRef && n.name == "x" && n.position > 0) out.push_back(n.position);
  for (const Node& a : n.args) positions(a, out);
}

/// Top-level terms of a sum or difference.
void terms(const Node& n, std::vector<const Node*>& out) {
  if (n.kind == Node::Kind::kAdd || n.kind == Node::Kind::kSub) {
    terms(n.args[0], out);
    terms(n.args[1], out);
  } else if (n.kind == Node::Kind::kNeg) {
    terms(n.args[0], out);
  } else {
    out.push_back(&n);
  }
}

void add(std::vector<Monomial>& poly, Monomial m) {
  // A literal range (i = 1..3) multiplies the coefficient; named ones stay names.
  std::erase_if(m.names, [&](const std::string& n) {
    const bool literal = !n.empty() && std::all_of(n.begin(), n.end(), [](char c) {
      return c >= '0' && c <= '9';
    });
    if (literal) m.coefficient *= std::stol(n);
    return literal;
  });
  std::sort(m.names.begin(), m.names.end());
  for (Monomial& p : poly) {
    if (p.names == m.names && p.power == m.power) {
      p.coefficient += m.coefficient;
      return;
    }
  }
  poly.push_back(std::move(m));
}

class Walker {
 public:
  explicit Walker(Analysis& out) : out_(out) {}

  void visit(const Node& n, std::vector<std::string>& multiplicity) {
    if (n.kind != Node::Kind::kReduce) {
      if (n.kind == Node::Kind::kRef && n.name == "x" && n.position > 0)
        out_.fixed_positions.push_back(n.position);
      for (const Node& a : n.args) visit(a, multiplicity);
      return;
    }
    std::set<std::string> tokens;
    token_indices(n, tokens);
    std::vector<const Binder*> over_tokens;
    std::vector<const Binder*> over_params;
    for (const Binder& b : n.binders) {
      // A token index with a range other than 1..T reads fixed positions, not a comparison.
      const bool all_tokens =
          !b.has_range || (b.low.name.empty() && b.low.value == 1 && b.high.name == "T");
      const bool fixed = !all_tokens;
      if (tokens.count(b.name) != 0 && !fixed)
        over_tokens.push_back(&b);
      else if (tokens.count(b.name) != 0)
        fixed_range(b);
      else
        over_params.push_back(&b);
    }
    const std::size_t depth = multiplicity.size();
    for (const Binder* b : over_params) multiplicity.push_back(b->high.text());
    if (over_tokens.empty()) {
      for (const Node& a : n.args) visit(a, multiplicity);
    } else {
      comparison(n, over_tokens, multiplicity);
    }
    multiplicity.resize(depth);
  }

 private:
  void fixed_range(const Binder& b) {
    if (!b.low.name.empty() || !b.high.name.empty()) {
      out_.fixed_ranges.emplace_back(b.low, b.high);
      return;
    }
    for (long p = b.low.value; p <= b.high.value; ++p) out_.fixed_positions.push_back(p);
  }

  /// `n` starts a comparison; follow directly nested token reductions into it.
  void comparison(const Node& n, const std::vector<const Binder*>& first,
                  std::vector<std::string>& multiplicity) {
    Comparison c;
    c.text = to_text(n);
    c.mode = n.op == ReduceOp::kKth   ? CompareMode::kRanked
             : n.op == ReduceOp::kSum ? CompareMode::kSum
                                      : CompareMode::kExtremum;
    c.rank = n.rank;
    c.multiplicity = multiplicity;
    std::set<std::string> chain;
    for (const Binder* b : first) chain.insert(b->name);
    const Node* body = &n.args[0];
    std::vector<const Node*> keys;
    if (n.has_key()) keys.push_back(&n.args[1]);
    while (body->kind == Node::Kind::kReduce) {
      std::set<std::string> inner_tokens;
      token_indices(*body, inner_tokens);
      bool nested = false;
      for (const Binder& b : body->binders) {
        if (inner_tokens.count(b.name) != 0 && !b.has_range) {
          chain.insert(b.name);
          nested = true;
        }
      }
      if (!nested) break;
      if (body->op == ReduceOp::kKth) {
        c.mode = CompareMode::kRanked;
        c.rank = body->rank;
      }
      if (body->has_key()) keys.push_back(&body->args[1]);
      body = &body->args[0];
    }
    c.indices = static_cast<int>(chain.size());
    // Split: every top-level term of the body depends on at most one compared index. Only for
    // extrema and sums (a k-th value of a sum does not split), and without a key.
    bool split = c.indices > 1 && c.mode != CompareMode::kRanked && keys.empty();
    if (split) {
      std::vector<const Node*> parts;
      terms(*body, parts);
      for (const Node* t : parts) {
        std::set<std::string> used;
        referenced(*t, used);
        long count = 0;
        for (const std::string& i : chain) count += used.count(i);
        if (count > 1) split = false;
      }
    }
    c.split = split;
    c.order = split ? 1 : c.indices;
    positions(n, c.positions);
    out_.comparisons.push_back(c);
    // Reductions inside the body that do not involve the compared indices are comparisons of
    // their own (they are constants for this one).
    std::vector<const Node*> rest{body};
    for (const Node* k : keys) rest.push_back(k);
    for (const Node* r : rest) independent(*r, chain, multiplicity);
  }

  void independent(const Node& n, const std::set<std::string>& chain,
                   std::vector<std::string>& multiplicity) {
    if (n.kind == Node::Kind::kReduce) {
      std::set<std::string> used;
      referenced(n, used);
      bool touches = false;
      for (const std::string& i : chain) touches = touches || used.count(i) != 0;
      if (!touches) {
        visit(n, multiplicity);
        return;
      }
    }
    for (const Node& a : n.args) independent(a, chain, multiplicity);
  }

  Analysis& out_;
};

std::string monomial_text(const Monomial& m) {
  std::vector<std::string> factors;
  if (m.coefficient != 1 || (m.names.empty() && m.power == 0))
    factors.push_back(std::to_string(m.coefficient));
  for (const std::string& n : m.names) factors.push_back(n);
  if (m.power == 1) factors.emplace_back("T");
  if (m.power > 1) factors.push_back("T^" + std::to_string(m.power));
  std::string out;
  for (const std::string& f : factors) out += (out.empty() ? "" : "*") + f;
  return out;
}

}  // namespace

std::string to_text(const std::vector<Monomial>& polynomial) {
  if (polynomial.empty()) return "0";
  std::vector<Monomial> sorted = polynomial;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Monomial& a, const Monomial& b) {
    return a.power != b.power ? a.power > b.power : a.names.size() > b.names.size();
  });
  std::string out;
  for (const Monomial& m : sorted) out += (out.empty() ? "" : " + ") + monomial_text(m);
  return out;
}

std::string Analysis::dimension_text() const {
  return to_text(dimension);
}
std::string Analysis::number_text() const {
  return to_text(number);
}

long Analysis::dimension_value(const Bindings& bindings) const {
  long total = 0;
  for (const Monomial& m : dimension) {
    long v = m.coefficient;
    for (const std::string& n : m.names) v *= resolve(Bound{0, n}, bindings);
    total += v;
  }
  return total;
}

Analysis analyze(const Formula& formula) {
  Analysis a;
  std::vector<std::string> multiplicity;
  Walker(a).visit(formula.root(), multiplicity);
  std::sort(a.fixed_positions.begin(), a.fixed_positions.end());
  a.fixed_positions.erase(std::unique(a.fixed_positions.begin(), a.fixed_positions.end()),
                          a.fixed_positions.end());
  for (const Comparison& c : a.comparisons) {
    a.order = std::max(a.order, c.order);
    const long count = c.split ? c.indices : 1;
    add(a.dimension, Monomial{count, c.multiplicity, 0});
    add(a.number, Monomial{count, c.multiplicity, c.order});
  }
  return a;
}

}  // namespace infoflow::targets
