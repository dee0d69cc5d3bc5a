// Uniform averages (docs/constructions.md, "Heads"), for the pass "attention": a mean over the
// input tokens (R6), a fetch of the tokens at given positions (their mean), and the carry of
// the global values the input tokens hold to the readout.
#include <algorithm>
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
using theorems::PlanStep;
using theorems::Quantity;
using theorems::Value;
using K = Node::Kind;

void bring_selections(Lowering& st, Role& role, const std::string& step) {
  for (const auto& [id, coordinate] : st.fetched_value_at_tokens) {
    if (st.fetched_value.count(id) != 0 || st.made_in.at(id) >= st.current_layer) continue;
    const long into = st.network->allocate(st.name(id) + ": the selection's value (brought along)", step);
    role.values.push_back(st.network->unit(coordinate));
    role.into.push_back(into);
    st.fetched_value[id] = into;
  }
}

namespace {

/// Into `role`'s values at the readout, the global values the input tokens hold and the
/// readout does not (only those in `wanted`, where given), and the selections' values they
/// fetched: every token holds the same, so any average over them is that value.
void carry_globals(Lowering& st, Role& role, const std::string& step, const std::set<int>* wanted) {
  for (const auto& [id, form] : st.values[0]) {
    if (st.program.quantities[static_cast<std::size_t>(id)].holder != theorems::Holder::kGlobal)
      continue;
    if (st.values[1].count(id) != 0 || (wanted != nullptr && wanted->count(id) == 0)) continue;
    const long into = st.network->allocate(st.name(id) + " (carried)", step);
    role.values.push_back(form);
    role.into.push_back(into);
    st.values[1][id] = st.network->unit(into);
  }
  // A mean held at the tokens, value by value (a vector's mean is d of them).
  for (const auto& [key, forms] : st.components[0]) {
    const int id = key.first;
    if (st.program.quantities[static_cast<std::size_t>(id)].holder != theorems::Holder::kGlobal)
      continue;
    if (st.components[1].count(key) != 0 || (wanted != nullptr && wanted->count(id) == 0)) continue;
    std::vector<Form>& carried = st.components[1][key];
    for (std::size_t r = 0; r < forms.size(); ++r) {
      const long into =
          st.network->allocate(fmt::format("{}: mean {}{} (carried)", st.name(id), key.second,
                                           forms.size() == 1 ? "" : fmt::format(", entry {}", r)),
                               step);
      role.values.push_back(forms[r]);
      role.into.push_back(into);
      carried.push_back(st.network->unit(into));
    }
  }
  bring_selections(st, role, step);
}

/// The quantities whose held values `v` reads.
void quantities_read(const Value& v, std::set<int>& out) {
  if (const auto* held = std::get_if<Value::Held>(&v.what)) out.insert(held->quantity);
  for (const Value& a : v.args) quantities_read(a, out);
}

/// The stream coordinate that is 1 at the input positions `at` and 0 elsewhere.
long indicator(Lowering& st, const std::set<long>& at, const std::string& step) {
  const auto known = st.indicators.find(at);
  if (known != st.indicators.end()) return known->second;
  const long c =
      st.network->allocate(fmt::format("1 at positions {{{}}}", fmt::join(at, ", ")), step);
  for (const long p : at) st.network->mark_position(c, p);
  st.indicators.emplace(at, c);
  return c;
}

/// Whether a term's value at a token is a vector.
bool vector_valued(const Lowering& st, const Node& n, const std::string& v) {
  detail::TermInputs in;
  in.parameters = st.evaluator.get();
  in.tokens_count = st.tokens;
  in.tokens[v] = Eigen::VectorXd::Zero(st.d);
  return detail::evaluate(n, in).vector;
}

/// A vector term averaged over v, as one linear form of the token's x per entry (it must be
/// affine in x: an FFN level would be needed per entry otherwise).
std::vector<Form> vector_forms(const Lowering& st, const FormTerm& t, const std::string& v,
                               const std::string& step) {
  auto at = [&](const Eigen::VectorXd& x) {
    detail::TermInputs in;
    in.parameters = st.evaluator.get();
    in.tokens_count = st.tokens;
    in.tokens[v] = x;
    return Eigen::VectorXd(t.coefficient * detail::evaluate(*t.node, in).v);
  };
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(st.d);
  const Eigen::VectorXd base = at(zero);
  Eigen::MatrixXd map(base.size(), st.d);
  for (long i = 0; i < st.d; ++i) {
    Eigen::VectorXd e = zero;
    e(i) = 1;
    map.col(i) = at(e) - base;
  }
  Rng rng(derive_seed(st.options.seed, {23}));
  Eigen::VectorXd x(st.d);
  for (long i = 0; i < st.d; ++i) x(i) = rng.normal();
  if ((at(x) - base - map * x).norm() > 1e-7 * (1 + at(x).norm())) {
    throw Failure(Shortfall::kConstructor, step,
                  fmt::format("{}: the averaged vector {} is not affine in the "
                              "token",
                              step, targets::to_text(*t.node)));
  }
  std::vector<Form> out;
  for (Eigen::Index r = 0; r < base.size(); ++r) {
    Form f = st.network->zero();
    for (long i = 0; i < st.d; ++i) f(Network::kToken + i) = map(r, i);
    f(Network::kInputFlag) = base(r);
    out.push_back(f);
  }
  return out;
}

}  // namespace

/// The readout fetches any input token: the global values they hold, all alike.
void carry(Lowering& st, const PlanStep& s, Role& role) {
  carry_globals(st, role, st.label(s), nullptr);
  st.described.push_back(
      st.label(s) + ": a uniform average over the input tokens of the global values they hold");
}

/// Uniform attention over the positions P reads: their tokens' mean, which is all an
/// expression reading them through their sum needs (require_through_sum).
void fetch_positions(Lowering& st, const PlanStep& s, Class at, Role& role) {
  const std::string step = st.label(s);
  std::set<long> at_positions;
  for (const auto& [text, p] : st.positions) at_positions.insert(p);
  role.score = st.network->unit(indicator(st, at_positions, step));
  std::vector<long>& held = st.positions_held[static_cast<int>(at)];
  held.clear();
  for (long j = 0; j < st.d; ++j) {
    held.push_back(st.network->allocate(
        fmt::format("mean of x at positions {{{}}}", fmt::join(at_positions, ", ")), step));
    role.values.push_back(st.network->unit(Network::kToken + j));
    role.into.push_back(held.back());
  }
  st.made_in[-1] = s.layer;  // -1: the positions' mean
  st.described.push_back(
      fmt::format("{}: uniform attention over the positions {{{}}} (their "
                  "indicator in the positional encoding), averaging their x",
                  step, fmt::join(at_positions, ", ")));
}

/// Uniform attention over the input tokens, averaging the quantity's terms (R6).
void mean(Lowering& st, const PlanStep& s, Class at, Role& role) {
  const int id = st.by_name.at(s.quantity);
  const Quantity& q = st.quantity(s);
  const std::string step = st.label(s);
  for (std::size_t j = 0; j < q.form.terms.size(); ++j) {
    const FormTerm& t = q.form.terms[j];
    std::vector<Form> forms;
    if (t.node && !targets::contains(*t.node, [](const Node& n) { return n.kind == K::kReduce; }) &&
        vector_valued(st, *t.node, q.form.index)) {
      forms = vector_forms(st, t, q.form.index, step);
    } else {
      Score one;
      split(st, t, q.form.index, "", one, step);
      forms.push_back(candidate_form(st, one, step));
    }
    std::vector<Form>& component = st.components[static_cast<int>(at)][{id, static_cast<int>(j)}];
    for (std::size_t r = 0; r < forms.size(); ++r) {
      const long into = st.network->allocate(
          forms.size() == 1 ? fmt::format("{}: mean {}", q.name, j)
                            : fmt::format("{}: mean {}, entry {}", q.name, j, r),
          step);
      role.values.push_back(forms[r]);
      role.into.push_back(into);
      component.push_back(st.network->unit(into));
    }
  }
  // A mean at the readout averages every token's values: the globals they hold and the
  // target reads come with it (the plan's information sets count them there).
  if (at == Class::kReadout) {
    std::set<int> read;
    quantities_read(st.output, read);
    carry_globals(st, role, step, &read);
  }
  st.described.push_back(
      fmt::format("{}: uniform attention over the input tokens, averaging "
                  "{} value(s): {}",
                  step, q.form.terms.size(), q.what));
}

/// A mean's values over the heads its step spans, in turn: each head takes what room its n
/// value dimensions have left (both classes share them), the last the rest, so that a head
/// too narrow for it is reported as a width failure when the layer is written.
void spread(const Lowering& st, const PlanStep& s, Class at, const Role& gathered,
            std::map<long, std::array<Role, 2>>& heads) {
  const long n = st.plan.architecture.head_dim_of(s.layer - 1);
  const long last = s.head - 1 + s.heads - 1;
  std::size_t next = 0;
  for (long head = s.head - 1; head <= last; ++head) {
    std::array<Role, 2>& roles = heads[head];
    const auto taken = static_cast<long>(roles[0].values.size() + roles[1].values.size());
    const std::size_t room = head == last ? gathered.values.size() - next
                                          : static_cast<std::size_t>(std::max<long>(0, n - taken));
    Role& role = roles[static_cast<std::size_t>(at)];
    for (std::size_t j = 0; j < room && next < gathered.values.size(); ++j, ++next) {
      role.values.push_back(gathered.values[next]);
      role.into.push_back(gathered.into[next]);
    }
  }
}

}  // namespace infoflow::construct::detail
