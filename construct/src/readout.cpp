// The pass "readout" (registry.cpp): the readout MLP computes the target's value from what the
// readout holds, one job per additive term; and the first level the last layer's FFN computes
// for it, where a term is not one FFN level's function (a function of a maximum).
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "infoflow/core/random.hpp"

#include "passes.hpp"
#include "terms.hpp"

namespace infoflow::construct::detail {

using targets::Node;
using theorems::Value;
using K = Node::Kind;

namespace {

/// The readout's coordinates an expression reads; Failure where a value is not at the readout.
void collect_coordinates(const Lowering& st, const Value& n,
                         std::set<long>& out) {  // NOLINT(misc-no-recursion)
  if (const auto* coordinate = std::get_if<Value::Coordinate>(&n.what)) {
    out.insert(coordinate->unit);
    return;
  }
  if (const Node* op = n.operation(); op != nullptr && detail::positioned(*op)) {
    if (st.positions_held[1].empty()) {
      throw Failure(Shortfall::kEngine, "the readout MLP",
                    fmt::format("the readout MLP reads {}, which no step fetches to "
                                "the readout",
                                targets::to_text(*op)));
    }
    out.insert(st.positions_held[1].begin(), st.positions_held[1].end());
    return;
  }
  if (const auto* held = std::get_if<Value::Held>(&n.what)) {
    std::vector<Form> forms;
    if (held->component >= 0) {
      const auto it = st.components[1].find({held->quantity, held->component});
      if (it != st.components[1].end()) forms = it->second;
    } else {
      const auto it = st.values[1].find(held->quantity);
      if (it != st.values[1].end()) forms.push_back(it->second);
    }
    if (forms.empty()) {
      // The plan's information sets hold it at the readout (the planner oracle agrees with
      // them), so the carry missing here is the constructor's.
      throw Failure(Shortfall::kConstructor, "the readout MLP",
                    fmt::format("the readout MLP reads {}, which the plan carries to the readout "
                                "but no step of this construction brings there",
                                st.name(held->quantity)));
    }
    for (const Form& form : forms) {
      for (long i = 0; i < form.size(); ++i) {
        if (form(i) != 0) out.insert(i);
      }
    }
    return;
  }
  if (const auto* selected = std::get_if<Value::Selected>(&n.what)) {
    const int id = selected->quantity;
    if (const auto value = st.fetched_value.find(id); value != st.fetched_value.end()) {
      out.insert(value->second);
      return;
    }
    const auto it = st.fetched_x.find(id);
    if (it == st.fetched_x.end()) {
      throw Failure(Shortfall::kConstructor, "the readout MLP",
                    fmt::format("the selection {} is read at a token the readout "
                                "did not fetch itself",
                                theorems::to_text(n.args[0])));
    }
    out.insert(it->second.begin(), it->second.end());
    return;
  }
  for (const Value& a : n.args) collect_coordinates(st, a, out);
}

/// A job at the readout computing c times `e`, an expression in what the readout holds.
Job readout_job(Lowering& st, const Value& e, double c, long into) {
  const targets::Evaluator* parameters = st.evaluator.get();
  const long count = st.tokens;
  const long width = st.network->width();
  const auto values = st.values[1];
  const auto components = st.components[1];
  const auto fetched = st.fetched_x;
  const auto values_fetched = st.fetched_value;
  const std::vector<long> by_position = st.positions_held[1];
  const Positions positions = st.positions;
  Job part;
  part.at = Class::kReadout;
  part.into = into;
  std::set<long> part_read;
  collect_coordinates(st, e, part_read);
  part.inputs.assign(part_read.begin(), part_read.end());
  // A maximum or minimum of a few values the readout holds (of E1's vertex products, say) is
  // fitted where it is not one level; other functions are not.
  const auto* combined = std::get_if<Value::Combined>(&e.what);
  part.fitted_if_needed = combined != nullptr && (combined->op == targets::ReduceOp::kMax ||
                                                   combined->op == targets::ReduceOp::kMin);
  const std::vector<long> part_inputs = part.inputs;
  const Value t = e;
  if (detail::reads_position(e)) require_through_sum(st, e, "the readout MLP");
  part.f = [=](const Eigen::VectorXd& z_in) {
    Eigen::VectorXd z = Eigen::VectorXd::Zero(width);
    for (std::size_t i = 0; i < part_inputs.size(); ++i)
      z(part_inputs[i]) = z_in(static_cast<long>(i));
    detail::TermInputs in;
    in.parameters = parameters;
    in.tokens_count = count;
    if (!by_position.empty()) {
      Eigen::VectorXd mean(static_cast<long>(by_position.size()));
      for (std::size_t j = 0; j < by_position.size(); ++j)
        mean(static_cast<long>(j)) = z(by_position[j]);
      for (const auto& [ref, p] : positions) in.positioned[ref] = mean;
    }
    in.coordinate = [&](long unit) { return z(unit); };  // computed by the last layer's FFN
    in.reference = [&](const Value::Held& h) {
      detail::TermValue value;
      if (h.component < 0) {
        value.s = values.at(h.quantity).dot(z);
        return value;
      }
      const std::vector<Form>& forms = components.at({h.quantity, h.component});
      value.vector = forms.size() > 1;
      value.v.resize(static_cast<long>(forms.size()));
      for (std::size_t r = 0; r < forms.size(); ++r)
        value.v(static_cast<long>(r)) = forms[r].dot(z);
      value.s = value.v(0);
      return value;
    };
    in.selection = [&](const Value& select) {
      const auto& selected = std::get<Value::Selected>(select.what);
      const int id = selected.quantity;
      if (const auto value = values_fetched.find(id); value != values_fetched.end())
        return z(value->second);
      const std::vector<long>& x = fetched.at(id);
      detail::TermInputs body = in;
      Eigen::VectorXd token(static_cast<long>(x.size()));
      for (std::size_t j = 0; j < x.size(); ++j) token(static_cast<long>(j)) = z(x[j]);
      body.tokens[selected.index] = token;
      return detail::evaluate(select.args[0], body).s;
    };
    return c * detail::evaluate(t, in).s;
  };
  return part;
}

/// Whether a readout term is one FFN level's function, probed at the readout's calibration
/// states as the readout MLP will read it.
bool one_level(Lowering& st, const Value& term, const Eigen::MatrixXd& states) {
  Job job = readout_job(st, term, 1, 0);
  if (job.inputs.empty()) return true;
  std::vector<Eigen::VectorXd> data;
  for (long c = 0; c < states.cols(); ++c) {
    Eigen::VectorXd z(static_cast<long>(job.inputs.size()));
    for (std::size_t i = 0; i < job.inputs.size(); ++i)
      z(static_cast<long>(i)) = states(job.inputs[i], c);
    data.push_back(z);
  }
  std::string why;
  const Eigen::VectorXd scale = Eigen::VectorXd::Ones(static_cast<long>(job.inputs.size()));
  return detail::decompose(job.f, scale, derive_seed(st.options.seed, {43}), why, data).has_value();
}

/// The maxima and minima of `n` that hold none inside them.
void innermost_extrema(const Value& n,
                       std::vector<const Value*>& out) {  // NOLINT(misc-no-recursion)
  const std::size_t before = out.size();
  for (const Value& a : n.args) innermost_extrema(a, out);
  const auto* combined = std::get_if<Value::Combined>(&n.what);
  if (out.size() == before && combined != nullptr && combined->op != targets::ReduceOp::kSum)
    out.push_back(&n);
}

/// Whether `n` reads a value some job of the current layer is still to compute.
bool reads_pending(const Lowering& st, const Value& n) {  // NOLINT(misc-no-recursion)
  if (const auto* held = std::get_if<Value::Held>(&n.what);
      held != nullptr && st.pending_values.count(held->quantity) != 0)
    return true;
  return std::any_of(n.args.begin(), n.args.end(),
                     [&](const Value& a) { return reads_pending(st, a); });
}

/// `n` with each first-level extremum replaced by its coordinate.
Value leveled(const Lowering& st, const Value& n) {  // NOLINT(misc-no-recursion)
  for (const auto& [extremum, unit] : st.first_level_units) {
    if (theorems::same_value(n, extremum)) return Value{Value::Coordinate{unit}, {}};
  }
  Value out = n;
  for (Value& a : out.args) a = leveled(st, a);
  return out;
}

}  // namespace

/// Two FFN levels at the readout: a term that is not one ridge level (a function of a
/// maximum of held values, the maximum of |E|'s two readings) has its innermost maxima and
/// minima computed first by the last layer's FFN at the readout, each into a coordinate.
std::vector<Job> first_level(Lowering& st, long layer) {
  std::vector<Job> jobs;
  const Eigen::MatrixXd states = calibration_states(st, layer);  // the readout's, after attention
  const auto among = [](const Value& e, const auto& list, const auto& value_of) {
    return std::any_of(list.begin(), list.end(),
                       [&](const auto& x) { return theorems::same_value(value_of(x), e); });
  };
  for (const auto& [coefficient, term] : theorems::additive_terms(st.output)) {
    // Terms read by position are read through their sum, as one (readout(st)).
    if ((detail::reads_position(term) && !reads_through_sum(st, term)) || one_level(st, term, states))
      continue;
    std::vector<const Value*> extrema;
    innermost_extrema(term, extrema);
    std::vector<const Value*> firsts;
    for (const Value* e : extrema) {
      // An extremum not one level's function itself (a maximum of products, at E1's vertices)
      // has its operands computed first where each is, and is then the readout's.
      const bool operands = !one_level(st, *e, states) &&
                            std::all_of(e->args.begin(), e->args.end(), [&](const Value& a) {
                              return one_level(st, a, states);
                            });
      if (!operands) {
        firsts.push_back(e);
        continue;
      }
      for (const Value& a : e->args) {
        if (theorems::reads_held_value(a) && !std::holds_alternative<Value::Held>(a.what))
          firsts.push_back(&a);
      }
    }
    for (const Value* e : firsts) {
      if (among(*e, st.first_level_units, [](const auto& x) -> const Value& { return x.first; }) ||
          among(*e, st.pending, [](const Value& x) -> const Value& { return x; }))
        continue;
      if (reads_pending(st, *e)) continue;  // its inputs are this FFN's own outputs: a third level
      const std::string text = theorems::to_text(*e);
      Job job = readout_job(st, *e, 1, -1);
      job.what = "the first level " + text;
      job.placed = [state = &st, extremum = *e](long into) {
        state->first_level_units.emplace_back(extremum, into);
      };
      st.pending.push_back(*e);
      jobs.push_back(std::move(job));
      st.described.push_back(
          fmt::format("FFN {} at the readout: computes {}, which the readout "
                      "MLP reads",
                      layer + 1, text));
    }
  }
  return jobs;
}

/// The readout MLP computes the target's value, one job per additive term; the terms that
/// read tokens by position but not through their sum alone are one job, since the positions'
/// mean holds their sum only, and it is their sum that must be a function of it (dot(c, x[1])
/// + dot(c, x[2]) is, neither term alone is).
void readout(Lowering& st) {
  std::vector<Job> jobs;
  std::vector<Value> by_position;
  for (const auto& [coefficient, term] : theorems::additive_terms(leveled(st, st.output))) {
    if (detail::reads_position(term) && !reads_through_sum(st, term)) {
      by_position.push_back(
          coefficient == 1 ? term
                           : theorems::operation(K::kMul, {theorems::number(coefficient), term}));
      continue;
    }
    jobs.push_back(readout_job(st, term, coefficient, 0));
    jobs.back().what = "the term " + theorems::to_text(term) + " of the target's value";
  }
  if (!by_position.empty()) {
    const Value sum = theorems::sum_of(std::move(by_position));
    jobs.push_back(readout_job(st, sum, 1, 0));
    jobs.back().what = "the terms " + theorems::to_text(sum) + " of the target's value";
  }
  ffn(st, st.network->config().layers(), jobs, {}, true);
}

}  // namespace infoflow::construct::detail
