#include "infoflow/targets/evaluator.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <numeric>
#include <set>

#include "infoflow/core/limits.hpp"
#include "infoflow/core/random.hpp"
#include "infoflow/targets/monotone.hpp"
#include "infoflow/targets/operations.hpp"

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

/// x[index], the token at a bound index without offset.
bool is_token(const Node& n, const std::string& index) {
  return n.kind == Node::Kind::kRef && n.name == "x" && n.index == index && n.offset == 0 &&
         n.position == 0 && n.position_name.empty();
}

/// A parameter of the given kind, plain or a family member at an index other than `bound`.
bool is_parameter(const Node& n, ValueKind kind, const std::string& bound) {
  return n.kind == Node::Kind::kRef && n.name != "x" && n.value == kind && n.position == 0 &&
         n.position_name.empty() && n.offset == 0 && (n.index.empty() || n.index != bound);
}

/// dot(a, x[t]) or dot(x[t], a): the node of a, else nullptr.
const Node* direction_of(const Node& n, const std::string& t) {
  if (n.kind != Node::Kind::kCall || n.name != "dot") return nullptr;
  for (int i = 0; i < 2; ++i) {
    const Node& a = n.args[static_cast<std::size_t>(i)];
    if (is_parameter(a, ValueKind::kVector, t) &&
        is_token(n.args[static_cast<std::size_t>(1 - i)], t))
      return &a;
  }
  return nullptr;
}

std::string empty_reduction(const Node& n, long tokens) {
  return "the reduction '" + to_text(n) + "' has no index tuple for T = " + std::to_string(tokens);
}

bool plain_reduction(const Node& n, std::size_t binders) {
  if (n.kind != Node::Kind::kReduce || n.binders.size() != binders || n.has_key()) return false;
  for (const Binder& b : n.binders)
    if (b.has_range) return false;
  return true;
}
}  // namespace

Evaluator::Evaluator(Formula formula, Bindings bindings, long token_dim, std::uint64_t task_seed,
                     Summation summation)
    : formula_(std::make_shared<const Formula>(std::move(formula))),
      root_(std::make_shared<const Node>(unsaturated_keys(formula_->root()))),
      bindings_(std::move(bindings)),
      tokens_(0),
      token_dim_(token_dim),
      summation_(summation) {
  const auto t = bindings_.find("T");
  require(t != bindings_.end() && t->second >= 1 && t->second <= limits::kTokens,
          "the formula needs T between 1 and " + std::to_string(limits::kTokens));
  tokens_ = t->second;
  require(token_dim_ >= 1 && token_dim_ <= kMaxTokenDim,
          "the token dimension d must be between 1 and " + std::to_string(kMaxTokenDim));
  require(formula_->highest_position() <= tokens_,
          "the formula reads x[" + std::to_string(formula_->highest_position()) +
              "] but T = " + std::to_string(tokens_));

  const double cost = prepare(*root_, 1);
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
  // A matrix entry is a normal divided by sqrt(d), as the hand-written intrinsic_dim task drew
  // it (times 1/sqrt(d) differs in the last bit unless d is 1, 4 or 16).
  const double root_d = std::sqrt(static_cast<double>(token_dim_));
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
          for (long r = 0; r < token_dim_; ++r) a(r, c) = matrices.normal() / root_d;
        }
        out.push_back(a);
      } else if (p.kind == ValueKind::kVector) {
        out.push_back(unit_vector(p.indexed ? families : vectors, token_dim_));
      } else {
        out.push_back(Eigen::MatrixXd::Constant(1, 1, scalars.normal()));
      }
    }
  }
  compile(*root_);
  // One evaluation surfaces what only values reveal: an empty reduction, k above the count.
  (void)(*this)(Eigen::MatrixXd::Zero(token_dim_, tokens_));
}

Evaluator::Evaluator(const Evaluator& other) = default;
Evaluator::Evaluator(Evaluator&& other) noexcept = default;
Evaluator& Evaluator::operator=(const Evaluator& other) = default;
Evaluator& Evaluator::operator=(Evaluator&& other) noexcept = default;
Evaluator::~Evaluator() = default;

double Evaluator::prepare(const Node& n, double repeats) {
  double inside = repeats;  // how often the node's arguments are evaluated
  if (n.kind == Node::Kind::kRef && !n.position_name.empty()) {
    require(tokens_ + n.offset >= 1,
            "the formula reads " + to_text(n) +
                ", before the first token for T = " + std::to_string(tokens_));
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

Evaluator::ParameterUse Evaluator::use_of(const Node& ref) const {
  return {ref.name, ref.index.empty() ? -1 : slots_.at(ref.index)};
}

void Evaluator::compile(const Node& n) {
  using Shape = Kernel::Shape;
  const bool blocked = summation_ == Summation::kBlocked;
  Kernel k;
  k.op = n.op;
  const bool extremum = n.op == ReduceOp::kMax || n.op == ReduceOp::kMin;
  if (plain_reduction(n, 2) && n.op != ReduceOp::kKth && n.constraints.size() <= 1) {
    const std::string& s = n.binders[0].name;
    const std::string& t = n.binders[1].name;
    const Node& body = n.args[0];
    const bool dot = body.kind == Node::Kind::kCall && body.name == "dot";
    const bool bilinear = body.kind == Node::Kind::kCall && body.name == "bilinear" &&
                          is_parameter(body.args[0], ValueKind::kMatrix, s) &&
                          body.args[0].index != t;
    const std::size_t first = bilinear ? 1 : 0;
    const bool tokens = (dot || bilinear) &&
                        ((is_token(body.args[first], s) && is_token(body.args[first + 1], t)) ||
                         (is_token(body.args[first], t) && is_token(body.args[first + 1], s)));
    if (tokens) {
      k.shape = Shape::kPairs;
      k.swapped = body.args[first].index == t;
      if (bilinear) k.matrix = use_of(body.args[0]);
      if (!n.constraints.empty()) {
        const IndexConstraint& c = n.constraints[0];
        const bool between = (c.left == s && c.right == t) || (c.left == t && c.right == s);
        if (!between) {
          for (const Node& a : n.args) compile(a);
          return;
        }
        k.constraint = !c.strict_order ? 1 : c.left == s ? 2 : 3;  // 3: the second binder first
      }
      require(tokens_ >= (n.constraints.empty() ? 1 : 2), empty_reduction(n, tokens_));
      kernels_[&n] = k;
      return;
    }
  }
  if (plain_reduction(n, 1) && n.constraints.empty() && n.op != ReduceOp::kKth) {
    if (const Node* a = direction_of(n.args[0], n.binders[0].name)) {
      k.shape = Shape::kTokens;
      k.key = use_of(*a);
      kernels_[&n] = k;
      return;
    }
  }
  if (blocked && n.kind == Node::Kind::kReduce && n.op == ReduceOp::kSum && n.binders.size() == 1 &&
      n.binders[0].has_range && n.constraints.empty() && !n.has_key()) {
    const Node& inner = n.args[0];
    const Range r = ranges_.at(&n)[0];
    const Node* a = plain_reduction(inner, 1) && inner.constraints.empty() &&
                            (inner.op == ReduceOp::kMax || inner.op == ReduceOp::kMin)
                        ? direction_of(inner.args[0], inner.binders[0].name)
                        : nullptr;
    if (a != nullptr && a->index == n.binders[0].name && r.low == 1 &&
        r.high == static_cast<long>(parameters_.at(a->name).size())) {
      k.shape = Shape::kFamilyTokens;
      k.op = inner.op;
      k.directions.resize(token_dim_, r.high);
      for (long i = 0; i < r.high; ++i)
        k.directions.col(i) = parameters_.at(a->name)[static_cast<std::size_t>(i)];
      kernels_[&n] = k;
      return;
    }
  }
  if (n.kind == Node::Kind::kReduce && n.op == ReduceOp::kKth && n.binders.size() == 1 &&
      !n.binders[0].has_range && n.constraints.empty()) {
    const std::string& t = n.binders[0].name;
    const Node* b = direction_of(n.args[0], t);
    const Node* a = n.has_key() ? direction_of(n.args[1], t) : b;
    if (a != nullptr && b != nullptr) {
      k.shape = Shape::kRanked;
      k.key = use_of(*a);
      k.value = use_of(*b);
      k.count = ranks_.at(&n);
      require(k.count <= tokens_, "kth(" + std::to_string(k.count) + ") over " +
                                      std::to_string(tokens_) + " index tuples");
      kernels_[&n] = k;
      return;
    }
  }
  if (plain_reduction(n, 3) && extremum && n.constraints.empty() &&
      (n.args[0].kind == Node::Kind::kAdd || n.args[0].kind == Node::Kind::kSub)) {
    const std::set<std::string> bound{n.binders[0].name, n.binders[1].name, n.binders[2].name};
    std::array<std::pair<std::string, std::string>, 2> tokens;  // each term's (first, second)
    bool forms = true;
    for (std::size_t i = 0; i < 2 && forms; ++i) {
      const Node& term = n.args[0].args[i];
      const bool dot = term.kind == Node::Kind::kCall && term.name == "dot";
      const bool bilinear = term.kind == Node::Kind::kCall && term.name == "bilinear" &&
                            term.args[0].kind == Node::Kind::kRef && term.args[0].name != "x" &&
                            term.args[0].value == ValueKind::kMatrix && term.args[0].position == 0 &&
                            term.args[0].position_name.empty() && term.args[0].offset == 0 &&
                            bound.count(term.args[0].index) == 0;
      const std::size_t first = bilinear ? 1 : 0;
      forms = (dot || bilinear) && bound.count(term.args[first].index) != 0 &&
              bound.count(term.args[first + 1].index) != 0 &&
              is_token(term.args[first], term.args[first].index) &&
              is_token(term.args[first + 1], term.args[first + 1].index) &&
              term.args[first].index != term.args[first + 1].index;
      if (forms) {
        tokens[i] = {term.args[first].index, term.args[first + 1].index};
        k.forms[i] = bilinear ? use_of(term.args[0]) : ParameterUse{};
      }
    }
    // The two terms share exactly one index, and together bind all three.
    std::vector<std::string> shared;
    for (const std::string& a : {tokens[0].first, tokens[0].second})
      if (a == tokens[1].first || a == tokens[1].second) shared.push_back(a);
    if (forms && shared.size() == 1) {
      k.shape = Shape::kChain;
      k.shared_first = {tokens[0].first == shared[0], tokens[1].first == shared[0]};
      k.subtracted = n.args[0].kind == Node::Kind::kSub;
      kernels_[&n] = k;
      return;
    }
  }
  if (plain_reduction(n, 3) && extremum && n.constraints.size() == 2) {
    const std::string& t1 = n.binders[0].name;
    const std::string& t2 = n.binders[1].name;
    const std::string& t3 = n.binders[2].name;
    const IndexConstraint& c1 = n.constraints[0];
    const IndexConstraint& c2 = n.constraints[1];
    const Node& body = n.args[0];
    const bool chain = c1.strict_order && c2.strict_order && c1.left == t1 && c1.right == t2 &&
                       c2.left == t2 && c2.right == t3;
    const bool norm =
        body.kind == Node::Kind::kCall && (body.name == "sqnorm" || body.name == "norm");
    if (chain && norm) {
      const Node& sum = body.args[0];
      if (sum.kind == Node::Kind::kAdd && sum.args[0].kind == Node::Kind::kAdd &&
          is_token(sum.args[0].args[0], t1) && is_token(sum.args[0].args[1], t2) &&
          is_token(sum.args[1], t3)) {
        require(tokens_ >= 3, empty_reduction(n, tokens_));
        k.shape = Shape::kTriples;
        k.root = body.name == "norm";
        kernels_[&n] = k;
        return;
      }
    }
  }
  if (blocked && n.kind == Node::Kind::kCall && n.name == "sqnorm") {
    const Node& sum = n.args[0];
    if (sum.kind == Node::Kind::kReduce && sum.op == ReduceOp::kSum && sum.binders.size() == 1 &&
        sum.binders[0].has_range && sum.constraints.empty() && !sum.has_key() &&
        is_token(sum.args[0], sum.binders[0].name) && ranges_.at(&sum)[0].low == 1 &&
        ranges_.at(&sum)[0].high <= tokens_) {
      k.shape = Shape::kLeadingSum;
      k.count = ranges_.at(&sum)[0].high;
      kernels_[&n] = k;
      return;
    }
  }
  for (const Node& a : n.args) compile(a);
}

const Eigen::MatrixXd& Evaluator::member(const ParameterUse& use,
                                         const std::vector<long>& env) const {
  const long i = use.slot < 0 ? 1 : env[static_cast<std::size_t>(use.slot)];
  return parameters_.at(use.name).at(static_cast<std::size_t>(i - 1));
}

Evaluator::Scratch Evaluator::scratch() const {
  Scratch s;
  s.tokens.resize(static_cast<std::size_t>(tokens_));
  s.product.resize(token_dim_, tokens_);
  s.pairs.resize(tokens_, tokens_);
  s.second_pairs.resize(tokens_, tokens_);
  s.scores.resize(tokens_);
  s.pair.resize(token_dim_);
  s.order.resize(static_cast<std::size_t>(tokens_));
  return s;
}

double Evaluator::pairs(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& x,
                        const std::vector<long>& env, Scratch& scratch) const {
  // scratch.pairs(i, j) = the body with its first token x[i] and its second x[j].
  Eigen::MatrixXd& g = scratch.pairs;
  g.resize(tokens_, tokens_);
  const Eigen::MatrixXd* a = k.matrix.name.empty() ? nullptr : &member(k.matrix, env);
  if (summation_ == Summation::kBlocked) {
    if (a != nullptr) {
      scratch.product.noalias() = *a * x;
      g.noalias() = x.transpose() * scratch.product;
    } else {
      g.noalias() = x.transpose() * x;
    }
  } else {
    per_token_form(a, x, scratch, g);
  }
  const bool maximise = k.op == ReduceOp::kMax;
  if (k.op != ReduceOp::kSum && k.constraint == 0) return maximise ? g.maxCoeff() : g.minCoeff();
  if (k.op != ReduceOp::kSum) {  // an extremum does not depend on the order: column by column
    const bool ordered = k.constraint >= 2;
    const bool first_below = (k.constraint == 2) != k.swapped;  // first token's index smaller
    double best = maximise ? -std::numeric_limits<double>::infinity()
                           : std::numeric_limits<double>::infinity();
    for (long j = 0; j < tokens_; ++j) {
      const long from = ordered && !first_below ? j + 1 : 0;
      const long to = ordered && first_below ? j : tokens_;
      for (long i = from; i < to; ++i) {
        if (i == j) continue;
        best = maximise ? std::max(best, g(i, j)) : std::min(best, g(i, j));
      }
    }
    return best;
  }
  // A sum in the order of the tree walk: the first binder outer, the second inner.
  double total = 0;
  bool first = true;
  for (long s = 0; s < tokens_; ++s) {
    for (long t = 0; t < tokens_; ++t) {
      if ((k.constraint == 1 && s == t) || (k.constraint == 2 && !(s < t)) ||
          (k.constraint == 3 && !(t < s)))
        continue;
      total = first ? (k.swapped ? g(t, s) : g(s, t)) : total + (k.swapped ? g(t, s) : g(s, t));
      first = false;
    }
  }
  return total;
}

void Evaluator::per_token_form(const Eigen::MatrixXd* a, const Eigen::Ref<const Eigen::MatrixXd>& x,
                               Scratch& scratch, Eigen::MatrixXd& g) const {
  g.resize(tokens_, tokens_);
  for (long t = 0; t < tokens_; ++t) {
    scratch.tokens[static_cast<std::size_t>(t)] = x.col(t);
    if (a != nullptr)
      scratch.product.col(t).noalias() = *a * scratch.tokens[static_cast<std::size_t>(t)];
  }
  for (long j = 0; j < tokens_; ++j) {
    const Vec& v = scratch.tokens[static_cast<std::size_t>(j)];
    if (a != nullptr) {
      for (long i = 0; i < tokens_; ++i)
        g(i, j) = scratch.tokens[static_cast<std::size_t>(i)].dot(scratch.product.col(j));
    } else {  // a dot product is symmetric to the bit (the same products, summed alike)
      for (long i = 0; i <= j; ++i)
        g(i, j) = g(j, i) = scratch.tokens[static_cast<std::size_t>(i)].dot(v);
    }
  }
}

double Evaluator::chain(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& x,
                        const std::vector<long>& env, Scratch& scratch) const {
  // Always in the walk's order of sums: the walk is what drew this shape's recorded data.
  const std::array<Eigen::MatrixXd*, 2> g{&scratch.pairs, &scratch.second_pairs};
  for (std::size_t i = 0; i < 2; ++i) {
    const ParameterUse& form = k.forms[i];
    per_token_form(form.name.empty() ? nullptr : &member(form, env), x, scratch, *g[i]);
  }
  const bool maximise = k.op == ReduceOp::kMax;
  double best = 0;
  for (long m = 0; m < tokens_; ++m) {  // the shared index
    std::array<double, 2> extreme{};
    for (std::size_t i = 0; i < 2; ++i) {
      // The second term enters with a minus sign when subtracted: its opposite extreme.
      const bool larger = maximise != (i == 1 && k.subtracted);
      const Eigen::MatrixXd& form = *g[i];
      extreme[i] = k.shared_first[i] ? (larger ? form.row(m).maxCoeff() : form.row(m).minCoeff())
                                     : (larger ? form.col(m).maxCoeff() : form.col(m).minCoeff());
    }
    const double value = k.subtracted ? extreme[0] - extreme[1] : extreme[0] + extreme[1];
    if (m == 0 || (maximise ? value > best : value < best)) best = value;
  }
  return best;
}

double Evaluator::run(const Kernel& k, const Eigen::Ref<const Eigen::MatrixXd>& x,
                      const std::vector<long>& env, Scratch& scratch) const {
  using Shape = Kernel::Shape;
  const bool maximise = k.op == ReduceOp::kMax;
  switch (k.shape) {
    case Shape::kPairs:
      return pairs(k, x, env, scratch);
    case Shape::kTokens: {
      const Vec a = member(k.key, env).col(0);
      double total = 0;
      for (long t = 0; t < tokens_; ++t) {
        scratch.tokens[0] = x.col(t);
        const double v = a.dot(scratch.tokens[0]);
        if (t == 0)
          total = v;
        else if (k.op == ReduceOp::kSum)
          total += v;
        else if (maximise ? v > total : v < total)
          total = v;
      }
      return total;
    }
    case Shape::kFamilyTokens: {
      Eigen::MatrixXd& scores = scratch.per_direction;
      scores.noalias() = k.directions.transpose() * x;  // D x T
      return maximise ? scores.rowwise().maxCoeff().sum() : scores.rowwise().minCoeff().sum();
    }
    case Shape::kRanked: {
      // Per token in either order: the hand-written task's scores x^T a gave the same bits.
      const Vec a = member(k.key, env).col(0);
      for (long t = 0; t < tokens_; ++t) {
        scratch.tokens[0] = x.col(t);
        scratch.scores(t) = a.dot(scratch.tokens[0]);
      }
      std::vector<long>& order = scratch.order;
      std::iota(order.begin(), order.end(), 0L);
      std::nth_element(order.begin(), order.begin() + (k.count - 1), order.end(),
                       [&](long i, long j) { return scratch.scores(i) > scratch.scores(j); });
      const Vec b = member(k.value, env).col(0);
      scratch.tokens[0] = x.col(order[static_cast<std::size_t>(k.count - 1)]);
      return b.dot(scratch.tokens[0]);
    }
    case Shape::kTriples: {
      Eigen::VectorXd& pair = scratch.pair;
      auto extreme = [&](double start, auto better) {
        double best = start;
        for (long a = 0; a < tokens_; ++a) {
          for (long b = a + 1; b < tokens_; ++b) {
            pair = x.col(a) + x.col(b);
            for (long c = b + 1; c < tokens_; ++c)
              best = better(best, (pair + x.col(c)).squaredNorm());
          }
        }
        return best;
      };
      const double inf = std::numeric_limits<double>::infinity();
      const double best = maximise
                              ? extreme(-inf, [](double u, double v) { return std::max(u, v); })
                              : extreme(inf, [](double u, double v) { return std::min(u, v); });
      return k.root ? std::sqrt(best) : best;
    }
    case Shape::kLeadingSum:
      return x.leftCols(k.count).rowwise().sum().squaredNorm();
    case Shape::kChain:
      return chain(k, x, env, scratch);
  }
  return 0;
}

const Eigen::MatrixXd& Evaluator::parameter(const std::string& name, std::size_t i) const {
  return parameters_.at(name).at(i);
}

double Evaluator::operator()(const Eigen::Ref<const Eigen::MatrixXd>& x) const {
  std::vector<long> env(slots_.size(), 0);
  Scratch s = scratch();
  return eval(*root_, x, env, s).s;
}

void Evaluator::operator()(const Eigen::Ref<const Eigen::MatrixXd>& x,
                           Eigen::Ref<Eigen::VectorXd> y) const {
  std::vector<long> env(slots_.size(), 0);
  Scratch s = scratch();
  for (long i = 0; i < y.size(); ++i) {
    const Eigen::Ref<const Eigen::MatrixXd> sequence = x.middleCols(i * tokens_, tokens_);
    y(i) = eval(*root_, sequence, env, s).s;
  }
}

Evaluator::Value Evaluator::eval(const Node& n, const Eigen::Ref<const Eigen::MatrixXd>& x,
                                 std::vector<long>& env, Scratch& scratch) const {
  using K = Node::Kind;
  Value out;
  if (n.kind == K::kReduce || n.kind == K::kCall) {
    const auto kernel = kernels_.find(&n);
    if (kernel != kernels_.end()) {
      out.s = run(kernel->second, x, env, scratch);
      return out;
    }
  }
  switch (n.kind) {
    case K::kRef: {
      const long i = n.position > 0             ? n.position
                     : !n.position_name.empty() ? tokens_ + n.offset
                     : n.index.empty()
                         ? 0
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
    case K::kReduce:
      return reduce(n, x, env, scratch);
    default:  // a number, a call or arithmetic: its operands are walked, its matrix looked up
      return apply_operation<Vec>(
          n, [&](std::size_t i) { return eval(n.args[i], x, env, scratch); },
          [&]() -> const Eigen::MatrixXd& {
            const Node& m = n.args[0];
            const long i = m.index.empty() ? 0 : env[static_cast<std::size_t>(slots_.at(m.index))];
            return parameters_.at(m.name).at(static_cast<std::size_t>(i > 0 ? i - 1 : 0));
          });
  }
}

Evaluator::Value Evaluator::reduce(const Node& n, const Eigen::Ref<const Eigen::MatrixXd>& x,
                                   std::vector<long>& env, Scratch& scratch) const {
  const std::vector<Range>& ranges = ranges_.at(&n);
  if (n.binders.size() == 1 && n.constraints.empty() && n.op != ReduceOp::kKth) {
    // One index, as below without the tuple machinery (no allocation per sequence).
    const auto slot = static_cast<std::size_t>(slots_.at(n.binders[0].name));
    const bool maximise = n.op == ReduceOp::kMax;
    Value total;
    double best_key = 0;
    for (long v = ranges[0].low; v <= ranges[0].high; ++v) {
      env[slot] = v;
      const Value body = eval(n.args[0], x, env, scratch);
      const bool first = v == ranges[0].low;
      if (n.op == ReduceOp::kSum) {
        if (first)
          total = body;
        else if (body.vector)
          total.v += body.v;
        else
          total.s += body.s;
        continue;
      }
      const double key = n.has_key() ? eval(n.args[1], x, env, scratch).s : body.s;
      if (first || (maximise ? key > best_key : key < best_key)) {
        best_key = key;
        total.s = body.s;
      }
    }
    return total;
  }
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
      const Value body = eval(n.args[0], x, env, scratch);
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
      const double key = n.has_key() ? eval(n.args[1], x, env, scratch).s : body.s;
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
  require(tuples > 0, empty_reduction(n, tokens_));
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
