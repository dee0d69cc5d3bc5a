#include "infoflow/symbolic/sign.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include <z3++.h>

#include "infoflow/symbolic/canonical.hpp"

namespace infoflow::symbolic {
namespace {

using GiNaC::ex;
using GiNaC::numeric;

/// Thrown inside translation when an expression is not a polynomial Z3 can take.
struct NotPolynomial : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// `num/den op 0`, both sides expanded polynomials; `den_positive` when GiNaC proved den > 0.
struct Condition {
  ex num;
  ex den;
  RelOp op = RelOp::kGreater;
  bool den_positive = true;
};

Condition make_condition(const ex& e, RelOp op) {
  const ex normal = e.normal();
  Condition c;
  c.num = normal.numer().expand();
  c.den = normal.denom().expand();
  c.op = op;
  c.den_positive = c.den.info(GiNaC::info_flags::positive);
  return c;
}

bool holds(const numeric& value, RelOp op) {
  switch (op) {
    case RelOp::kLess: return value.is_negative();
    case RelOp::kLessEqual: return !value.is_positive();
    case RelOp::kGreater: return value.is_positive();
    case RelOp::kGreaterEqual: return !value.is_negative();
    case RelOp::kEqual: return value.is_zero();
    case RelOp::kNotEqual: return !value.is_zero();
  }
  return false;
}

std::string numeral_text(const numeric& q) {
  std::ostringstream out;
  out << GiNaC::abs(q);
  return out.str();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Domain and Witness

void Domain::require(const ex& lhs_minus_rhs, RelOp op, std::string origin) {
  // A constraint that substitution made numeric and true says nothing: drop it.
  const ex value = lhs_minus_rhs.normal();
  if (GiNaC::is_a<numeric>(value) && holds(GiNaC::ex_to<numeric>(value), op)) return;
  constraints_.push_back(Constraint{lhs_minus_rhs, op, std::move(origin)});
}

void Domain::require(const Relation& relation, std::string origin) {
  require(to_ex_difference(relation), relation.op, std::move(origin));
}

void Domain::extend(const Domain& other) {
  constraints_.insert(constraints_.end(), other.constraints_.begin(), other.constraints_.end());
}

Domain Domain::substituted(const GiNaC::exmap& map) const {
  Domain out;
  for (const Constraint& c : constraints_) out.require(c.expr.subs(map), c.op, c.origin);
  return out;
}

namespace {

/// `expr op 0` as a bound on one symbol (a*s + b with numeric a != 0, b), if it is one.
struct SimpleBound {
  GiNaC::ex symbol;
  bool lower = true;  ///< s > v or s >= v; else s < v or s <= v
  GiNaC::numeric value;
  bool strict = false;
};

std::optional<SimpleBound> simple_bound(const Constraint& c) {
  if (c.op == RelOp::kEqual || c.op == RelOp::kNotEqual) return std::nullopt;
  std::vector<const SymbolInfo*> symbols;
  try {
    symbols = symbols_of(c.expr);
  } catch (const std::out_of_range&) {
    return std::nullopt;  // a symbol of no registry: printed as it is
  }
  if (symbols.size() != 1) return std::nullopt;
  const GiNaC::ex s = symbols.front()->symbol;
  const GiNaC::ex e = c.expr.expand();
  if (!e.is_polynomial(s) || e.degree(s) != 1) return std::nullopt;
  const GiNaC::ex a = e.coeff(s, 1);
  const GiNaC::ex b = e.coeff(s, 0);
  if (!GiNaC::is_a<GiNaC::numeric>(a) || !GiNaC::is_a<GiNaC::numeric>(b)) return std::nullopt;
  const GiNaC::numeric na = GiNaC::ex_to<GiNaC::numeric>(a);
  if (na.is_zero() || !na.is_real()) return std::nullopt;
  // a*s + b op 0  <=>  s op' -b/a, op' flipped when a < 0.
  const bool greater = c.op == RelOp::kGreater || c.op == RelOp::kGreaterEqual;
  return SimpleBound{s, greater == na.is_positive(), -GiNaC::ex_to<GiNaC::numeric>(b) / na,
                     c.op == RelOp::kGreater || c.op == RelOp::kLess};
}

/// Whether bound x says at least as much as y (same symbol and direction).
bool tighter(const SimpleBound& x, const SimpleBound& y) {
  if (x.value == y.value) return x.strict || !y.strict;
  return x.lower ? x.value > y.value : x.value < y.value;
}

}  // namespace

std::string Domain::to_text() const {
  // Bounds on one symbol that a tighter one implies are left out ("k >= 3", not "k >= 3,
  // k >= 2"), and so are repeats.
  std::vector<std::optional<SimpleBound>> bounds;
  for (const Constraint& c : constraints_) bounds.push_back(simple_bound(c));
  std::string out;
  std::set<std::string> printed;
  for (std::size_t i = 0; i < constraints_.size(); ++i) {
    bool implied = false;
    for (std::size_t j = 0; j < constraints_.size() && bounds[i] && !implied; ++j) {
      if (j == i || !bounds[j] || bounds[j]->lower != bounds[i]->lower ||
          !bounds[j]->symbol.is_equal(bounds[i]->symbol))
        continue;
      // j implies i and is strictly tighter, or as tight and earlier (keep the first of equals).
      implied = tighter(*bounds[j], *bounds[i]) && (!tighter(*bounds[i], *bounds[j]) || j < i);
    }
    if (implied) continue;
    const std::string text = canonical_relation(constraints_[i].expr, symbolic::to_text(constraints_[i].op));
    if (!printed.insert(text).second) continue;
    if (!out.empty()) out += ", ";
    out += text;
  }
  return out.empty() ? "(no constraint)" : out;
}

GiNaC::exmap Witness::as_map() const {
  GiNaC::exmap map;
  for (const auto& [info, value] : values) map[info->symbol] = value;
  return map;
}

std::string Witness::to_text() const {
  std::string out;
  for (const auto& [info, value] : values) {
    if (!out.empty()) out += ", ";
    std::ostringstream v;
    v << value;
    out += info->name + "=" + v.str();
  }
  return out;
}

ex Witness::evaluate(const ex& e) const { return e.subs(as_map()).normal(); }

std::string to_text(Sign sign) {
  switch (sign) {
    case Sign::kPositive: return "positive";
    case Sign::kNegative: return "negative";
    case Sign::kZero: return "zero";
    case Sign::kNonNegative: return "nonnegative";
    case Sign::kNonPositive: return "nonpositive";
    case Sign::kNonZero: return "nonzero";
    case Sign::kIndefinite: return "indefinite";
    case Sign::kEmptyDomain: return "empty domain";
    case Sign::kUnknown: return "unknown";
  }
  return {};
}

std::string to_text(Satisfiability status) {
  switch (status) {
    case Satisfiability::kSatisfiable: return "satisfiable";
    case Satisfiability::kUnsatisfiable: return "unsatisfiable";
    case Satisfiability::kUnknown: return "unknown";
  }
  return {};
}

// ---------------------------------------------------------------------------------------------
// The Z3 side

struct SignOracle::Impl {
  explicit Impl(unsigned timeout) : timeout_ms(timeout) {}

  z3::context ctx;
  unsigned timeout_ms;

  /// Variables of one query: integer symbols as Int (when `integral`) seen through to_real.
  struct Vars {
    std::map<ex, z3::expr, GiNaC::ex_is_less> term;  // the real-valued view of each symbol
    struct ByOrder {
      bool operator()(const SymbolInfo* a, const SymbolInfo* b) const { return a->order < b->order; }
    };
    std::map<const SymbolInfo*, z3::expr, ByOrder> raw;  // the declared constant, for the model
  };

  z3::expr variable(const ex& symbol, Vars& vars, bool integral) {
    const auto it = vars.term.find(symbol);
    if (it != vars.term.end()) return it->second;
    const SymbolRegistry& registry = SymbolRegistry::standard();
    if (!registry.contains(symbol)) throw NotPolynomial("a symbol outside the registry");
    const SymbolInfo& info = registry.info(symbol);
    const bool as_int = integral && info.integer;
    z3::expr raw = as_int ? ctx.int_const(info.name.c_str()) : ctx.real_const(info.name.c_str());
    z3::expr term = as_int ? z3::to_real(raw) : raw;
    vars.raw.emplace(&info, raw);
    vars.term.emplace(symbol, term);
    return term;
  }

  z3::expr number(const numeric& q) {
    if (!q.is_rational()) throw NotPolynomial("an irrational number");
    const z3::expr magnitude = ctx.real_val(numeral_text(q).c_str());
    return q.is_negative() ? -magnitude : magnitude;
  }

  z3::expr translate(const ex& e, Vars& vars, bool integral) {
    if (GiNaC::is_a<GiNaC::numeric>(e)) return number(GiNaC::ex_to<numeric>(e));
    if (GiNaC::is_a<GiNaC::symbol>(e)) return variable(e, vars, integral);
    if (GiNaC::is_a<GiNaC::add>(e) || GiNaC::is_a<GiNaC::mul>(e)) {
      // GiNaC's operand order follows address-seeded hashes and changes between runs; Z3's
      // search (and the witness it returns) depends on the order it is given. Sort first.
      std::vector<std::pair<std::string, ex>> operands;
      for (std::size_t i = 0; i < e.nops(); ++i) operands.emplace_back(canonical(e.op(i)), e.op(i));
      std::sort(operands.begin(), operands.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      const bool sum = GiNaC::is_a<GiNaC::add>(e);
      z3::expr out = translate(operands.front().second, vars, integral);
      for (std::size_t i = 1; i < operands.size(); ++i) {
        const z3::expr next = translate(operands[i].second, vars, integral);
        out = sum ? out + next : out * next;
      }
      return out;
    }
    if (GiNaC::is_a<GiNaC::power>(e) && GiNaC::is_a<GiNaC::numeric>(e.op(1))) {
      const numeric p = GiNaC::ex_to<numeric>(e.op(1));
      if (p.is_pos_integer() && p <= 16) {  // to_int() throws past 32 bits
        const z3::expr base = translate(e.op(0), vars, integral);
        z3::expr product = base;
        for (int i = 1; i < p.to_int(); ++i) product = product * base;
        return product;
      }
    }
    throw NotPolynomial("not a polynomial");
  }

  z3::expr relate(const z3::expr& lhs, RelOp op) {
    const z3::expr zero = ctx.real_val(0);
    switch (op) {
      case RelOp::kLess: return lhs < zero;
      case RelOp::kLessEqual: return lhs <= zero;
      case RelOp::kGreater: return lhs > zero;
      case RelOp::kGreaterEqual: return lhs >= zero;
      case RelOp::kEqual: return lhs == zero;
      case RelOp::kNotEqual: return lhs != zero;
    }
    return lhs == zero;
  }

  void add_condition(z3::solver& solver, const Condition& c, Vars& vars, bool integral) {
    const z3::expr num = translate(c.num, vars, integral);
    if (c.den_positive) {
      // The denominator's symbols still get a variable (and their domains): a witness must give
      // every symbol of the condition a value, n in (T - k - 1)/(n + 1) too.
      static_cast<void>(translate(c.den, vars, integral));
      solver.add(relate(num, c.op));
      return;
    }
    const z3::expr den = translate(c.den, vars, integral);
    solver.add(den != ctx.real_val(0));
    solver.add(relate(c.op == RelOp::kEqual || c.op == RelOp::kNotEqual ? num : num * den, c.op));
  }

  /// Registry bounds of every symbol the query uses.
  void add_symbol_domains(z3::solver& solver, Vars& vars) {
    for (const auto& [info, raw] : vars.raw) {
      const z3::expr x = vars.term.at(info->symbol);
      const z3::expr lower = number(info->lower);
      solver.add(info->lower_strict ? x > lower : x >= lower);
      if (info->upper) solver.add(x < number(*info->upper));
    }
  }

  /// The registry's implicit facts between symbols the query uses (k <= T, ...).
  void add_implicit_facts(z3::solver& solver, Vars& vars, bool integral) {
    std::vector<const SymbolInfo*> used;
    for (const auto& entry : vars.raw) used.push_back(entry.first);
    for (const FactBetween& f : SymbolRegistry::standard().implicit_facts_among(used)) {
      solver.add(variable(f.smaller->symbol, vars, integral) <=
                 variable(f.larger->symbol, vars, integral) + number(numeric(f.fact->offset)));
    }
  }

  static std::optional<numeric> model_value(const z3::expr& value) {
    if (value.is_numeral()) {
      return numeric(Z3_get_numeral_string(value.ctx(), value));
    }
    if (value.is_algebraic()) {
      // An algebraic model (a root of a polynomial): a rational inside its isolating interval.
      const std::string decimal = value.get_decimal_string(12);
      std::string digits = decimal;
      if (!digits.empty() && digits.back() == '?') digits.pop_back();
      const auto dot = digits.find('.');
      if (dot == std::string::npos) return numeric(digits.c_str());
      const std::string whole = digits.substr(0, dot) + digits.substr(dot + 1);
      std::string den = "1" + std::string(digits.size() - dot - 1, '0');
      return numeric((whole + "/" + den).c_str());
    }
    return std::nullopt;
  }

  Witness witness(const z3::model& model, const Vars& vars) {
    Witness w;
    for (const auto& [info, raw] : vars.raw) {
      const std::optional<numeric> v = model_value(model.eval(raw, true));
      if (v) w.values.emplace_back(info, *v);
    }
    std::sort(w.values.begin(), w.values.end(),
              [](const auto& a, const auto& b) { return a.first->order < b.first->order; });
    return w;
  }

  static bool integral_where_needed(const Witness& w) {
    for (const auto& [info, value] : w.values) {
      if (info->integer && !value.is_integer()) return false;
    }
    return true;
  }

  static bool verified(const Witness& w, const std::vector<Condition>& conditions) {
    const GiNaC::exmap at = w.as_map();
    for (const Condition& c : conditions) {
      const ex den = c.den.subs(at).normal();
      const ex value = (c.num / c.den).subs(at).normal();
      if (!GiNaC::is_a<numeric>(value) || !GiNaC::is_a<numeric>(den)) return false;
      if (GiNaC::ex_to<numeric>(den).is_zero()) return false;
      if (!holds(GiNaC::ex_to<numeric>(value), c.op)) return false;
    }
    return true;
  }

  enum class Phase { kReals, kIntegers };

  /// One Z3 call over `conditions` plus `fixed` (symbol == value); integer symbols are Int
  /// in the integer phase.
  z3::check_result run(const std::vector<Condition>& conditions, const Witness& fixed, Phase phase,
                       Vars& vars, std::optional<z3::model>& model, std::string& reason,
                       OracleStats& stats) {
    const bool integral = phase == Phase::kIntegers;
    // Naming the logic picks Z3's dedicated procedure (nlsat for QF_NRA) instead of its
    // general combination, which is several times slower on these small problems.
    z3::solver solver(ctx, integral ? "QF_LIA" : "QF_NRA");
    z3::params params(ctx);
    params.set("timeout", timeout_ms);
    solver.set(params);
    for (const Condition& c : conditions) add_condition(solver, c, vars, integral);
    for (const auto& [info, value] : fixed.values) {
      solver.add(variable(info->symbol, vars, integral) == number(value));
    }
    add_symbol_domains(solver, vars);
    add_implicit_facts(solver, vars, integral);
    ++stats.solver_calls;
    if (std::getenv("INFOFLOW_TRACE_Z3") != nullptr) std::cerr << solver.to_smt2() << "\n";
    const z3::check_result answer = solver.check();
    if (answer == z3::sat) model = solver.get_model();
    if (answer == z3::unknown) reason = "the solver gave up: " + solver.reason_unknown();
    return answer;
  }

  static bool linear(const ex& e) {
    const ex expanded = e.expand();
    const auto term_linear = [](const ex& t) {
      if (GiNaC::is_a<numeric>(t) || GiNaC::is_a<GiNaC::symbol>(t)) return true;
      if (!GiNaC::is_a<GiNaC::mul>(t)) return false;
      int symbols = 0;
      for (std::size_t i = 0; i < t.nops(); ++i) {
        if (GiNaC::is_a<GiNaC::symbol>(t.op(i))) {
          ++symbols;
        } else if (!GiNaC::is_a<numeric>(t.op(i))) {
          return false;
        }
      }
      return symbols <= 1;
    };
    if (!GiNaC::is_a<GiNaC::add>(expanded)) return term_linear(expanded);
    for (std::size_t i = 0; i < expanded.nops(); ++i) {
      if (!term_linear(expanded.op(i))) return false;
    }
    return true;
  }

  static bool all_linear(const std::vector<Condition>& conditions) {
    return std::all_of(conditions.begin(), conditions.end(), [](const Condition& c) {
      return linear(c.num) && (c.den_positive || linear(c.den));
    });
  }

  /// One satisfiability question. Over the reals first (a relaxation: unsat there is unsat over
  /// the integers too). A real model that is not integral is rounded (floor or ceiling of each
  /// integer symbol, the reals solved again). Z3's integer arithmetic is used only for linear
  /// conditions: on nonlinear mixed problems it can run past its timeout without returning.
  SatResult solve(const std::vector<Condition>& conditions, OracleStats& stats) {
    SatResult result;
    std::optional<z3::model> model;
    Vars vars;
    z3::check_result answer = z3::unknown;
    try {
      answer = run(conditions, Witness{}, Phase::kReals, vars, model, result.reason, stats);
    } catch (const NotPolynomial& e) {
      result.reason = std::string("the solver takes polynomial conditions only: ") + e.what();
      return result;
    }
    if (answer == z3::unsat) {
      result.status = Satisfiability::kUnsatisfiable;
      return result;
    }
    if (answer == z3::sat) {
      Witness w = witness(*model, vars);
      if (integral_where_needed(w)) {
        result.status = Satisfiability::kSatisfiable;
        if (verified(w, conditions)) result.witness = std::move(w);
        return result;
      }
      // Round the integer symbols, at most 2^6 combinations.
      std::vector<std::pair<const SymbolInfo*, numeric>> fractional;
      for (const auto& [info, value] : w.values) {
        if (info->integer && !value.is_integer()) fractional.emplace_back(info, value);
      }
      const std::size_t combos = fractional.size() <= 6 ? (1u << fractional.size()) : 1u;
      for (std::size_t mask = 0; mask < combos; ++mask) {
        Witness fixed;
        for (std::size_t i = 0; i < fractional.size(); ++i) {
          const numeric& v = fractional[i].second;
          // Integer symbols are positive, so the truncated quotient is the floor.
          const numeric down = GiNaC::iquo(v.numer(), v.denom());
          numeric pick = (combos == 1 || (mask >> i & 1u) != 0) ? down + 1 : down;
          if (pick < fractional[i].first->lower) pick = fractional[i].first->lower;
          fixed.values.emplace_back(fractional[i].first, pick);
        }
        Vars rounded_vars;
        std::optional<z3::model> rounded;
        std::string ignored;
        if (run(conditions, fixed, Phase::kReals, rounded_vars, rounded, ignored, stats) == z3::sat) {
          Witness found = witness(*rounded, rounded_vars);
          if (integral_where_needed(found)) {
            result.status = Satisfiability::kSatisfiable;
            if (verified(found, conditions)) result.witness = std::move(found);
            return result;
          }
        }
      }
    }
    if (all_linear(conditions)) {
      Vars int_vars;
      std::optional<z3::model> int_model;
      const z3::check_result exact =
          run(conditions, Witness{}, Phase::kIntegers, int_vars, int_model, result.reason, stats);
      if (exact == z3::unsat) {
        result.status = Satisfiability::kUnsatisfiable;
        return result;
      }
      if (exact == z3::sat) {
        Witness w = witness(*int_model, int_vars);
        result.status = Satisfiability::kSatisfiable;
        if (verified(w, conditions)) result.witness = std::move(w);
        return result;
      }
    }
    result.status = Satisfiability::kUnknown;
    if (answer == z3::sat) result.reason = "no integer point found near the real solution";
    return result;
  }
};

SignOracle::SignOracle(unsigned timeout_ms) : impl_(std::make_unique<Impl>(timeout_ms)) {}
SignOracle::~SignOracle() = default;

namespace {

std::vector<Condition> conditions_of(const Domain& domain) {
  std::vector<Condition> out;
  for (const Constraint& c : domain.constraints()) out.push_back(make_condition(c.expr, c.op));
  return out;
}

}  // namespace

void SignOracle::record(const Domain& domain, const ex* expr, RelOp op, const SatResult& result,
                        const char* method) {
  if (journal_ == nullptr) return;
  JournalEntry entry;
  entry.domain = domain.constraints();
  entry.has_relation = expr != nullptr;
  if (expr != nullptr) entry.expr = *expr;
  entry.op = op;
  entry.result = result;
  entry.method = method;
  entry.context = journal_->context;
  journal_->entries.push_back(std::move(entry));
}

SatResult SignOracle::satisfiable(const Domain& domain) {
  SatResult result = impl_->solve(conditions_of(domain), stats_);
  record(domain, nullptr, RelOp::kGreater, result, "z3");
  return result;
}

SatResult SignOracle::satisfiable(const Domain& domain, const ex& expr, RelOp op) {
  std::vector<Condition> conditions = conditions_of(domain);
  conditions.push_back(make_condition(expr, op));
  SatResult result = impl_->solve(conditions, stats_);
  record(domain, &expr, op, result, "z3");
  return result;
}

SignDecision SignOracle::sign(const ex& expr, const Domain& domain) {
  ++stats_.sign_queries;
  SignDecision decision;
  const ex normal = expr.normal();
  // Structural answers hold on the whole positive orthant, hence on any domain inside it.
  // Each structural answer is recorded as the question it settles: no point where it fails.
  const auto structural = [&](Sign sign, RelOp fails) {
    decision.sign = sign;
    decision.method = "structural";
    ++stats_.structural;
    record(domain, &expr, fails, SatResult{Satisfiability::kUnsatisfiable, std::nullopt, {}},
           "structural");
    return decision;
  };
  if (normal.is_zero()) return structural(Sign::kZero, RelOp::kNotEqual);
  if (normal.info(GiNaC::info_flags::positive) || expr.info(GiNaC::info_flags::positive)) {
    return structural(Sign::kPositive, RelOp::kLessEqual);
  }
  if ((-normal).info(GiNaC::info_flags::positive) || (-expr).info(GiNaC::info_flags::positive)) {
    return structural(Sign::kNegative, RelOp::kGreaterEqual);
  }
  decision.method = "z3";
  const SatResult pos = satisfiable(domain, normal, RelOp::kGreater);
  const SatResult neg = satisfiable(domain, normal, RelOp::kLess);
  const SatResult zero = satisfiable(domain, normal, RelOp::kEqual);
  decision.positive_at = pos.witness;
  decision.negative_at = neg.witness;
  decision.zero_at = zero.witness;
  const auto yes = [](const SatResult& r) { return r.status == Satisfiability::kSatisfiable; };
  const auto maybe = [](const SatResult& r) { return r.status == Satisfiability::kUnknown; };
  if (yes(pos) && yes(neg)) {
    decision.sign = Sign::kIndefinite;
    if (zero.status == Satisfiability::kUnsatisfiable) decision.sign = Sign::kNonZero;
    return decision;
  }
  if (maybe(pos) || maybe(neg) || maybe(zero)) {
    decision.sign = Sign::kUnknown;
    ++stats_.unknown;
    return decision;
  }
  if (yes(pos)) {
    decision.sign = yes(zero) ? Sign::kNonNegative : Sign::kPositive;
  } else if (yes(neg)) {
    decision.sign = yes(zero) ? Sign::kNonPositive : Sign::kNegative;
  } else {
    decision.sign = yes(zero) ? Sign::kZero : Sign::kEmptyDomain;
  }
  return decision;
}

}  // namespace infoflow::symbolic
