#include "infoflow/targets/evaluator.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>

#include "infoflow/core/limits.hpp"
#include "infoflow/core/random.hpp"

namespace infoflow::targets {

namespace {
void require(bool ok, const std::string& message) {
  if (!ok) throw InputError(message);
}

Eigen::MatrixXd unit_vector(Rng& rng, long d) {
  Eigen::MatrixXd v(d, 1);
  for (long i = 0; i < d; ++i) v(i, 0) = rng.normal();
  return v / v.norm();
}
}  // namespace

Evaluator::Evaluator(Formula formula, Bindings bindings, long token_dim, std::uint64_t task_seed)
    : formula_(std::make_shared<const Formula>(std::move(formula))),
      bindings_(std::move(bindings)),
      tokens_(0),
      token_dim_(token_dim) {
  const auto t = bindings_.find("T");
  require(t != bindings_.end() && t->second >= 1 && t->second <= limits::kTokens,
          "the formula needs T between 1 and " + std::to_string(limits::kTokens));
  tokens_ = t->second;
  require(token_dim_ >= 1 && token_dim_ <= kMaxTokenDim,
          "the token dimension d must be between 1 and " + std::to_string(kMaxTokenDim));
  require(formula_->highest_position() <= tokens_,
          "the formula reads x[" + std::to_string(formula_->highest_position()) +
              "] but T = " + std::to_string(tokens_));

  const double cost = prepare(formula_->root(), 1);
  if (cost > static_cast<double>(limits::kEvaluationCost)) {
    char terms[32];
    std::snprintf(terms, sizeof terms, "%.2g", cost);
    throw InputError(std::string("evaluating the formula once visits about ") + terms +
                     " terms; at most " + std::to_string(limits::kEvaluationCost) +
                     " are accepted (a smaller T or range)");
  }
  Rng matrices(derive_seed(task_seed, {1}));
  Rng families(derive_seed(task_seed, {2}));
  Rng vectors(derive_seed(task_seed, {3}));
  Rng scalars(derive_seed(task_seed, {4}));
  const double sd = 1.0 / std::sqrt(static_cast<double>(token_dim_));
  for (const Parameter& p : formula_->parameters()) {
    const long members = p.indexed ? resolve(p.family_size, bindings_) : 1;
    require(members >= 1, "parameter family " + p.name + " is empty");
    require(members <= limits::kTaskSize, "parameter family " + p.name + " has more than " +
                                              std::to_string(limits::kTaskSize) + " members");
    std::vector<Eigen::MatrixXd>& out = parameters_[p.name];
    for (long i = 0; i < members; ++i) {
      if (p.kind == ValueKind::kMatrix) {
        Eigen::MatrixXd a(token_dim_, token_dim_);
        for (long c = 0; c < token_dim_; ++c) {
          for (long r = 0; r < token_dim_; ++r) a(r, c) = sd * matrices.normal();
        }
        out.push_back(a);
      } else if (p.kind == ValueKind::kVector) {
        out.push_back(unit_vector(p.indexed ? families : vectors, token_dim_));
      } else {
        out.push_back(Eigen::MatrixXd::Constant(1, 1, scalars.normal()));
      }
    }
  }
  // One evaluation surfaces what only values reveal: an empty reduction, k above the count.
  (void)(*this)(Eigen::MatrixXd::Zero(token_dim_, tokens_));
}

double Evaluator::prepare(const Node& n, double repeats) {
  double inside = repeats;  // how often the node's arguments are evaluated
  if (n.kind == Node::Kind::kRef && !n.position_name.empty()) {
    require(tokens_ + n.offset >= 1, "the formula reads " + to_text(n) +
                                         ", before the first token for T = " +
                                         std::to_string(tokens_));
  }
  if (n.kind == Node::Kind::kReduce) {
    std::vector<Range>& ranges = ranges_[&n];
    for (const Binder& b : n.binders) {
      if (slots_.count(b.name) == 0) {
        const int slot = static_cast<int>(slots_.size());
        slots_[b.name] = slot;
      }
      const Range r = b.has_range ? Range{resolve(b.low, bindings_), resolve(b.high, bindings_)}
                                  : Range{1, tokens_};
      require(r.low <= r.high,
              "the range " + b.name + " = " + b.low.text() + ".." + b.high.text() + " is empty");
      ranges.push_back(r);
      inside *= static_cast<double>(r.high) - static_cast<double>(r.low) + 1;
    }
    if (n.op == ReduceOp::kKth) {
      ranks_[&n] = resolve(n.rank, bindings_);
      require(ranks_[&n] >= 1, "kth() counts from 1");
    }
  }
  double cost = repeats;
  for (const Node& a : n.args) cost += prepare(a, inside);
  return cost;
}

const Eigen::MatrixXd& Evaluator::parameter(const std::string& name, std::size_t i) const {
  return parameters_.at(name).at(i);
}

double Evaluator::operator()(const Eigen::Ref<const Eigen::MatrixXd>& x) const {
  std::vector<long> env(slots_.size(), 0);
  return eval(formula_->root(), x, env).s;
}

void Evaluator::operator()(const Eigen::Ref<const Eigen::MatrixXd>& x,
                           Eigen::Ref<Eigen::VectorXd> y) const {
  for (long i = 0; i < y.size(); ++i) y(i) = (*this)(x.middleCols(i * tokens_, tokens_));
}

Evaluator::Value Evaluator::eval(const Node& n, const Eigen::Ref<const Eigen::MatrixXd>& x,
                                 std::vector<long>& env) const {
  using K = Node::Kind;
  Value out;
  switch (n.kind) {
    case K::kNumber:
      out.s = n.number;
      return out;
    case K::kRef: {
      const long i = n.position > 0               ? n.position
                     : !n.position_name.empty() ? tokens_ + n.offset
                     : n.index.empty()          ? 0
                                  : env[static_cast<std::size_t>(slots_.at(n.index))] + n.offset;
      if (n.name == "x") {
        out.vector = true;
        if (i < 1 || i > tokens_) {  // x[t+c] beyond the sequence reads zero (docs/targets.md)
          out.v = Vec::Zero(token_dim_);
          return out;
        }
        out.v = x.col(i - 1);
        return out;
      }
      const Eigen::MatrixXd& p =
          parameters_.at(n.name).at(static_cast<std::size_t>(i > 0 ? i - 1 : 0));
      if (n.value == ValueKind::kVector) {
        out.v = p.col(0);
        out.vector = true;
      } else {
        out.s = p(0, 0);
      }
      return out;
    }
    case K::kCall: {
      if (n.name == "bilinear") {
        const Node& m = n.args[0];
        const long i = m.index.empty() ? 0 : env[static_cast<std::size_t>(slots_.at(m.index))];
        const Eigen::MatrixXd& a =
            parameters_.at(m.name).at(static_cast<std::size_t>(i > 0 ? i - 1 : 0));
        const Value u = eval(n.args[1], x, env);
        const Value v = eval(n.args[2], x, env);
        out.s = u.v.dot(a * v.v);
        return out;
      }
      if (n.name == "dot") {
        out.s = eval(n.args[0], x, env).v.dot(eval(n.args[1], x, env).v);
        return out;
      }
      const Value a = eval(n.args[0], x, env);
      if (n.name == "norm")
        out.s = a.v.norm();
      else if (n.name == "sqnorm")
        out.s = a.v.squaredNorm();
      else if (n.name == "exp")
        out.s = std::exp(a.s);
      else if (n.name == "log")
        out.s = std::log(a.s);
      else if (n.name == "sqrt")
        out.s = std::sqrt(a.s);
      else if (n.name == "abs")
        out.s = std::abs(a.s);
      else if (n.name == "tanh")
        out.s = std::tanh(a.s);
      else if (n.name == "sin")
        out.s = std::sin(a.s);
      else if (n.name == "cos")
        out.s = std::cos(a.s);
      else
        out.s = std::max(0.0, a.s);  // relu; the checker admits no other name
      return out;
    }
    case K::kNeg: {
      out = eval(n.args[0], x, env);
      out.s = -out.s;
      if (out.vector) out.v = -out.v;
      return out;
    }
    case K::kAdd:
    case K::kSub: {
      const Value a = eval(n.args[0], x, env);
      const Value b = eval(n.args[1], x, env);
      const double sign = n.kind == K::kAdd ? 1.0 : -1.0;
      out.vector = a.vector;
      if (a.vector)
        out.v = a.v + sign * b.v;
      else
        out.s = a.s + sign * b.s;
      return out;
    }
    case K::kMul: {
      const Value a = eval(n.args[0], x, env);
      const Value b = eval(n.args[1], x, env);
      out.vector = a.vector || b.vector;
      if (a.vector)
        out.v = a.v * b.s;
      else if (b.vector)
        out.v = a.s * b.v;
      else
        out.s = a.s * b.s;
      return out;
    }
    case K::kDiv: {
      const Value a = eval(n.args[0], x, env);
      const double b = eval(n.args[1], x, env).s;
      out.vector = a.vector;
      if (a.vector)
        out.v = a.v / b;
      else
        out.s = a.s / b;
      return out;
    }
    case K::kPow:
      out.s = std::pow(eval(n.args[0], x, env).s, eval(n.args[1], x, env).s);
      return out;
    case K::kReduce:
      return reduce(n, x, env);
  }
  return out;
}

Evaluator::Value Evaluator::reduce(const Node& n, const Eigen::Ref<const Eigen::MatrixXd>& x,
                                   std::vector<long>& env) const {
  const std::vector<Range>& ranges = ranges_.at(&n);
  std::vector<std::size_t> slots;
  for (const Binder& b : n.binders) slots.push_back(static_cast<std::size_t>(slots_.at(b.name)));
  std::vector<std::pair<std::size_t, std::size_t>> constraints;  // slot pairs
  std::vector<bool> strict;
  for (const IndexConstraint& c : n.constraints) {
    constraints.emplace_back(static_cast<std::size_t>(slots_.at(c.left)),
                             static_cast<std::size_t>(slots_.at(c.right)));
    strict.push_back(c.strict_order);
  }
  Value total;
  bool first = true;
  double best_key = 0;
  std::vector<std::pair<double, double>> ranked;  // kth: (key, body)
  long tuples = 0;
  const bool maximise = n.op == ReduceOp::kMax;
  std::function<void(std::size_t)> visit = [&](std::size_t j) {
    if (j == slots.size()) {
      for (std::size_t c = 0; c < constraints.size(); ++c) {
        const long a = env[constraints[c].first];
        const long b = env[constraints[c].second];
        if (strict[c] ? !(a < b) : a == b) return;
      }
      ++tuples;
      const Value body = eval(n.args[0], x, env);
      if (n.op == ReduceOp::kSum) {
        if (first)
          total = body;
        else if (body.vector)
          total.v += body.v;
        else
          total.s += body.s;
        first = false;
        return;
      }
      const double key = n.has_key() ? eval(n.args[1], x, env).s : body.s;
      if (n.op == ReduceOp::kKth) {
        ranked.emplace_back(key, body.s);
      } else if (first || (maximise ? key > best_key : key < best_key)) {
        best_key = key;
        total.s = body.s;
        first = false;
      }
      return;
    }
    for (long v = ranges[j].low; v <= ranges[j].high; ++v) {
      env[slots[j]] = v;
      visit(j + 1);
    }
  };
  visit(0);
  require(tuples > 0, "the reduction '" + to_text(n) +
                          "' has no index tuple for T = " + std::to_string(tokens_));
  if (n.op == ReduceOp::kKth) {
    const long k = ranks_.at(&n);
    require(k <= tuples,
            "kth(" + std::to_string(k) + ") over " + std::to_string(tuples) + " index tuples");
    std::nth_element(ranked.begin(), ranked.begin() + (k - 1), ranked.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    total.s = ranked[static_cast<std::size_t>(k - 1)].second;
  }
  return total;
}

}  // namespace infoflow::targets
