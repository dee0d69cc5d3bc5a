// The pass "attention" (registry.cpp), once per layer: each of the layer's steps becomes one
// head's role at one token class (network.hpp, Role): retrievals here, means and fetches by
// position in means.cpp, masks and chains in masks.cpp; then the layer's heads are written.
// What the layer's FFN must compute is left in Lowering::layer.
#include <array>
#include <cmath>
#include <map>
#include <optional>

#include <Eigen/SVD>
#include <fmt/format.h>

#include "passes.hpp"
#include "terms.hpp"

namespace infoflow::construct::detail {

using targets::Node;
using theorems::Mode;
using theorems::PlanStep;
using theorems::Quantity;
using theorems::Value;
using K = Node::Kind;

namespace {

/// A cross part x_holder' B x_candidate written as x_holder' P V' x_candidate, with r columns
/// each: V' x_candidate is what a key (and a fetched value) holds, P' x_holder the query. A B of
/// full rank keeps the token's own coordinates (P = B, V = I); a rank-deficient one (a product
/// of two linear forms: rank 1) takes its r singular directions, so that a head spends r key
/// dimensions on it instead of d.
struct CrossFactors {
  Eigen::MatrixXd holder;     ///< P, d x r
  Eigen::MatrixXd candidate;  ///< V, d x r
};

CrossFactors factor_cross(const Eigen::MatrixXd& b) {
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(b, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const Eigen::VectorXd& sigma = svd.singularValues();
  const double largest = sigma.size() > 0 ? sigma(0) : 0;
  long rank = 0;
  while (rank < sigma.size() && sigma(rank) > 1e-9 * largest) ++rank;
  if (rank == b.cols()) return {b, Eigen::MatrixXd::Identity(b.cols(), b.cols())};
  return {svd.matrixU().leftCols(rank) * sigma.head(rank).asDiagonal(),
          svd.matrixV().leftCols(rank)};
}

/// `n` as a linear form of an input token's stream, where it is affine in the values that
/// token holds (a quantity's value made by an earlier layer) and constants; nullopt otherwise.
std::optional<Form> held_affine(const Lowering& st, const Value& n,
                                const std::string& step) {  // NOLINT(misc-no-recursion)
  const auto number = [](const Value& m) { return m.is(K::kNumber); };
  if (const auto* held = std::get_if<Value::Held>(&n.what)) {
    if (held->component >= 0) return std::nullopt;
    const auto it = st.values[0].find(held->quantity);
    if (it == st.values[0].end()) return std::nullopt;
    return it->second;
  }
  if (const auto* chosen = std::get_if<Value::Selected>(&n.what)) {
    // What the token fetched with its own selection (selected_at_tokens).
    const auto it = st.fetched_value_at_tokens.find(chosen->quantity);
    if (it == st.fetched_value_at_tokens.end()) return std::nullopt;
    return st.network->unit(it->second);
  }
  if (n.operation() == nullptr) return std::nullopt;
  switch (n.operation()->kind) {
    case K::kNumber: {
      Form f = st.network->zero();
      f(Network::kInputFlag) = n.operation()->number;
      return f;
    }
    case K::kNeg: {
      std::optional<Form> a = held_affine(st, n.args[0], step);
      if (a) *a = -*a;
      return a;
    }
    case K::kAdd:
    case K::kSub: {
      std::optional<Form> a = held_affine(st, n.args[0], step);
      std::optional<Form> b = held_affine(st, n.args[1], step);
      if (!a || !b) return std::nullopt;
      return n.is(K::kAdd) ? Form(*a + *b) : Form(*a - *b);
    }
    case K::kMul:
      if (number(n.args[0]) || number(n.args[1])) {
        const bool left = number(n.args[0]);
        std::optional<Form> a = held_affine(st, n.args[left ? 1 : 0], step);
        if (a) *a *= n.args[left ? 0 : 1].operation()->number;
        return a;
      }
      return std::nullopt;
    case K::kDiv:
      if (number(n.args[1]) && n.args[1].operation()->number != 0) {
        std::optional<Form> a = held_affine(st, n.args[0], step);
        if (a) *a /= n.args[1].operation()->number;
        return a;
      }
      return std::nullopt;
    case K::kCall: {
      // dot(a, x[t]) at the chosen token t: a linear form of its x.
      const Node& op = *n.operation();
      if (op.name != "dot" || n.args.size() != 2) return std::nullopt;
      for (int side = 0; side < 2; ++side) {
        const Node* p = n.args[side].operation();
        const Node* x = n.args[1 - side].operation();
        if (p == nullptr || x == nullptr || p->kind != K::kRef || p->name == "x" ||
            p->value != targets::ValueKind::kVector || x->kind != K::kRef || x->name != "x" ||
            detail::positioned(*x) || x->offset != 0)
          continue;
        const Eigen::MatrixXd& a = detail::parameter_of(*st.evaluator, *p);
        Form f = st.network->zero();
        for (long j = 0; j < st.d; ++j) f(Network::kToken + j) = a(j, 0);
        return f;
      }
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

/// The selection's body read at the candidate as a linear form of its stream, if it is affine
/// in the token (one value to fetch, not the token).
std::optional<Form> affine_selection(Lowering& st, int id, const std::string& index,
                                     const std::string& step) {
  const Value& select = *st.selections.at(id);
  const Value body = select.args[0];
  const std::string v = std::get<Value::Selected>(select.what).index;
  if (contains_reduction(body)) return std::nullopt;
  // A body that reads values the candidate holds (a message m(s) made by an earlier layer)
  // is read off the candidate's stream where it is affine in them; x alone does not give it.
  if (theorems::reads_held_value(body)) {
    if (std::optional<Form> held = held_affine(st, body, step)) return held;
    throw Failure(Shortfall::kConstructor, step,
                  fmt::format("{}: the selection's value {} reads what the chosen token holds, "
                              "but not as an affine function of it, which the constructor "
                              "cannot fetch in one step",
                              step, theorems::to_text(body)));
  }
  TokenFunction piece{[state = &st, body, v](const Eigen::VectorXd& x) {
                        detail::TermInputs in;
                        in.parameters = state->evaluator.get();
                        in.tokens_count = state->tokens;
                        in.tokens[v] = x;
                        const detail::TermValue value = detail::evaluate(body, in);
                        return value.vector ? std::nan("") : value.s;
                      },
                      "selected " + theorems::to_text(body) + "@" + index};
  (void)step;
  if (!affine_in_x(st, piece)) return std::nullopt;
  const auto& affine = *st.affine.at(piece.key);
  Form f = st.network->zero();
  for (long j = 0; j < st.d; ++j) f(Network::kToken + j) = affine.first(j);
  f(Network::kInputFlag) = affine.second;
  return f;
}

/// A maximum (or minimum) retrieval: its score as the candidate's form and query-key pairs, what
/// it fetches, its mask, and the FFN's job where the value is not linear in what was fetched.
void retrieval(Lowering& st, const PlanStep& s, Class at, Role& role) {
  const int id = st.by_name.at(s.quantity);
  const Quantity& q = st.quantity(s);
  const std::string step = st.label(s);
  const Score& score = st.scores.at(id);
  if (q.holder == theorems::Holder::kToken && at == Class::kReadout)
    throw Failure(Shortfall::kEngine, step, step + ": a token's quantity placed at the readout");
  const double sign = q.form.minimum ? -1 : 1;
  // The candidate's own part of the score, fetched with the token where it is not zero.
  const Form s_form = candidate_form(st, score, step);
  role.score = sign * s_form;
  for (const auto& [message, c] : score.candidate_messages) {
    const auto undefined = st.undefined_at.find(message);
    if (undefined == st.undefined_at.end()) continue;
    for (const long p : undefined->second)
      role.score -=
          Network::kPenalty * st.network->unit(st.one_hot_code.at(static_cast<std::size_t>(p - 1)));
  }
  if (q.form.below >= 0 && st.threshold_masks.count(id) != 0) {
    // Below the step before, by content (threshold_jobs).
    for (const long c : st.threshold_masks.at(id)) {
      role.query.push_back(-Network::kPenalty * st.network->unit(c));
      role.key.push_back(st.network->unit(c));
    }
  } else if (q.form.below >= 0) {
    // Below the step before: the tokens at or above its score are flagged by the FFN before.
    const auto flag = st.rank_masks.find(id);
    if (flag == st.rank_masks.end()) {
      throw Failure(Shortfall::kEngine, step,
                    fmt::format("{}: its candidates are those below {}'s score, which "
                                "no earlier layer made at the readout",
                                step, st.name(q.form.below)));
    }
    role.score -= Network::kPenalty * st.network->unit(flag->second);
  }
  Form value = st.network->zero();
  if (s_form.cwiseAbs().maxCoeff() > 0) {
    const long s_into = st.network->allocate(q.name + ": the candidate's score", step);
    role.values.push_back(s_form);
    role.into.push_back(s_into);
    value = st.network->unit(s_into);
    st.own_score[id] = s_into;
    st.candidate_score[id] = sign * s_form;
  }
  // The holder's x: its own token, or what it fetched by position.
  std::vector<long> holder;
  for (long j = 0; j < st.d; ++j) holder.push_back(Network::kToken + j);
  if (score.holder_positions) {
    holder = st.positions_held[static_cast<int>(at)];
    if (holder.empty() || st.made_in.at(-1) >= s.layer) {
      throw Failure(Shortfall::kEngine, step,
                    step +
                        ": its score reads tokens by position at the holder, where "
                        "no earlier layer fetched them");
    }
  }
  // Keys 2..: the holder's x against the candidate's x through B = P V', one key dimension
  // for each of B's r singular directions (x itself when B has full rank).
  const bool cross = score.cross.size() > 0;
  // A selection the readout reads: fetched where it is made, at the readout, or at the input
  // tokens where every token makes it (a global one), if its value is affine in x there.
  const bool selected =
      st.selected.count(id) != 0 &&
      (at == Class::kReadout || st.selected_at_tokens.count(id) != 0 ||
       (q.holder == theorems::Holder::kGlobal &&
        !theorems::reads_held_value(st.selections.at(id)->args[0])));
  std::optional<Form> selected_value;
  if (selected) selected_value = affine_selection(st, id, q.form.index, step);
  // A selection's nonlinear body reads x (at the readout only).
  const bool fetch_x = selected && !selected_value && at == Class::kReadout;
  const CrossFactors factors = cross ? factor_cross(score.cross) : CrossFactors{};
  const long rank = factors.candidate.cols();
  std::vector<long> fetched;
  for (long j = 0; j < rank; ++j) {
    Form query = st.network->zero();
    Form key = st.network->zero();
    for (long i = 0; i < st.d; ++i) {
      query(holder[static_cast<std::size_t>(i)]) = sign * factors.holder(i, j);
      key(Network::kToken + i) = factors.candidate(i, j);
    }
    role.query.push_back(query);
    role.key.push_back(key);
  }
  // A product of a function of each token: the holder's feature against the candidate's.
  for (const auto& [key, query] : score.products) {
    role.query.push_back(sign * token_function_form(st, query));
    role.key.push_back(token_function_form(st, key));
  }
  // What the holder's FFN multiplies with its own x: the candidate's x, or its projections.
  const long fetched_width = fetch_x ? st.d : rank;
  for (long j = 0; j < fetched_width; ++j) {
    Form fetched_value = st.network->zero();
    if (fetch_x) {
      fetched_value(Network::kToken + j) = 1;
    } else {
      for (long i = 0; i < st.d; ++i) fetched_value(Network::kToken + i) = factors.candidate(i, j);
    }
    fetched.push_back(st.network->allocate(q.name + ": the token fetched", step));
    role.values.push_back(fetched_value);
    role.into.push_back(fetched.back());
  }
  if (fetch_x) st.fetched_x[id] = fetched;
  // The cross term as the FFN computes it: x_holder' P (what was fetched).
  const Eigen::MatrixXd cross_on_fetched = fetch_x ? score.cross : factors.holder;
  if (selected_value) {
    const long into = st.network->allocate(q.name + ": the selection's value", step);
    role.values.push_back(*selected_value);
    role.into.push_back(into);
    (at == Class::kReadout ? st.fetched_value : st.fetched_value_at_tokens)[id] = into;
  }
  // A retrieval at the readout brings what the chosen token holds: the global values the
  // readout needs and holds not yet.
  if (at == Class::kReadout) {
    bring_selections(st, role, step);
    for (const int g : st.needed_at_readout) {
      // Held by the candidates entering this layer: made by an earlier one.
      if (st.values[1].count(g) != 0 || st.values[0].count(g) == 0 || st.made_in.at(g) >= s.layer)
        continue;
      const long into = st.network->allocate(st.name(g) + " (brought along)", step);
      role.values.push_back(st.values[0].at(g));
      role.into.push_back(into);
      st.values[1][g] = st.network->unit(into);
    }
  }
  // The value at the holder: the fetched score part, the holder's terms, the cross term.
  for (const auto& [message, c] : score.holder_messages) value += c * st.held(at, message, step);
  std::vector<TokenFunction> nonlinear;
  for (const TokenFunction& piece : score.holder) {
    if (affine_in_x(st, piece)) {
      const auto& affine = *st.affine.at(piece.key);
      for (long j = 0; j < st.d; ++j) value(holder[static_cast<std::size_t>(j)]) += affine.first(j);
      value(Network::flag(at)) += affine.second;
    } else {
      nonlinear.push_back(piece);
    }
  }
  if (!q.form.constraints.empty()) mask(st, id, q, role, step);
  if (cross || !nonlinear.empty()) {
    std::vector<long> inputs = holder;
    if (cross) inputs.insert(inputs.end(), fetched.begin(), fetched.end());
    const Eigen::MatrixXd b = cross_on_fetched;
    const long d = st.d;
    st.layer.jobs.push_back(Job{at, inputs,
                                [b, d, cross, nonlinear](const Eigen::VectorXd& z) {
                                  const Eigen::VectorXd xu = z.head(d);
                                  double out = 0;
                                  if (cross) out += xu.dot(b * z.segment(d, b.cols()));
                                  for (const TokenFunction& piece : nonlinear) out += piece.f(xu);
                                  return out;
                                },
                                -1, q.name + "'s value",
                                [state = &st, at, id](long into) {
                                  state->values[static_cast<int>(at)][id] +=
                                      state->network->unit(into);
                                },
                                std::nullopt});
    if (cross && !fetch_x) {
      for (const long c : fetched) st.layer.erasures.emplace_back(c, std::nullopt);
    }
    st.pending_values.insert(id);
  }
  // A product psi(x_holder) phi(x_candidate): phi fetched with the token, times psi at the
  // holder (the feature the encoder computed there, or its affine form in x): a job of its own,
  // a product of two values, which one FFN level writes.
  for (const auto& [key, query] : score.products) {
    const long into = st.network->allocate(q.name + ": the candidate's factor", step);
    role.values.push_back(token_function_form(st, key));
    role.into.push_back(into);
    std::vector<long> inputs = holder;
    const bool affine = affine_in_x(st, query);
    if (!affine) inputs = {st.features.at(query.key)};
    inputs.push_back(into);
    const long d = st.d;
    st.layer.jobs.push_back(Job{at, inputs,
                                [psi = query.f, affine, d](const Eigen::VectorXd& z) {
                                  return (affine ? psi(z.head(d)) : z(0)) * z(z.size() - 1);
                                },
                                -1, q.name + "'s value (a product of the two tokens' factors)",
                                [state = &st, at, id](long into) {
                                  state->values[static_cast<int>(at)][id] +=
                                      state->network->unit(into);
                                },
                                std::nullopt});
    st.layer.erasures.emplace_back(into, std::nullopt);
    st.pending_values.insert(id);
  }
  st.values[static_cast<int>(at)][id] = value;
  st.made_in[id] = s.layer;
  st.described.push_back(
      fmt::format("{}: {}; score {}", step, q.what,
                  cross || !score.products.empty() ? "a query-key product of the two tokens"
                                                   : "the candidate's own"));
}

}  // namespace

void attention(Lowering& st) {
  const long l = st.current_layer - 1;
  st.layer = LayerWork{};
  std::map<long, std::array<Role, 2>> heads;
  std::map<long, std::string> head_steps;
  st.pending_values.clear();
  for (const PlanStep& s : st.plan.steps) {
    if (s.layer != l + 1) continue;
    const Class at = s.where == theorems::TokenClass::kReadout ? Class::kReadout : Class::kInputs;
    const long available = st.plan.architecture.heads[static_cast<std::size_t>(l)];
    if (s.head - 1 + s.heads > available) {
      throw Failure(Shortfall::kEngine, st.label(s),
                    fmt::format("{}: layer {} has {} heads", st.label(s), l + 1, available));
    }
    const bool a_mean = s.action == theorems::Action::kUniformAggregation;
    for (long head = s.head - 1; head < s.head - 1 + s.heads; ++head) {
      Role& role = heads[head][static_cast<std::size_t>(at)];
      if (role.used && !(a_mean && role.only_means))
        throw Failure(Shortfall::kEngine, st.label(s),
                      st.label(s) + ": two actions on one head at one class");
      if (!role.used) role.score = st.network->zero();
      role.used = true;
      role.only_means = a_mean;
      head_steps[head] += (head_steps[head].empty() ? "" : "; ") + st.label(s);
    }
    const long head = s.head - 1;
    Role& role = heads[head][static_cast<std::size_t>(at)];
    if (s.action == theorems::Action::kCarry) {
      carry(st, s, role);
    } else if (s.action == theorems::Action::kPositionAggregation) {
      fetch_positions(st, s, at, role);
    } else if (st.quantity(s).mode == Mode::kMean) {
      Role gathered;
      mean(st, s, at, gathered);
      spread(st, s, at, gathered, heads);
    } else {
      retrieval(st, s, at, role);
      if (st.chained.count(st.by_name.at(s.quantity)) != 0)
        rank_mask(st, s, at, role, heads[head][static_cast<std::size_t>(Class::kInputs)]);
    }
  }
  for (auto& [head, roles] : heads)
    st.network->set_head(l, head, roles[0], roles[1], head_steps[head]);
}

}  // namespace infoflow::construct::detail
