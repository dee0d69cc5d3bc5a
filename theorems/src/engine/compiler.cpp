// The compiler core: the walk over the target's tree, the unrolling of ranges (E0), a token
// reduction handed to the reduction passes in the registry's order; and the passes of the walk.
#include "compiler.hpp"

#include <algorithm>
#include <functional>
#include <utility>

#include <fmt/format.h>

#include "infoflow/core/error.hpp"
#include "infoflow/symbolic/symbols.hpp"
#include "infoflow/targets/node_algebra.hpp"

#include "pipeline.hpp"
#include "values.hpp"

namespace infoflow::theorems::detail {

namespace {

using targets::Node;
using K = targets::Node::Kind;

/// The most copies unrolling may make (a guard against sum(i = 1..1000000)).
constexpr long kMaxCopies = 4096;

/// Puts a flag back as it was when the scope ends.
class Restore {
 public:
  explicit Restore(bool& flag) : flag_(flag), saved_(flag) {}
  Restore(const Restore&) = delete;
  Restore& operator=(const Restore&) = delete;
  ~Restore() { flag_ = saved_; }

 private:
  bool& flag_;
  bool saved_;
};

/// sum(t) (exp(L) * V) / sum(s) exp(L), one token index each, the same L up to its name:
/// a softmax-weighted mean (exp(L) as any factor of the numerator's product).
bool softmax_weighted(const Node& numerator, const Node& denominator) {
  const auto token_sum = [](const Node& m) {
    return m.kind == K::kReduce && m.op == targets::ReduceOp::kSum && !m.has_key() &&
           m.constraints.empty() && m.binders.size() == 1 && !m.binders[0].has_range;
  };
  if (!token_sum(numerator) || !token_sum(denominator)) return false;
  const Node& weight = denominator.args[0];
  if (weight.kind != K::kCall || weight.name != "exp") return false;
  const std::string score = canonical(weight, {{denominator.binders[0].name, "#v"}});
  const std::vector<const Node*> parts = targets::product_parts(numerator.args[0]);
  return std::any_of(parts.begin(), parts.end(), [&](const Node* p) {
    return canonical(*p, {{numerator.binders[0].name, "#v"}}) == score;
  });
}

}  // namespace

void Deps::add(const Deps& o) {
  indices.insert(o.indices.begin(), o.indices.end());
  quantities.insert(o.quantities.begin(), o.quantities.end());
}

Compilation::Compilation(std::span<const Pass* const> passes_, const targets::Formula& written_,
                         const targets::Bindings& bindings_, long token_dim_, bool split_products_)
    : passes(passes_),
      written(written_),
      bindings(bindings_),
      token_dim(token_dim_),
      split_products(split_products_),
      reader(bindings_, token_dim_, split_products_) {}

int Compilation::add(Quantity q, const std::string& key) {
  if (!key.empty()) {
    const auto hit = merged.find(key);
    if (hit != merged.end()) return hit->second;  // identical actions are one action
  }
  const int id = static_cast<int>(program.quantities.size());
  if (q.name.empty()) q.name = (q.holder == Holder::kGlobal ? "g" : "m") + std::to_string(id + 1);
  std::sort(q.needs.begin(), q.needs.end());
  program.quantities.push_back(std::move(q));
  if (!key.empty()) merged.emplace(key, id);
  return id;
}

int Compilation::positions_quantity(const Node& ref, const std::string& name) {
  if (positions < 0) {
    Quantity q;
    q.name = "P";
    q.mode = Mode::kPositions;
    q.form.known = true;
    positions = add(q, "");
  }
  if (std::find(position_names.begin(), position_names.end(), name) == position_names.end()) {
    position_names.push_back(name);
    FormTerm term;
    term.node = std::make_shared<const Node>(ref);
    program.quantities[static_cast<std::size_t>(positions)].form.terms.push_back(std::move(term));
  }
  return positions;
}

Deps Compilation::expr(const Node& n, const std::set<std::string>& scope) {
  Deps d;
  // Below anything but a sum, a sign or a closed factor, a reduction's value is no longer a
  // term of the target's sum (summed).
  const bool additive =
      n.kind == K::kAdd || n.kind == K::kSub || n.kind == K::kNeg || n.kind == K::kReduce ||
      (n.kind == K::kMul &&
       (!targets::mentions_token(n.args[0]) || !targets::mentions_token(n.args[1]))) ||
      (n.kind == K::kDiv && !targets::mentions_token(n.args[1]));  // 1 / mean is no term of a sum
  const Restore restore(summed);
  summed = summed && additive;
  if (n.kind == K::kRef && n.name == "x") {
    if (n.position > 0 || !n.position_name.empty()) {
      const std::string where =
          n.position > 0 ? std::to_string(n.position) : targets::subscript_text(n);
      note_order(targets::to_text(n) + " reads a fixed position");
      d.quantities.insert(positions_quantity(n, where));
    } else if (n.offset != 0) {
      note_order(targets::to_text(n) + " reads a relative position");
      Quantity q;
      q.name = fmt::format("r{:+}", n.offset);
      q.holder = Holder::kToken;
      q.mode = Mode::kRelative;
      q.what = fmt::format("x[t{:+}] at every token t", n.offset);
      d.quantities.insert(add(q, "relative" + std::to_string(n.offset)));
      d.indices.insert(n.index);
    } else if (!n.index.empty()) {
      d.indices.insert(n.index);
    }
    return d;
  }
  if (n.kind == K::kReduce) return reduction(n, scope);
  // Times the number 0 the rest is never computed (max(t) y * 0 + max(t) z is max z).
  if (n.kind == K::kMul && std::any_of(n.args.begin(), n.args.end(), [](const Node& a) {
        const std::optional<double> number = targets::literal_number(a);
        return number && *number == 0;
      }))
    return d;
  if (n.kind == K::kDiv && softmax_weighted(n.args[0], n.args[1])) {
    outside("'" + targets::to_text(n) +
            "' is a softmax-weighted mean (attention at finite temperature, which one head "
            "computes exactly where the score and the value are linear in the token); R6 "
            "prices uniform averages only: read as undecided");
  }
  for (const Node& a : n.args) d.add(expr(a, scope));
  return d;
}

void Compilation::note_order(const std::string& why) {
  if (std::find(program.order_dependent.begin(), program.order_dependent.end(), why) ==
      program.order_dependent.end())
    program.order_dependent.push_back(why);
}

void Compilation::outside(const std::string& why) {
  if (!program.outside) program.outside = why;
}

Deps Compilation::reduction(const Node& n, const std::set<std::string>& scope) {
  std::vector<const targets::Binder*> unrolled;
  std::vector<const targets::Binder*> tokens;
  for (const targets::Binder& b : n.binders) {
    // An index without a range runs over the tokens (it may be read only through a
    // constraint, as t in sum(t) max(s < t) ...); one ranged 1..T that subscripts x does too.
    (ranged(b, n) ? unrolled : tokens).push_back(&b);
  }
  if (unrolled.empty()) return token_reduction(n, scope);
  if (!tokens.empty() && n.op != targets::ReduceOp::kSum) {
    outside("'" + targets::to_text(n) +
            "' reduces over tokens and a range at once; write the range outside, e.g. "
            "max(i = 1..D) max(t) ...");
    return {};
  }
  if (n.op == targets::ReduceOp::kKth) {
    outside("'" + targets::to_text(n) +
            "': a k-th largest over a parameter range is not a rule of the framework");
  }
  const Restore restore(summed);
  summed = summed && n.op == targets::ReduceOp::kSum;  // a sum's copies are its terms
  // Expand the combinations of the unrolled binders.
  std::vector<targets::IndexRange> ranges;
  long count = 1;
  for (const targets::Binder* b : unrolled) {
    const long low = reader.resolve(b->low, b->column);
    const long high = reader.resolve(b->high, b->column);
    if (high < low) {
      throw InputError(SourceLocation{"<formula>", 1, b->column},
                       fmt::format("the range {} = {}..{} is empty", b->name, low, high));
    }
    if (count * (high - low + 1) > kMaxCopies) {
      throw InputError(SourceLocation{"<formula>", 1, b->column},
                       fmt::format("unrolling {} = {}..{} makes more than {} copies", b->name, low,
                                   high, kMaxCopies));
    }
    count *= high - low + 1;
    ranges.push_back({b->name, low, high});
  }
  std::vector<Node> copies = targets::copies_over(n, ranges);
  Deps d;
  std::vector<int> firsts;
  std::vector<std::string> shapes;
  // Program::values: the copies' values, summed or compared.
  Value combined{Value::Combined{n.op == targets::ReduceOp::kSum   ? targets::ReduceOp::kSum
                                 : n.op == targets::ReduceOp::kMin ? targets::ReduceOp::kMin
                                                                   : targets::ReduceOp::kMax},
                 {}};
  for (Node& c : copies) {
    std::erase_if(c.binders, [&](const targets::Binder& b) {
      return std::any_of(unrolled.begin(), unrolled.end(),
                         [&](const targets::Binder* u) { return u->name == b.name; });
    });
    const int first = static_cast<int>(program.quantities.size());
    if (c.binders.empty()) {
      d.add(expr(c.args[0], scope));
      if (c.has_key()) d.add(expr(c.args[1], scope));
      combined.args.push_back(lifted(c.args[0]));
    } else {
      d.add(token_reduction(c, scope));
      combined.args.push_back(lifted(c));
    }
    firsts.push_back(first);
    shapes.push_back(shape(first));
  }
  // Copies that made the same shape of new quantities are interchangeable in a plan.
  const bool same = firsts.size() >= 2 && shapes.front() != "" &&
                    std::all_of(shapes.begin(), shapes.end(),
                                [&](const std::string& s) { return s == shapes.front(); });
  if (same) program.interchangeable.push_back(firsts);
  if (!n.has_key()) program.values.emplace(n, std::move(combined));
  return d;
}

std::string Compilation::shape(int first) const {
  std::string out;
  for (std::size_t i = static_cast<std::size_t>(first); i < program.quantities.size(); ++i) {
    const Quantity& q = program.quantities[i];
    out += fmt::format("{}{}{}{}{}:", static_cast<int>(q.mode), static_cast<int>(q.holder),
                       q.needs_at_tokens, q.needs_ffn, q.positions);
    for (const int n : q.needs)
      out += n >= first ? "+" + std::to_string(n - first) + "," : std::to_string(n) + ",";
    out += ";";
  }
  return out;
}

Factor Compilation::factor_of(const Term& term, const std::set<std::string>& scope) {
  const Deps d = expr(*term.node, scope);
  Factor f;
  f.indices = d.indices;
  f.quantities = d.quantities;
  f.text = targets::to_text(*term.node);
  f.term = term.node;
  f.scale = term.scale();
  f.sign = term.sign();
  f.magnitude = term.magnitude;
  f.shown = term.shown(f.text);
  return f;
}

std::optional<int> Compilation::closed_sign(const Node& n) const {
  try {
    return constant_sign(targets::Formula::from_tree(n), bindings, token_dim);
  } catch (const InputError&) {  // an index bound further out
    return std::nullopt;
  }
}

Deps Compilation::token_reduction(const Node& n, const std::set<std::string>& scope) {
  // Whether this reduction is a term of the target's sum; what its body holds is not.
  TokenReduction r{n, scope, summed, {}, {}, {}, {}};
  const Restore restore(summed);
  summed = false;
  for (const Pass* pass : passes) {
    if (pass->stage != Stage::kReduction) continue;
    if (std::optional<Deps> d = pass->on_reduction(*this, r)) return std::move(*d);
  }
  throw Error(fmt::format("no pass of the engine's registry compiles the reduction at column {}",
                          n.column));
}

Deps Compilation::annotated(Deps d, const Node& n) {
  const auto note = reader.notes().find(n);
  if (note != reader.notes().end() && !program.comparisons.empty() &&
      targets::same_expression(program.comparisons.back().reduction, n))
    program.comparisons.back().elimination += note->second;
  return d;
}

bool Compilation::ranks_last(const Node& n) {
  return n.op == targets::ReduceOp::kKth && n.rank.name == "T" && n.binders.size() == 1 &&
         n.constraints.empty();
}

namespace {

// ---- the passes of this file (pipeline.cpp sets their order) ----------------------------------

/// E5 for the whole target too: reductions that cancel (max(t) y - max(s) y) or a term that
/// vanishes (dot(x[1], x[2]) * 0) leave a constant, which no action computes.
void constant_target(Compilation& state) {
  if (state.root.kind == K::kReduce) return;
  if (const std::optional<double> value = state.reader.closed_constant(state.root)) {
    state.program.constants.push_back(fmt::format(
        "the target {} takes one value on every random sequence ({} for one draw of its "
        "parameters): no action",
        targets::to_text(state.formula().root()), targets::number_text(*value)));
    state.done = true;
  }
}

void walk(Compilation& state) {
  state.program.root = state.root;
  const Deps top = state.expr(state.root, {});
  for (const int q : top.quantities) state.program.outputs.push_back(q);
}

/// beta', beta_1 and the comparison number from the comparisons made.
void count_comparisons(Compilation& state) {
  Program& p = state.program;
  if (state.positions >= 0) {
    Quantity& pq = p.quantities[static_cast<std::size_t>(state.positions)];
    pq.positions = static_cast<long>(state.position_names.size());
    pq.what = fmt::format("the tokens at positions {{{}}}", fmt::join(state.position_names, ", "));
  }
  // One reduction written twice is one comparison.
  std::set<Node, targets::ExpressionOrder> counted;
  for (const Comparison& c : p.comparisons) {
    if (!c.counts() || !counted.insert(c.reduction).second) continue;
    p.order = std::max(p.order, c.order);
    p.comparison_number += GiNaC::pow(symbolic::SymbolRegistry::standard().seq_len(), c.order);
  }
  // Said in the tree, compared nowhere (no order, not in the comparison number).
  for (const std::string& text : state.reader.idle()) {
    Comparison c;
    c.text = text;
    c.order = 0;
    c.elimination =
        "the body reads none of the selected indices: its value, whichever tuple "
        "the key selects (no action)";
    p.comparisons.push_back(c);
  }
}

/// E3's reading of idle constraints, applied to each token reduction as the walk meets it.
std::optional<Deps> without_idle_constraints(Compilation& state, TokenReduction& r) {
  const std::optional<Node> free = kIdleConstraints.rewrite(r.node, r.node, state.reader);
  if (!free) return std::nullopt;
  const Restore restore(state.summed);
  state.summed = r.summed;  // the reduction read again is the same term of the target's sum
  Deps d = state.token_reduction(*free, r.scope);
  const auto value = state.program.values.find(*free);
  if (value != state.program.values.end()) state.program.values.emplace(r.node, value->second);
  return d;
}

std::optional<Deps> constant_reduction(Compilation& state, TokenReduction& r) {
  const std::optional<double> value = state.reader.closed_constant(r.node);
  if (!value) return std::nullopt;
  // Its value, what the constructor reads for it, where it is one at every length and draw of
  // the parameters and d (min(s, t) abs(dot(a, x[s]) - dot(a, x[t])) is 0 whatever a; sum(t) 1
  // is T, and not recorded).
  if (const std::optional<double> fixed = state.reader.closed_constant(r.node, true))
    state.program.values.emplace(r.node, number(*fixed));
  state.program.constants.push_back(
      fmt::format("{} takes one value on every random sequence ({} for one draw of its "
                  "parameters): no action",
                  targets::to_text(r.node), targets::number_text(*value)));
  return Deps{};
}

}  // namespace

extern const Pass kConstantTargetPass;  // registered in pipeline.cpp
const Pass kConstantTargetPass{
    .rule = "E5",
    .name = "constant target",
    .does = "a target that takes one value on random sequences needs no action",
    .stage = Stage::kTarget,
    .on_target = constant_target};
extern const Pass kWalkPass;
const Pass kWalkPass{.rule = "E0",
                     .name = "walk",
                     .does =
                         "the tree, operands first: ranges unrolled into copies, positions and "
                         "offsets fetched (R5), each token reduction to the reduction passes",
                     .stage = Stage::kTarget,
                     .on_target = walk};
extern const Pass kComparisonsPass;
const Pass kComparisonsPass{.rule = "5.4",
                            .name = "comparison tree",
                            .does =
                                "beta' the largest order, beta_1 the distinct comparisons, the "
                                "comparison number the sum of T^order",
                            .stage = Stage::kTarget,
                            .on_target = count_comparisons};
extern const Pass kIdleConstraintsPass;
const Pass kIdleConstraintsPass{.rule = "E3",
                                .name = "idle constraints",
                                .does =
                                    "a constraint on an index no term reads is dropped, the "
                                    "reduction compiled again",
                                .stage = Stage::kReduction,
                                .on_reduction = without_idle_constraints};
extern const Pass kConstantReductionPass;
const Pass kConstantReductionPass{.rule = "E5",
                                  .name = "constant reduction",
                                  .does =
                                      "a reduction that takes one value on random sequences is a "
                                      "constant: no action",
                                  .stage = Stage::kReduction,
                                  .on_reduction = constant_reduction};

}  // namespace infoflow::theorems::detail
