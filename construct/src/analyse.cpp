// The pass "analyse" (registry.cpp): what each step reads and makes, before anything is built.
// Each retrieval's score split by where its terms are read (the candidate, the holder, both;
// Score), the candidate features some FFN must compute first, and the chains of k-th largest.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "infoflow/core/random.hpp"
#include "infoflow/targets/node_algebra.hpp"

#include "passes.hpp"
#include "terms.hpp"

namespace infoflow::construct::detail {

using targets::Node;
using theorems::FormTerm;
using theorems::Mode;
using theorems::PlanStep;
using theorems::Quantity;
using theorems::Value;
using K = Node::Kind;

namespace {

/// A term holding a reduction held at a token: its value there is a message.
void split_message(Lowering& st, const FormTerm& t, const std::string& v, const std::string& u,
                   Score& score, const std::string& step) {
  const Value value = resolved(st, *t.node);
  double c = t.coefficient;
  const Value* ref = &value;
  if (value.is(K::kMul) && value.args[0].is(K::kNumber)) {
    c *= value.args[0].operation()->number;
    ref = &value.args[1];
  }
  const std::vector<std::string> free = targets::free_indices(*t.node, {.constraints = true});
  const auto* held = std::get_if<Value::Held>(&ref->what);
  if (held == nullptr || free.size() > 1) {
    throw Failure(Shortfall::kConstructor, step,
                  fmt::format("{}: the term {} holds a reduction the "
                              "constructor cannot read as one held value",
                              step, targets::to_text(*t.node)));
  }
  FormTerm message;
  message.message = held->quantity;
  message.message_at = free.empty() ? "" : free.front();
  message.coefficient = c;
  split(st, message, v, u, score, step);
}

/// A selection reads the token its score picks, and where several tie at the extreme (relu's
/// 0 on a half-space) the target takes the first of them, which softmax does not: refused
/// where that happens in more than 1% of sequences (x ~ N(0, I), T tokens).
void require_few_ties(const Lowering& st, const Score& score, bool minimum,
                      const std::string& step) {
  // What else the score reads (the holder, messages) may break the ties: not probed here.
  if (score.candidate.empty() || score.cross.size() > 0 || !score.candidate_messages.empty())
    return;
  Rng rng(derive_seed(st.options.seed, {59}));
  constexpr int kSequences = 400;
  int tied = 0;
  for (int sequence = 0; sequence < kSequences; ++sequence) {
    std::vector<double> values;
    for (long t = 0; t < st.tokens; ++t) {
      Eigen::VectorXd x(st.d);
      for (long i = 0; i < st.d; ++i) x(i) = rng.normal();
      double value = 0;
      for (const TokenFunction& piece : score.candidate) value += piece.f(x);
      values.push_back(value);
    }
    std::sort(values.begin(), values.end());
    if (minimum ? values[0] == values[1] : values[values.size() - 1] == values[values.size() - 2])
      ++tied;
  }
  if (tied * 100 > kSequences) {
    throw Failure(Shortfall::kConstructor, step,
                  fmt::format("{}: its score ties at the extreme in {}% of "
                              "sequences, where the target selects the first "
                              "tied token and softmax averages them (the "
                              "constructor breaks no tie by position)",
                              step, 100 * tied / kSequences));
  }
}

/// What each step reads and makes, before anything is built: the candidate features some FFN
/// must compute first.
void analyse_step(Lowering& st, const PlanStep& s) {
  const std::string step = st.label(s);
  if (s.action == theorems::Action::kCarry) return;
  if (s.action == theorems::Action::kPositionAggregation) {
    if (!st.plan.architecture.encodes_positions()) {
      throw Failure(Shortfall::kEngine, step,
                    step +
                        ": a fetch by position on an architecture without "
                        "positional encoding");
    }
    return;
  }
  if (s.action != theorems::Action::kMaxRetrieval &&
      s.action != theorems::Action::kMaskedRetrieval &&
      s.action != theorems::Action::kUniformAggregation) {
    throw Failure(Shortfall::kConstructor, step,
                  fmt::format("{}: the constructor has no compilation for {} "
                              "yet",
                              step, theorems::to_text(s.action)));
  }
  const Quantity& q = st.quantity(s);
  if (!q.form.known) {
    throw Failure(
        Shortfall::kConstructor, step,
        fmt::format("{}: {} is made by a rule whose terms the "
                    "constructor cannot read ({})",
                    step, q.name, q.form.unknown.empty() ? "not recorded" : q.form.unknown));
  }
  for (const targets::IndexConstraint& c : q.form.constraints) {
    const std::set<std::string> named{c.left, c.right};
    if (q.form.at.empty() || named != std::set<std::string>{q.form.index, q.form.at}) {
      throw Failure(Shortfall::kConstructor, step,
                    fmt::format("{}: the mask {} {} {} is not between the "
                                "candidate {} and the holder's token",
                                step, c.left, c.strict_order ? "<" : "!=", c.right, q.form.index));
    }
  }
  // Without positions the mask is s != t by content (content_mask). The engine plans an order
  // mask there only where the body is symmetric in the two indices (E4: s < t gives the
  // values of s != t), and the measured NMSE checks that reading.
  if (!q.form.constraints.empty() && !st.plan.architecture.encodes_positions())
    request_content_features(st, s.layer - 1);
  const int id = st.by_name.at(s.quantity);
  if (q.form.below >= 0) {
    if (!q.form.at.empty()) {
      throw Failure(Shortfall::kConstructor, step,
                    fmt::format("{}: a k-th largest at every token: its mask "
                                "compares each candidate with the holder's own "
                                "earlier step, which the constructor builds for "
                                "the readout's chains only",
                                step));
    }
    st.chained[q.form.below] = id;
  }
  Score score;
  const std::string at = q.mode == Mode::kMean ? "" : q.form.at;
  for (const FormTerm& t : q.form.terms) split(st, t, q.form.index, at, score, step);
  if (score.holder_positions && score.holder_token) {
    throw Failure(Shortfall::kConstructor, step,
                  step +
                      ": the score reads the holder's own token and tokens "
                      "by position, which one query does not hold together");
  }
  if (q.mode == Mode::kMean &&
      (score.cross.size() > 0 || !score.holder.empty() || !score.products.empty())) {
    throw Failure(Shortfall::kConstructor, step, step + ": an averaged term reads the holder");
  }
  for (const TokenFunction& piece : score.candidate) {
    if (!affine_in_x(st, piece)) request_feature(st, piece, s.layer - 1);
  }
  if (!score.products.empty() && (score.holder_positions || at.empty())) {
    throw Failure(Shortfall::kConstructor, step,
                  step + ": a product of a function of each token needs the holder's own token");
  }
  for (const auto& [key, query] : score.products) {
    for (const TokenFunction* piece : {&key, &query}) {
      if (!affine_in_x(st, *piece)) request_feature(st, *piece, s.layer - 1);
    }
  }
  if (q.mode != Mode::kMean && st.selected.count(id) != 0)
    require_few_ties(st, score, q.form.minimum, step);
  st.scores.emplace(id, std::move(score));
}

}  // namespace

bool contains_reduction(const Value& v) {  // NOLINT(misc-no-recursion)
  return std::holds_alternative<Value::Reduction>(v.what) ||
         std::any_of(v.args.begin(), v.args.end(),
                     [](const Value& a) { return contains_reduction(a); });
}

/// One head's uniform mean over the positions P holds their tokens' sum only. An expression
/// that reads them must read nothing else of them: probed with every positioned token drawn
/// at random against all of them replaced by their mean (the other values held fixed).
bool reads_through_sum(const Lowering& st, const Value& e) {
  std::set<long> distinct;
  for (const auto& [text, p] : st.positions) distinct.insert(p);
  if (distinct.size() < 2) return true;
  Rng rng(derive_seed(st.options.seed, {53}));
  auto draw = [&](long n) {
    Eigen::VectorXd v(n);
    for (long i = 0; i < n; ++i) v(i) = rng.normal();
    return v;
  };
  for (int trial = 0; trial < 6; ++trial) {
    detail::TermInputs in;
    in.parameters = st.evaluator.get();
    in.tokens_count = st.tokens;
    std::vector<std::string> indices;
    detail::token_indices(e, indices);
    for (const std::string& i : indices) in.tokens[i] = draw(st.d);
    // Each held value, selection and coordinate drawn once, on its first read.
    std::map<std::pair<int, int>, detail::TermValue> references;
    in.reference = [&](const Value::Held& h) {
      auto [it, fresh] =
          references.emplace(std::pair{h.quantity, h.component}, detail::TermValue{});
      if (fresh) {
        const auto vector = h.component < 0 ? st.components[1].end()
                                            : st.components[1].find({h.quantity, h.component});
        it->second.vector = vector != st.components[1].end() && vector->second.size() > 1;
        it->second.v =
            it->second.vector ? draw(static_cast<long>(vector->second.size())) : Eigen::VectorXd();
        it->second.s = it->second.vector ? it->second.v(0) : rng.normal();
      }
      return it->second;
    };
    std::vector<std::pair<const Value*, double>> selections;
    in.selection = [&](const Value& n) {
      for (const auto& [seen, value] : selections) {
        if (theorems::same_value(*seen, n)) return value;
      }
      selections.emplace_back(&n, rng.normal());
      return selections.back().second;
    };
    std::map<long, double> coordinates;
    in.coordinate = [&](long unit) {
      auto [it, fresh] = coordinates.emplace(unit, 0.0);
      if (fresh) it->second = rng.normal();
      return it->second;
    };
    std::map<long, Eigen::VectorXd> at;
    Eigen::VectorXd mean = Eigen::VectorXd::Zero(st.d);
    for (const long p : distinct) {
      at[p] = draw(st.d);
      mean += at[p] / static_cast<double>(distinct.size());
    }
    for (const auto& [ref, p] : st.positions) in.positioned[ref] = at[p];
    const double exact = detail::evaluate(e, in).s;
    for (const auto& [ref, p] : st.positions) in.positioned[ref] = mean;
    const double through_mean = detail::evaluate(e, in).s;
    if (std::abs(exact - through_mean) > 1e-9 * (1 + std::abs(exact))) return false;
  }
  return true;
}

void require_through_sum(const Lowering& st, const Value& e, const std::string& step) {
  if (reads_through_sum(st, e)) return;
  std::set<long> distinct;
  for (const auto& [text, p] : st.positions) distinct.insert(p);
  throw Failure(Shortfall::kConstructor, step,
                fmt::format("{}: {} reads the tokens at positions {{{}}} apart, and one "
                            "head's mean over them holds their sum only (the constructor "
                            "has no decoding of several positions from one embedding)",
                            step, theorems::to_text(e), fmt::join(distinct, ", ")));
}

/// Splits a term read at `v` (the candidate) and `u` (the holder) into its parts.
void split(Lowering& st, const FormTerm& t, const std::string& v, const std::string& u,
           Score& score, const std::string& step) {
  if (t.message >= 0) {
    auto& into = t.message_at == v && !v.empty() ? score.candidate_messages : score.holder_messages;
    if (!t.message_at.empty() && t.message_at != v && t.message_at != u) {
      throw Failure(Shortfall::kConstructor, step,
                    step + ": a message read at an index bound further out");
    }
    into.emplace_back(t.message, t.coefficient);
    return;
  }
  Value term = theorems::lifted(*t.node);
  if (contains_reduction(term)) {
    // Reductions over ranges of their own only (max(i = 1..2) dot(a[i], x[t])): a token-wise
    // term, their copies.
    if (Value flat = ranges_unrolled(st, term); !contains_reduction(flat)) {
      term = std::move(flat);
    } else {
      split_message(st, t, v, u, score, step);
      return;
    }
  }
  const std::string text = theorems::to_text(term);
  std::vector<std::string> indices;
  detail::token_indices(term, indices);
  for (const std::string& i : indices) {
    if (i != v && i != u) {
      throw Failure(
          Shortfall::kConstructor, step,
          fmt::format("{}: the term {} reads index {}, bound further out", step, text, i));
    }
  }
  const bool reads_v = std::find(indices.begin(), indices.end(), v) != indices.end();
  const bool reads_own =
      !u.empty() && std::find(indices.begin(), indices.end(), u) != indices.end();
  // Tokens read by position are what the holder fetched by position: they take its x's place.
  const bool by_position = detail::reads_position(term);
  if (by_position) {
    if (reads_own) {
      throw Failure(Shortfall::kConstructor, step,
                    fmt::format("{}: the term {} reads the holder's own token and "
                                "tokens by position, which one query does not "
                                "hold together",
                                step, text));
    }
    require_through_sum(st, term, step);
    score.holder_positions = true;
  }
  score.holder_token = score.holder_token || reads_own;
  const bool reads_u = reads_own || by_position;
  const double c = t.coefficient;
  const targets::Evaluator* parameters = st.evaluator.get();
  const long count = st.tokens;
  const long d = st.d;
  const Positions positions = st.positions;
  // f(x_u, x_v), either of them absent when the term does not read it.
  auto f = [term, c, parameters, count, v, u, d, by_position, positions](
               const Eigen::VectorXd& xu, const Eigen::VectorXd& xv) {
    detail::TermInputs in;
    in.parameters = parameters;
    in.tokens_count = count;
    const Eigen::VectorXd holder = xu.size() == d ? xu : Eigen::VectorXd::Zero(d);
    if (by_position) {
      for (const auto& [ref, p] : positions) in.positioned[ref] = holder;
    } else if (!u.empty()) {
      in.tokens[u] = holder;
    }
    if (!v.empty()) in.tokens[v] = xv.size() == d ? xv : Eigen::VectorXd::Zero(d);
    return c * detail::evaluate(term, in).s;
  };
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(d);
  if (reads_v && !reads_u) {
    score.candidate.push_back({[f, zero](const Eigen::VectorXd& x) { return f(zero, x); },
                               fmt::format("{}*{}@{}", c, text, v)});
    return;
  }
  if (!reads_v) {
    score.holder.push_back({[f, zero](const Eigen::VectorXd& x) { return f(x, zero); },
                            fmt::format("{}*{}@{}", c, text, u)});
    return;
  }
  // Both: f(u, v) = f(u, 0) + f(0, v) - f(0, 0) + cross(u, v), the cross part bilinear.
  const double f00 = f(zero, zero);
  score.candidate.push_back({[f, zero, f00](const Eigen::VectorXd& x) { return f(zero, x) - f00; },
                             fmt::format("{}*{}@{}|candidate", c, text, v)});
  score.holder.push_back({[f, zero](const Eigen::VectorXd& x) { return f(x, zero); },
                          fmt::format("{}*{}@{}|holder", c, text, u)});
  Eigen::MatrixXd b(d, d);
  for (long i = 0; i < d; ++i) {
    for (long j = 0; j < d; ++j) {
      Eigen::VectorXd ei = zero;
      Eigen::VectorXd ej = zero;
      ei(i) = 1;
      ej(j) = 1;
      b(i, j) = f(ei, ej) - f(ei, zero) - f(zero, ej) + f00;
    }
  }
  const auto cross = [f, zero, f00](const Eigen::VectorXd& xu, const Eigen::VectorXd& xv) {
    return f(xu, xv) - f(xu, zero) - f(zero, xv) + f00;
  };
  Rng rng(derive_seed(st.options.seed, {17}));
  const auto draw = [&] {
    Eigen::VectorXd x(d);
    for (long i = 0; i < d; ++i) x(i) = rng.normal();
    return x;
  };
  std::vector<std::pair<Eigen::VectorXd, Eigen::VectorXd>> trials;
  for (int trial = 0; trial < 8; ++trial) trials.emplace_back(draw(), draw());
  const auto agree = [](double a, double b) { return std::abs(a - b) <= 1e-7 * (1 + std::abs(a)); };
  if (std::all_of(trials.begin(), trials.end(), [&](const auto& t) {
        return agree(cross(t.first, t.second), t.first.dot(b * t.second));
      })) {
    score.cross = score.cross.size() == 0 ? b : Eigen::MatrixXd(score.cross + b);
    return;
  }
  // Not bilinear, but a product of a function of each token, psi(x_u) phi(x_v) (dot(a, x[v])
  // * dot(c, x[v]) * dot(b, x[u])): read off at the reference tokens u0, v0 of the trial where
  // it is largest (relu's factors vanish on half the draws).
  const auto reference =
      std::max_element(trials.begin(), trials.end(), [&](const auto& a, const auto& b) {
        return std::abs(cross(a.first, a.second)) < std::abs(cross(b.first, b.second));
      });
  const Eigen::VectorXd u0 = reference->first;
  const Eigen::VectorXd v0 = reference->second;
  const double at_reference = cross(u0, v0);
  const bool separable =
      std::abs(at_reference) > 1e-9 && std::all_of(trials.begin(), trials.end(), [&](const auto& t) {
        return agree(cross(t.first, t.second),
                     cross(t.first, v0) * cross(u0, t.second) / at_reference);
      });
  if (!separable) {
    throw Failure(Shortfall::kConstructor, step,
                  fmt::format("{}: the term {} couples {} and {} beyond a bilinear form or a "
                              "product of a function of each, which a query-key product is not",
                              step, text, u, v));
  }
  score.products.emplace_back(
      TokenFunction{[cross, u0, at_reference](const Eigen::VectorXd& x) {
                      return cross(u0, x) / at_reference;
                    },
                    fmt::format("{}*{}@{}|key", c, text, v)},
      TokenFunction{[cross, v0](const Eigen::VectorXd& x) { return cross(x, v0); },
                    fmt::format("{}*{}@{}|query", c, text, u)});
}

void analyse(Lowering& st) {
  for (const PlanStep& s : st.plan.steps) analyse_step(st, s);
}

}  // namespace infoflow::construct::detail
