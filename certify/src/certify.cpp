#include "infoflow/certify.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <mutex>
#include <regex>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "infoflow/core/atomic_file.hpp"
#include "infoflow/core/error.hpp"
#include "infoflow/symbolic/canonical.hpp"
#include "infoflow/theorems/check.hpp"

#include "bridge_source.hpp"
#include "printers.hpp"
#include "smt.hpp"

namespace infoflow::certify {

using detail::CoqText;
using detail::Names;
using GiNaC::ex;
using symbolic::JournalEntry;
using symbolic::RelOp;
using symbolic::Satisfiability;
using symbolic::SymbolInfo;

namespace {

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

RelOp negate(RelOp op) {
  switch (op) {
    case RelOp::kLess: return RelOp::kGreaterEqual;
    case RelOp::kLessEqual: return RelOp::kGreater;
    case RelOp::kGreater: return RelOp::kLessEqual;
    case RelOp::kGreaterEqual: return RelOp::kLess;
    case RelOp::kEqual: return RelOp::kNotEqual;
    case RelOp::kNotEqual: return RelOp::kEqual;
  }
  return RelOp::kEqual;
}

std::string div_lemma(RelOp op) {
  switch (op) {
    case RelOp::kGreater: return "div_gt0_iff";
    case RelOp::kGreaterEqual: return "div_ge0_iff";
    case RelOp::kLess: return "div_lt0_iff";
    case RelOp::kLessEqual: return "div_le0_iff";
    case RelOp::kEqual: return "div_eq0_iff";
    case RelOp::kNotEqual: return "div_neq0_iff";
  }
  return {};
}

/// The last step of a sign proof for `x rel 0` (or False).
std::string finish(std::optional<RelOp> rel) {
  if (rel && *rel == RelOp::kNotEqual) return "intro; infoflow_arith.";
  return "infoflow_arith.";
}

/// One item of a region or a goal: `expr op 0`, with what the proof needs to clear its
/// denominator.
struct Item {
  ex expr;
  RelOp op;
  std::string origin;
};

/// Everything a fact's Coq text is made from.
struct FactText {
  std::string definitions;  ///< region, exponents, gap
  std::string lemma;        ///< statement + proof
  std::string refutation;   ///< statement's negation + proof (empty: none known)
  std::string claim;        ///< asymptotic claim + proof (empty: none)
};

class Writer {
 public:
  Writer(const JournalEntry& entry, std::size_t index) : entry_(entry), index_(index) {}

  /// Throws NotPrintable when the question cannot be stated.
  FactText write(Fact& fact, const std::optional<symbolic::Witness>& counterexample) {
    tag_ = std::to_string(index_);
    collect();
    FactText out;
    out.definitions = definitions();
    const bool universal = entry_.result.status == Satisfiability::kUnsatisfiable;
    if (universal) {
      out.lemma = universal_lemma(fact);
      if (counterexample) out.refutation = universal_refutation(*counterexample);
    } else {
      out.lemma = witness_lemma(fact, *entry_.result.witness);
      out.refutation = witness_refutation(*entry_.result.witness);
    }
    out.claim = claim(fact, universal);
    return out;
  }

 private:
  void collect() {
    std::vector<ex> parts;
    for (const symbolic::Constraint& c : entry_.domain) parts.push_back(c.expr);
    if (entry_.has_relation) parts.push_back(entry_.expr);
    const symbolic::JournalContext& ctx = entry_.context;
    gap_form_ = entry_.has_relation && ctx.first && ctx.second &&
                (*ctx.first - *ctx.second - entry_.expr).normal().is_zero();
    if (gap_form_) {
      parts.push_back(*ctx.first);
      parts.push_back(*ctx.second);
      if (ctx.component == "log" && ctx.eps_exponent) parts.push_back(*ctx.eps_exponent);
      if (ctx.component == "T" && ctx.T_offset) parts.push_back(*ctx.T_offset);
    }
    symbols_ = detail::symbols_in(parts);
    for (const SymbolInfo* s : symbols_) {
      const std::string id = detail::identifier(s->name);
      plain_[s] = id;
      inside_[s] = s->integer ? "(IZR " + id + ")" : id;
    }
    for (const SymbolInfo* s : symbols_) {
      const RelOp op = s->lower_strict ? RelOp::kGreater : RelOp::kGreaterEqual;
      region_.push_back({s->symbol - s->lower, op, "domain of " + s->name});
      if (s->upper) region_.push_back({s->symbol - *s->upper, RelOp::kLess, "domain of " + s->name});
    }
    // The solver assumed the implicit facts (k <= T, ...): the statement holds only with them.
    for (const symbolic::Constraint& c : detail::implicit_constraints(symbols_))
      region_.push_back({c.expr, c.op, c.origin});
    for (const symbolic::Constraint& c : entry_.domain) region_.push_back({c.expr, c.op, c.origin});
  }

  std::string params() const {
    std::string out;
    for (const SymbolInfo* s : symbols_) out += " (" + plain_.at(s) + " : R)";
    return out;
  }
  std::string binders() const {
    std::string out;
    for (const SymbolInfo* s : symbols_) {
      out += " (" + plain_.at(s) + " : " + (s->integer ? "Z" : "R") + ")";
    }
    return out;
  }
  std::string args(const Names& names) const {
    std::string out;
    for (const SymbolInfo* s : symbols_) out += " " + names.at(s);
    return out;
  }
  std::string call(const std::string& name, const Names& names) const {
    return symbols_.empty() ? name : "(" + name + args(names) + ")";
  }

  Names at_point(const symbolic::Witness& w) const {
    // A symbol the question did not involve (only the exponents name it, and the gap does not
    // depend on it) takes a value of its registry domain, raised where an implicit fact needs
    // it (s < D with s = 3 given: D = 4).
    std::map<const SymbolInfo*, GiNaC::numeric> values;
    std::set<const SymbolInfo*> free;
    for (const SymbolInfo* s : symbols_) {
      values[s] = s->lower_strict ? s->lower + 1 : s->lower;
      free.insert(s);
    }
    for (const auto& [info, value] : w.values) {
      if (values.count(info) != 0) {
        values[info] = value;
        free.erase(info);
      }
    }
    const std::vector<symbolic::FactBetween> facts =
        symbolic::SymbolRegistry::standard().implicit_facts_among(symbols_);
    for (std::size_t round = 0; round < facts.size(); ++round) {  // chains settle in as many
      for (const symbolic::FactBetween& f : facts) {
        if (free.count(f.larger) == 0) continue;  // a witness's own value stays
        const GiNaC::numeric least = values[f.smaller] - f.fact->offset;
        if (values[f.larger] < least) values[f.larger] = least;
      }
    }
    Names names;
    for (const auto& [s, value] : values) names[s] = detail::coq_number(value);
    return names;
  }

  std::string item_text(const Item& item, const Names& names) const {
    const detail::CoqText whole = detail::coq_term(item.expr, names);
    const ex e = item.expr.expand();
    if (whole.divides_by_symbol || !GiNaC::is_a<GiNaC::add>(e)) {
      return whole.text + " " + detail::coq_relation(item.op) + " 0";
    }
    // "T >= 1" rather than "(- 1) + T >= 0": terms with a negative coefficient move right.
    ex left = 0;
    ex right = 0;
    for (std::size_t i = 0; i < e.nops(); ++i) {
      const ex t = e.op(i);
      const ex c = GiNaC::is_a<GiNaC::mul>(t) ? t.op(t.nops() - 1) : t;
      const bool negative = GiNaC::is_a<GiNaC::numeric>(c) && GiNaC::ex_to<GiNaC::numeric>(c).is_negative();
      if (negative) {
        right -= t;
      } else {
        left += t;
      }
    }
    return detail::coq_term(left, names).text + " " + detail::coq_relation(item.op) + " " +
           detail::coq_term(right, names).text;
  }

  std::string definitions() {
    std::string out;
    std::string body;
    for (const Item& item : region_) {
      body += fmt::format("{}{}  (* {} *)", body.empty() ? "" : " /\\\n  ", item_text(item, plain_),
                          item.origin.empty() ? "hypothesis" : item.origin);
    }
    out += fmt::format("Definition region_{}{} : Prop :=\n  {}.\n", tag_, params(),
                       body.empty() ? "True" : body);
    if (!entry_.has_relation) return out;
    if (gap_form_) {
      const symbolic::JournalContext& ctx = entry_.context;
      out += fmt::format("Definition first_{}{} : R := {}.\n", tag_, params(),
                         detail::coq_term(*ctx.first, plain_).text);
      out += fmt::format("Definition second_{}{} : R := {}.\n", tag_, params(),
                         detail::coq_term(*ctx.second, plain_).text);
      if (ctx.component == "log" && ctx.eps_exponent) {
        out += fmt::format("Definition epsexp_{}{} : R := {}.\n", tag_, params(),
                           detail::coq_term(*ctx.eps_exponent, plain_).text);
      }
      if (ctx.component == "T" && ctx.T_offset) {
        out += fmt::format("Definition offset_{}{} : R := {}.\n", tag_, params(),
                           detail::coq_term(*ctx.T_offset, plain_).text);
      }
      out += fmt::format("Definition gap_{}{} : R := first_{}{} - second_{}{}.\n", tag_, params(),
                         tag_, args(plain_), tag_, args(plain_));
    } else {
      out += fmt::format("Definition gap_{}{} : R := {}.\n", tag_, params(),
                         detail::coq_term(entry_.expr, plain_).text);
    }
    return out;
  }

  std::string unfolds() const {
    std::string out = "region_" + tag_;
    if (entry_.has_relation) out += ", gap_" + tag_;
    if (gap_form_) out += ", first_" + tag_ + ", second_" + tag_;
    return out;
  }

  /// The route through Z for a fact whose parameters are all integers and whose region and
  /// gap are polynomials with integer coefficients: the reals' tactics cannot see that T > 2
  /// means T >= 3, lia and nia can. Each hypothesis and the goal cross by the IZR lemmas.
  /// Empty when the fact is not of that kind.
  std::string integral_route(RelOp rel) const {
    if (rel == RelOp::kNotEqual || symbols_.empty()) return {};
    for (const SymbolInfo* s : symbols_) {
      if (!s->integer) return {};
    }
    // A polynomial in the registry's symbols with integer coefficients (GiNaC keeps a
    // product's numeric coefficient as its last operand).
    const auto integral = [](const ex& e) {
      const ex p = e.expand();
      GiNaC::lst vars;
      for (const SymbolInfo* s : symbolic::SymbolRegistry::standard().all()) {
        if (p.has(s->symbol)) vars.append(s->symbol);
      }
      if (!p.is_polynomial(vars)) return false;
      const auto integer_coefficient = [](const ex& term) {
        const ex c = GiNaC::is_a<GiNaC::mul>(term) ? term.op(term.nops() - 1) : term;
        return !GiNaC::is_a<GiNaC::numeric>(c) || GiNaC::ex_to<GiNaC::numeric>(c).is_integer();
      };
      if (!GiNaC::is_a<GiNaC::add>(p)) return integer_coefficient(p);
      for (std::size_t i = 0; i < p.nops(); ++i) {
        if (!integer_coefficient(p.op(i))) return false;
      }
      return true;
    };
    const ex gap = gap_form_ ? *entry_.context.first - *entry_.context.second : entry_.expr;
    if (!integral(gap)) return {};
    Names z;
    for (const SymbolInfo* s : symbols_) z[s] = plain_.at(s);
    const std::string push = "rewrite ?plus_IZR, ?minus_IZR, ?mult_IZR, ?opp_IZR";
    const auto to_z = [](RelOp op) -> std::string {
      switch (op) {
        case RelOp::kGreater: return "apply Z.lt_gt, lt_IZR";
        case RelOp::kGreaterEqual: return "apply Z.le_ge, le_IZR";
        case RelOp::kLess: return "apply lt_IZR";
        case RelOp::kLessEqual: return "apply le_IZR";
        case RelOp::kEqual: return "apply eq_IZR";
        case RelOp::kNotEqual: return {};
      }
      return {};
    };
    std::string out = "(";
    for (std::size_t i = 0; i < region_.size(); ++i) {
      const Item& item = region_[i];
      if (item.op == RelOp::kNotEqual || !integral(item.expr)) return {};
      out += fmt::format("assert (Z{} : ({} {} 0)%Z) by ({}; {}; lra);\n     ", i + 1,
                         detail::coq_term(item.expr, z).text, detail::coq_relation(item.op),
                         to_z(item.op), push);
    }
    const std::string g = "(" + detail::coq_term(gap, z).text + ")%Z";
    std::string back;
    switch (rel) {
      case RelOp::kGreater: back = "IZR 0 < IZR " + g + ") by (apply IZR_lt; nia"; break;
      case RelOp::kGreaterEqual: back = "IZR 0 <= IZR " + g + ") by (apply IZR_le; nia"; break;
      case RelOp::kLess: back = "IZR " + g + " < IZR 0) by (apply IZR_lt; nia"; break;
      case RelOp::kLessEqual: back = "IZR " + g + " <= IZR 0) by (apply IZR_le; nia"; break;
      case RelOp::kEqual: back = "IZR " + g + " = IZR 0) by (f_equal; nia"; break;
      case RelOp::kNotEqual: return {};
    }
    return out + "assert (Zgoal : " + back + ");\n     " + push + " in Zgoal; nra)";
  }

  std::string intro_pattern() const {
    if (region_.empty()) return "_";
    std::string out = "H" + std::to_string(region_.size());
    for (std::size_t i = region_.size() - 1; i-- > 0;) out = "[H" + std::to_string(i + 1) + " " + out + "]";
    return out;
  }

  /// Rewrites `term op 0` (in hypothesis `where`, or the goal) into its numerator's sign,
  /// with the denominator's positivity as the hint. Empty when nothing to do.
  std::string clear_denominator(const ex& e, const std::string& term, RelOp op,
                                const std::string& where, std::size_t n) const {
    const ex normal = e.normal();
    const ex num = normal.numer().expand();
    const ex den = normal.denom().expand();
    const CoqText printed = detail::coq_term(e, inside_);
    if (!printed.divides_by_symbol) return {};
    std::string out;
    const std::string num_text = detail::coq_term(num, inside_).text;
    const std::string den_text = detail::coq_term(den, inside_).text;
    const std::string d = "D" + std::to_string(n);
    const std::string f = "F" + std::to_string(n);
    if (GiNaC::is_a<GiNaC::numeric>(den)) {
      // The quotient's normal form has a constant denominator: rewrite to it.
      out += fmt::format("  assert ({} : {} = {}) by (field; infoflow_nonzero).\n", f, term,
                         detail::coq_term(normal, inside_).text);
      out += fmt::format("  rewrite {}{}.\n", f, where.empty() ? "" : " in " + where);
      return out;
    }
    out += monomial_hints(den);
    out += fmt::format("  assert ({} : 0 < {}) by infoflow_arith.\n", d, den_text);
    out += fmt::format("  assert ({} : {} = {} / {}) by (field; infoflow_nonzero).\n", f, term,
                       num_text, den_text);
    out += fmt::format("  rewrite {}, ({} _ _ {}){}.\n", f, div_lemma(op), d,
                       where.empty() ? "" : " in " + where);
    return out;
  }

  /// Hint: each monomial with a positive coefficient is positive (what nra misses beyond
  /// degree 2).
  std::string monomial_hints(const ex& polynomial) const {
    std::string out;
    const ex p = polynomial.expand();
    if (!GiNaC::is_a<GiNaC::add>(p)) return out;
    for (std::size_t i = 0; i < p.nops(); ++i) {
      const ex t = p.op(i);
      if (!GiNaC::is_a<GiNaC::mul>(t)) continue;
      const ex c = t.op(t.nops() - 1);
      if (GiNaC::is_a<GiNaC::numeric>(c) && GiNaC::ex_to<GiNaC::numeric>(c).is_negative()) continue;
      out += fmt::format("  try assert (0 < {}) by (repeat apply Rmult_lt_0_compat; lra).\n",
                         detail::coq_term(t, inside_).text);
    }
    return out;
  }

  std::string region_hints() const {
    std::string out;
    for (std::size_t i = 0; i < region_.size(); ++i) {
      const Item& item = region_[i];
      out += clear_denominator(item.expr, detail::coq_term(item.expr, inside_).text, item.op,
                               "H" + std::to_string(i + 1), i + 1);
    }
    return out;
  }

  std::string universal_statement() const {
    const std::string region = call("region_" + tag_, inside_);
    const std::string quantifier = symbols_.empty() ? "" : "forall" + binders() + ", ";
    if (!entry_.has_relation) return fmt::format("{}~ {}", quantifier, region);
    return fmt::format("{}{} -> {} {} 0", quantifier, region, call("gap_" + tag_, inside_),
                       detail::coq_relation(negate(entry_.op)));
  }

  std::string universal_lemma(Fact& fact) {
    fact.lemma = "fact_" + tag_;
    const RelOp rel = negate(entry_.op);
    std::string proof = fmt::format("  intros{} {}.\n", args(plain_), intro_pattern());
    proof += "  unfold " + unfolds() + " in *.\n";
    proof += region_hints();
    if (entry_.has_relation) {
      const std::string goal = gap_form_
          ? detail::coq_term(*entry_.context.first, inside_).text + " - " +
                detail::coq_term(*entry_.context.second, inside_).text
          : detail::coq_term(entry_.expr, inside_).text;
      // The hint: the gap over its denominator.
      if (gap_form_ || detail::coq_term(entry_.expr, inside_).divides_by_symbol) {
        const ex gap = gap_form_ ? *entry_.context.first - *entry_.context.second : entry_.expr;
        std::string cleared = clear_denominator(gap, goal, rel, "", 0);
        proof += cleared;
      }
      proof += monomial_hints(entry_.expr.normal().numer());
      const std::string route = integral_route(rel);
      proof += route.empty() ? "  " + finish(rel) + "\n"
                             : "  first [ infoflow_arith\n        | " + route + " ].\n";
      fact.statement = fmt::format("for every point of the region, {} {} 0",
                                   symbolic::canonical(entry_.expr), detail::coq_relation(rel));
    } else {
      proof += "  " + finish(std::nullopt) + "\n";
      fact.statement = "the region is empty";
    }
    return fmt::format("Lemma {} : {}.\nProof.\n{}Qed.\n", fact.lemma, universal_statement(), proof);
  }

  std::string witness_statement(const symbolic::Witness& w) const {
    const Names at = at_point(w);
    const std::string region = call("region_" + tag_, at);
    if (!entry_.has_relation) return region;
    return fmt::format("{} /\\ {} {} 0", region, call("gap_" + tag_, at),
                       detail::coq_relation(entry_.op));
  }

  std::string witness_lemma(Fact& fact, const symbolic::Witness& w) {
    fact.lemma = "fact_" + tag_;
    fact.statement = "at " + w.to_text() + ": the region holds" +
                     (entry_.has_relation ? " and " + symbolic::canonical(entry_.expr) + " " +
                                                detail::coq_relation(entry_.op) + " 0"
                                          : "");
    return fmt::format("Lemma {} : {}.\nProof.\n  unfold {}.\n  infoflow_compute.\nQed.\n",
                       fact.lemma, witness_statement(w), unfolds());
  }

  std::string witness_refutation(const symbolic::Witness& w) const {
    return fmt::format(
        "Lemma fact_{}_false : ~ ({}).\nProof.\n  unfold {}.\n  intros Hc. decompose [and] Hc.\n"
        "  first [ lra | nra ].\nQed.\n",
        tag_, witness_statement(w), unfolds());
  }

  std::string universal_refutation(const symbolic::Witness& w) const {
    const Names at = at_point(w);
    std::string zargs;
    for (const SymbolInfo* s : symbols_) zargs += " " + (s->integer ? at.at(s) + "%Z" : at.at(s));
    return fmt::format(
        "Lemma fact_{0}_false : ~ ({1}).\nProof.\n  intros Hall.\n"
        "  assert (Hr : {2}) by (unfold region_{0}; infoflow_compute).\n"
        "  specialize (Hall{3} Hr).\n  unfold {4} in *.\n  {5}\nQed.\n",
        tag_, universal_statement(), call("region_" + tag_, at), zargs, unfolds(),
        entry_.has_relation ? "first [ lra | (apply Hall; lra) ]." : "exact (Hall Hr).");
  }

  std::string claim(Fact& fact, bool universal) {
    if (!gap_form_) return {};
    const symbolic::JournalContext& ctx = entry_.context;
    const RelOp rel = universal ? negate(entry_.op) : entry_.op;
    const Names names = universal ? inside_ : at_point(*entry_.result.witness);
    const std::string a = call("first_" + tag_, names);
    const std::string b = call("second_" + tag_, names);
    std::string statement;
    std::string apply;
    std::string words;
    if (ctx.component == "eps") {
      const auto rate = [](const std::string& x) { return "(fun eps => Rpower eps (- " + x + "))"; };
      switch (rel) {
        case RelOp::kGreater:
          statement = "is_domin (at_right 0) " + rate(a) + " " + rate(b);
          apply = "apply eps_gap_little_o";
          words = "eps^(-second) = o(eps^(-first)) as eps -> 0+";
          break;
        case RelOp::kLess:
          statement = "is_domin (at_right 0) " + rate(b) + " " + rate(a);
          apply = "apply eps_gap_little_o";
          words = "eps^(-first) = o(eps^(-second)) as eps -> 0+";
          break;
        case RelOp::kLessEqual:
          statement = "is_bigO (at_right 0) " + rate(b) + " " + rate(a);
          apply = "apply eps_gap_big_o";
          words = "eps^(-first) = O(eps^(-second)) as eps -> 0+";
          break;
        case RelOp::kGreaterEqual:
          statement = "is_bigO (at_right 0) " + rate(a) + " " + rate(b);
          apply = "apply eps_gap_big_o";
          words = "eps^(-second) = O(eps^(-first)) as eps -> 0+";
          break;
        case RelOp::kEqual:
          statement = "is_bigO (at_right 0) " + rate(b) + " " + rate(a) + " /\\ is_bigO (at_right 0) " +
                      rate(a) + " " + rate(b);
          apply = "apply eps_same_theta";
          words = "eps^(-first) = Theta(eps^(-second)) as eps -> 0+";
          break;
        case RelOp::kNotEqual: return {};
      }
    } else if (ctx.component == "log" && ctx.eps_exponent) {
      const std::string base = call("epsexp_" + tag_, names);
      const auto rate = [&](const std::string& x) {
        return "(fun eps => Rpower eps (- " + base + ") * Rpower (ln (/ eps)) " + x + ")";
      };
      if (rel == RelOp::kGreater) {
        statement = "is_domin (at_right 0) " + rate(a) + " " + rate(b);
        words = "same power of 1/eps: log(1/eps)^second = o(log(1/eps)^first)";
      } else if (rel == RelOp::kLess) {
        statement = "is_domin (at_right 0) " + rate(b) + " " + rate(a);
        words = "same power of 1/eps: log(1/eps)^first = o(log(1/eps)^second)";
      } else {
        return {};
      }
      apply = "apply log_tie_break";
    } else if (ctx.component == "T" && ctx.T_offset &&
               (rel == RelOp::kGreater || rel == RelOp::kLess)) {
      // The gap is (first - second) * T + offset, first - second its slope: the eps factor of
      // the ratio of the rates (or of its inverse) tends to infinity with T, for each eps.
      const std::string offset = call("offset_" + tag_, names);
      const std::string exponent = rel == RelOp::kGreater
                                       ? "((" + a + " - " + b + ") * t_T + " + offset + ")"
                                       : "((" + b + " - " + a + ") * t_T + - " + offset + ")";
      statement = "forall eps_T, 0 < eps_T < 1 -> is_lim (fun t_T => Rpower eps_T (- " + exponent +
                  ")) p_infty p_infty";
      apply = "intros eps_T He; apply T_growth";
      words = rel == RelOp::kGreater
                  ? "for each 0 < eps < 1, the eps factor of first/second tends to infinity as T -> infinity"
                  : "for each 0 < eps < 1, the eps factor of second/first tends to infinity as T -> infinity";
    } else {
      return {};
    }
    fact.claim = "claim_" + tag_;
    fact.statement += "; hence " + words;
    if (universal) {
      return fmt::format(
          "Theorem {} : {}{} -> {}.\nProof.\n  intros{} H.\n  pose proof ({}{} H) as G.\n"
          "  unfold gap_{} in G.\n  {}; lra.\nQed.\n",
          fact.claim, symbols_.empty() ? "" : "forall" + binders() + ", ",
          call("region_" + tag_, inside_), statement, args(plain_),
          fact.lemma, args(plain_), tag_, apply);
    }
    return fmt::format(
        "Theorem {} : {}.\nProof.\n  destruct {} as [_ G].\n  unfold gap_{} in G.\n  {}; lra.\nQed.\n",
        fact.claim, statement, fact.lemma, tag_, apply);
  }

  const JournalEntry& entry_;
  std::size_t index_;
  std::string tag_;
  bool gap_form_ = false;
  std::vector<const SymbolInfo*> symbols_;
  Names plain_;   // in definitions: every parameter a real
  Names inside_;  // in lemmas: integer parameters seen through IZR
  std::vector<Item> region_;
};

/// A fact's blocks in a file, and what the last coqc run made of them.
struct Block {
  std::size_t fact = 0;  // index into Summary::facts
  FactText text;
  bool proof_failed = false;
  bool refutation_failed = false;
  bool claim_failed = false;
  bool statement_failed = false;
};

struct Unit {
  std::string file;
  std::string title;
  std::vector<Block> blocks;
};

constexpr const char* kHeader =
    "(* Written by infoflow: {} *)\n"
    "(* Each fact is one question the sign oracle decided; each claim the asymptotic statement\n"
    "   it supports, reached through the bridge library (Infoflow.Bridge). A proof that Coq's\n"
    "   tactics did not find is marked and Admitted: the tool's answer stands unconfirmed. *)\n"
    "Set Warnings \"-ambiguous-paths\".\n"
    "From Coq Require Import Reals Lra Lia Psatz.\n"
    "From Coquelicot Require Import Coquelicot.\n"
    "From Infoflow Require Import Bridge.\n"
    "Open Scope R_scope.\n\n";

/// The file's text; `lines` receives, per block, the line ranges [first, last] of its parts.
struct Lines {
  std::size_t def_begin = 0, def_end = 0, proof_begin = 0, proof_end = 0, ref_begin = 0,
              ref_end = 0, claim_begin = 0, claim_end = 0;
};

std::size_t count_lines(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

std::string render(const Unit& unit, std::vector<Lines>& lines) {
  std::string out = fmt::format(fmt::runtime(kHeader), unit.title);
  lines.assign(unit.blocks.size(), Lines{});
  const auto part = [&](const std::string& text, std::size_t& begin, std::size_t& end) {
    begin = count_lines(out) + 1;
    out += text;
    end = count_lines(out);
  };
  for (std::size_t i = 0; i < unit.blocks.size(); ++i) {
    const Block& b = unit.blocks[i];
    if (b.statement_failed) {
      out += fmt::format("(* fact {}: Coq did not accept the statement; left out *)\n\n", b.fact);
      continue;
    }
    out += fmt::format("(* ---- fact {} ---- *)\n", b.fact);
    part(b.text.definitions, lines[i].def_begin, lines[i].def_end);
    std::string lemma = b.text.lemma;
    if (b.proof_failed) {
      const auto at = lemma.find("Proof.\n");
      lemma = lemma.substr(0, at) +
              "(* Coq's tactics failed on this fact: the tool's answer stands unconfirmed. *)\n"
              "Proof.\nAdmitted.\n";
    }
    part(lemma, lines[i].proof_begin, lines[i].proof_end);
    if (b.proof_failed && !b.refutation_failed && !b.text.refutation.empty()) {
      out += "(* The statement is FALSE: a defect of the tool. *)\n";
      part(b.text.refutation, lines[i].ref_begin, lines[i].ref_end);
    }
    if (!b.claim_failed && !b.text.claim.empty()) {
      part(b.text.claim, lines[i].claim_begin, lines[i].claim_end);
    }
    out += "\n";
  }
  return out;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

int run(const std::string& command) {
  const int status = std::system(command.c_str());
  if (status == -1) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Runs coqc on the unit until it compiles, marking what failed. Returns the last error text
/// per block (for the report).
void check_unit(Unit& unit, const std::filesystem::path& dir, const std::string& coqc,
                std::vector<Fact>& facts, std::mutex& facts_mutex) {
  const std::filesystem::path log = dir / (unit.file + ".log");
  const std::regex where(R"(File "[^"]*", line ([0-9]+), characters)");
  for (std::size_t attempt = 0; attempt < 4 * unit.blocks.size() + 2; ++attempt) {
    std::vector<Lines> lines;
    write_file_atomically(dir / unit.file, render(unit, lines));
    const int rc = run("cd " + shell_quote(dir.string()) + " && " + coqc + " -Q . Infoflow " +
                       shell_quote(unit.file) + " > " + shell_quote(log.string()) + " 2>&1");
    if (rc == 0) break;
    const std::string text = read_text(log);
    std::smatch m;
    // The first error (warnings come with locations too).
    const auto error_at = text.find("Error:");
    std::size_t line = 0;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), where); it != std::sregex_iterator(); ++it) {
      if (static_cast<std::size_t>(it->position()) > error_at) break;
      const std::string digits = (*it)[1];
      if (std::from_chars(digits.data(), digits.data() + digits.size(), line).ec != std::errc())
        line = 0;  // a number past any unit: in no block
    }
    bool marked = false;
    for (std::size_t i = 0; i < unit.blocks.size() && !marked; ++i) {
      Block& b = unit.blocks[i];
      const Lines& l = lines[i];
      const std::string message = text.substr(error_at == std::string::npos ? 0 : error_at, 300);
      const auto note = [&](const std::string& what) {
        std::lock_guard<std::mutex> lock(facts_mutex);
        Fact& f = facts[b.fact];
        f.detail += (f.detail.empty() ? "" : "; ") + what + ": " + message.substr(0, message.find('\n', 8));
      };
      if (line >= l.def_begin && line <= l.def_end) {
        b.statement_failed = true;
        note("statement not accepted");
        marked = true;
      } else if (line >= l.proof_begin && line <= l.proof_end && !b.proof_failed) {
        b.proof_failed = true;
        note("Coq's tactics failed");
        marked = true;
      } else if (l.ref_begin != 0 && line >= l.ref_begin && line <= l.ref_end) {
        b.refutation_failed = true;
        marked = true;
      } else if (l.claim_begin != 0 && line >= l.claim_begin && line <= l.claim_end) {
        b.claim_failed = true;
        note("the claim's proof failed");
        marked = true;
      }
    }
    if (!marked) {  // outside any block: the file as a whole is rejected
      for (Block& b : unit.blocks) b.statement_failed = true;
      std::lock_guard<std::mutex> lock(facts_mutex);
      for (Block& b : unit.blocks) facts[b.fact].detail = "coqc rejected the file: " + text.substr(0, 300);
      std::vector<Lines> ignored;
      write_file_atomically(dir / unit.file, render(unit, ignored));
      break;
    }
  }
  std::lock_guard<std::mutex> lock(facts_mutex);
  for (const Block& b : unit.blocks) {
    Fact& f = facts[b.fact];
    if (b.statement_failed) {
      f.status = ProofStatus::kTacticsFailed;
    } else if (!b.proof_failed) {
      f.status = ProofStatus::kReproved;
      f.claim_proved = !b.text.claim.empty() && !b.claim_failed;
    } else if (!b.text.refutation.empty() && !b.refutation_failed) {
      f.status = ProofStatus::kFalse;
    } else {
      f.status = ProofStatus::kTacticsFailed;
    }
  }
}

std::string z3_text(const JournalEntry& e) {
  return e.result.status == Satisfiability::kSatisfiable     ? "sat"
         : e.result.status == Satisfiability::kUnsatisfiable ? "unsat"
                                                             : "unknown";
}

}  // namespace

std::string Options::invalid() const {
  if (directory.empty()) return "no directory for the certificates";
  if (jobs == 0) return "jobs must be at least 1";
  if (cvc5_timeout_ms == 0) return "the cvc5 timeout must be positive";
  return {};
}

std::string to_text(ProofStatus status) {
  switch (status) {
    case ProofStatus::kReproved: return "re-proved";
    case ProofStatus::kTacticsFailed: return "unconfirmed (Coq's tactics failed)";
    case ProofStatus::kFalse: return "FALSE (tool defect)";
    case ProofStatus::kNotCertifiable: return "not certifiable";
    case ProofStatus::kNotChecked: return "written, not checked";
  }
  return {};
}

std::string to_text(CrossCheck check) {
  switch (check) {
    case CrossCheck::kAgree: return "agree";
    case CrossCheck::kDisagree: return "DISAGREE";
    case CrossCheck::kCvc5Unknown: return "cvc5 unknown";
    case CrossCheck::kNotAsked: return "not asked";
  }
  return {};
}

std::size_t Summary::count(ProofStatus status) const {
  return static_cast<std::size_t>(
      std::count_if(facts.begin(), facts.end(), [&](const Fact& f) { return f.status == status; }));
}

std::size_t Summary::count(CrossCheck check) const {
  return static_cast<std::size_t>(
      std::count_if(facts.begin(), facts.end(), [&](const Fact& f) { return f.cross == check; }));
}

std::size_t Summary::decided() const { return facts.size() - count(ProofStatus::kNotCertifiable); }

std::string Summary::brief() const {
  std::size_t claims = 0;
  std::size_t claims_proved = 0;
  for (const Fact& f : facts) {
    claims += f.claim.empty() ? 0 : 1;
    claims_proved += f.claim_proved ? 1 : 0;
  }
  std::string out = fmt::format("{} decided facts in {} files (written in {:.2f} s)", decided(),
                                files, write_seconds);
  if (coq_ran) {
    out += fmt::format("; Coq: {} re-proved, {} unconfirmed (tactics failed), {} false; {} of {} "
                       "asymptotic claims reached, in {:.1f} s",
                       count(ProofStatus::kReproved), count(ProofStatus::kTacticsFailed),
                       count(ProofStatus::kFalse), claims_proved, claims, coq_seconds);
  } else {
    out += "; Coq not run" + (coq_absent.empty() ? std::string() : ": " + coq_absent);
  }
  if (cvc5_ran) {
    out += fmt::format("; cvc5 agrees with Z3 on {}, disagrees on {}, undecided on {}, in {:.1f} s",
                       count(CrossCheck::kAgree), count(CrossCheck::kDisagree),
                       count(CrossCheck::kCvc5Unknown), cvc5_seconds);
  }
  const std::size_t skipped = count(ProofStatus::kNotCertifiable);
  if (skipped > 0) out += fmt::format("; {} questions not certifiable (undecided or no exact witness)", skipped);
  return out;
}

std::string Summary::problems() const {
  std::string out;
  for (const Fact& f : facts) {
    const bool bad = f.status == ProofStatus::kTacticsFailed || f.status == ProofStatus::kFalse ||
                     f.cross == CrossCheck::kDisagree;
    if (!bad) continue;
    out += fmt::format("  fact {} ({}; {}:{}): {}; Z3 {}, cvc5 {}: {}{}\n", f.index, f.topic, f.file,
                       f.lemma, to_text(f.status), f.z3, f.cvc5, f.statement,
                       f.detail.empty() ? "" : " [" + f.detail + "]");
  }
  return out;
}

const std::string& bridge_library() {
  static const std::string text = detail::kBridgeSource;
  return text;
}

std::string coq_unavailable(const std::string& coqc) {
  const std::filesystem::path probe =
      std::filesystem::temp_directory_path() / fmt::format("infoflow-coq-probe-{}", ::getpid());
  std::filesystem::create_directories(probe);
  write_file_atomically(probe / "Probe.v", "From Coquelicot Require Import Coquelicot.\n");
  const int rc = run("cd " + shell_quote(probe.string()) + " && " + coqc +
                     " Probe.v > /dev/null 2>&1");
  std::error_code ignored;
  std::filesystem::remove_all(probe, ignored);
  if (rc == 0) return {};
  return "`" + coqc + "` with Coquelicot is not available (apt-get install coq libcoq-coquelicot)";
}

Summary certify(const symbolic::Journal& journal, const Options& options) {
  if (const std::string why = options.invalid(); !why.empty()) throw InputError("certify: " + why);
  const auto start = std::chrono::steady_clock::now();
  const std::filesystem::path dir = options.directory;
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error || !std::filesystem::is_directory(dir)) {
    throw InputError("--certify " + dir.string() + ": cannot create the directory: " + error.message());
  }
  Summary summary;
  summary.facts.resize(journal.entries.size());
  for (std::size_t i = 0; i < journal.entries.size(); ++i) {
    const JournalEntry& e = journal.entries[i];
    Fact& f = summary.facts[i];
    f.index = i;
    f.finding = e.finding;
    f.topic = e.context.topic;
    f.z3 = e.method == "structural" ? "unsat (structural)" : z3_text(e);
    if (e.result.status == Satisfiability::kUnknown) {
      f.status = ProofStatus::kNotCertifiable;
      f.detail = "undecided: " + e.result.reason;
    }
  }

  // cvc5 first: its counterexamples let Coq refute a false universal statement.
  std::vector<std::optional<symbolic::Witness>> counterexamples(journal.entries.size());
  if (options.run_cvc5) {
    const auto t = std::chrono::steady_clock::now();
    const detail::Cvc5Result cvc5 = detail::run_cvc5(journal, options.cvc5, options.cvc5_timeout_ms, dir);
    summary.cvc5_ran = cvc5.ran;
    if (cvc5.ran) {
      for (std::size_t i = 0; i < journal.entries.size(); ++i) {
        Fact& f = summary.facts[i];
        if (f.status == ProofStatus::kNotCertifiable) continue;
        const Satisfiability answer = cvc5.answers[i];
        f.cvc5 = answer == Satisfiability::kSatisfiable     ? "sat"
                 : answer == Satisfiability::kUnsatisfiable ? "unsat"
                                                            : "unknown";
        if (answer == Satisfiability::kUnknown) {
          f.cross = CrossCheck::kCvc5Unknown;
        } else {
          f.cross = answer == journal.entries[i].result.status ? CrossCheck::kAgree : CrossCheck::kDisagree;
        }
        counterexamples[i] = cvc5.models[i];
      }
    } else {
      summary.coq_absent += "";
    }
    summary.cvc5_seconds = since(t);
  }

  // Z3 found a point it could not state exactly (an algebraic number): cvc5's point, if any.
  std::vector<JournalEntry> patched(journal.entries.begin(), journal.entries.end());
  for (std::size_t i = 0; i < patched.size(); ++i) {
    JournalEntry& e = patched[i];
    if (e.result.status != Satisfiability::kSatisfiable || e.result.witness) continue;
    if (counterexamples[i]) {
      e.result.witness = counterexamples[i];
      summary.facts[i].detail = "Z3's point was not exact: cvc5's point is used";
      counterexamples[i].reset();
    } else {
      summary.facts[i].status = ProofStatus::kNotCertifiable;
      summary.facts[i].detail = "satisfiable, but no exact witness (from Z3 or cvc5)";
    }
  }

  // Units: one file per finding, one per other topic.
  std::vector<Unit> units;
  std::map<std::string, std::size_t> unit_of;
  // A file per finding (and per topic without one), unless there are so many that loading
  // Coquelicot (about a second a file) would dominate: then consecutive findings (topics)
  // share a file, at most kMaxFiles of each.
  constexpr long kMaxFiles = 64;
  long findings = 0;
  std::map<std::string, long> topic_index;  // topics of the questions with no finding
  for (const JournalEntry& e : patched) {
    findings = std::max(findings, e.finding + 1);
    if (e.finding < 0) topic_index.emplace(e.context.topic, static_cast<long>(topic_index.size()));
  }
  const auto pack_of = [](long count) { return std::max(1L, (count + kMaxFiles - 1) / kMaxFiles); };
  const long finding_pack = pack_of(findings);
  const long topic_pack = pack_of(static_cast<long>(topic_index.size()));
  for (std::size_t i = 0; i < journal.entries.size(); ++i) {
    Fact& f = summary.facts[i];
    if (f.status == ProofStatus::kNotCertifiable) continue;
    const JournalEntry& e = patched[i];
    const bool found = e.finding >= 0;
    const long pack = found ? finding_pack : topic_pack;
    const long index = found ? e.finding : topic_index.at(e.context.topic);
    const long first = index / pack * pack;
    auto [it, added] = unit_of.emplace(fmt::format("{} {}", found ? "finding" : "topic", first),
                                       units.size());
    if (added) {
      Unit u;
      const long last = std::min(first + pack, found ? findings : static_cast<long>(topic_index.size())) - 1;
      const std::string topic = e.context.topic.empty() ? "" : " (" + e.context.topic + ")";
      if (pack == 1) {
        u.file = fmt::format("{}_{:04}.v", found ? "finding" : "unit", index);
        u.title = (found ? fmt::format("the questions behind finding {}", index + 1)
                         : "questions with no finding") + topic;
      } else {
        // A Coq module name: letters, digits and underscores only.
        u.file = fmt::format("{}_{:04}_{:04}.v", found ? "findings" : "units", first, last);
        u.title = found ? fmt::format("the questions behind findings {} to {}", first + 1, last + 1)
                        : fmt::format("questions with no finding, topics {} to {}", first + 1, last + 1);
      }
      units.push_back(std::move(u));
    }
    Block b;
    b.fact = i;
    try {
      Writer writer(e, i);
      b.text = writer.write(f, counterexamples[i]);
    } catch (const detail::NotPrintable& why) {
      f.status = ProofStatus::kNotCertifiable;
      f.detail = std::string("no Coq statement: ") + why.what();
      continue;
    }
    f.file = units[it->second].file;
    units[it->second].blocks.push_back(std::move(b));
  }
  units.erase(std::remove_if(units.begin(), units.end(), [](const Unit& u) { return u.blocks.empty(); }),
              units.end());
  write_file_atomically(dir / "Bridge.v", bridge_library());
  write_file_atomically(dir / "_CoqProject", "-Q . Infoflow\n");
  for (Unit& u : units) {
    std::vector<Lines> ignored;
    write_file_atomically(dir / u.file, render(u, ignored));
  }
  summary.files = units.size();
  summary.write_seconds = since(start);

  if (options.run_coq) {
    const auto t = std::chrono::steady_clock::now();
    // The bridge library first: it also tells whether coqc and Coquelicot are there.
    const int rc = run("cd " + shell_quote(dir.string()) + " && " + options.coqc +
                       " -Q . Infoflow Bridge.v > Bridge.log 2>&1");
    if (rc != 0) {
      const std::string log = read_text(dir / "Bridge.log");
      if (rc == 127 || log.find("Coquelicot") != std::string::npos) {
        summary.coq_absent = "`" + options.coqc + "` with Coquelicot is not available (apt-get "
                             "install coq libcoq-coquelicot)";
      } else {
        throw Error("certify: the bridge library does not compile (see " + (dir / "Bridge.log").string() + ")");
      }
    }
    if (summary.coq_absent.empty()) {
      std::atomic<std::size_t> next{0};
      std::mutex mutex;
      std::vector<std::thread> workers;
      for (unsigned w = 0; w < std::max(1u, options.jobs); ++w) {
        workers.emplace_back([&] {
          for (std::size_t i = next++; i < units.size(); i = next++) {
            check_unit(units[i], dir, options.coqc, summary.facts, mutex);
          }
        });
      }
      for (std::thread& w : workers) w.join();
      summary.coq_ran = true;
      summary.coq_seconds = since(t);
    }
  }

  nlohmann::json index = nlohmann::json::array();
  for (const Fact& f : summary.facts) {
    index.push_back({{"fact", f.index}, {"finding", f.finding}, {"topic", f.topic},
                     {"statement", f.statement}, {"file", f.file}, {"lemma", f.lemma},
                     {"claim", f.claim}, {"claim_proved", f.claim_proved},
                     {"coq", to_text(f.status)}, {"z3", f.z3}, {"cvc5", f.cvc5},
                     {"cross_check", to_text(f.cross)}, {"detail", f.detail}});
  }
  write_file_atomically(dir / "certificates.json",
                        nlohmann::json{{"summary", summary.brief()}, {"facts", index}}.dump(2) + "\n");
  return summary;
}

void annotate(theorems::CheckReport& report, const Summary& summary) {
  std::vector<std::vector<const Fact*>> by_finding(report.findings.size());
  for (const Fact& f : summary.facts) {
    if (f.finding >= 0 && static_cast<std::size_t>(f.finding) < by_finding.size()) {
      by_finding[static_cast<std::size_t>(f.finding)].push_back(&f);
    }
  }
  for (std::size_t i = 0; i < report.findings.size(); ++i) {
    const std::vector<const Fact*>& facts = by_finding[i];
    if (facts.empty()) continue;
    std::size_t proved = 0;
    std::size_t wrong = 0;
    std::size_t checked = 0;
    for (const Fact* f : facts) {
      proved += f->status == ProofStatus::kReproved ? 1 : 0;
      wrong += f->status == ProofStatus::kFalse ? 1 : 0;
      checked += f->status == ProofStatus::kNotChecked ? 0 : 1;
    }
    const std::string file = facts.front()->file;
    if (wrong > 0) {
      report.findings[i].certificate = fmt::format("FALSE: {} of its facts refuted by Coq ({})", wrong, file);
    } else if (!summary.coq_ran) {
      report.findings[i].certificate = fmt::format("certificate written, not checked ({})", file);
    } else if (proved == facts.size()) {
      report.findings[i].certificate = fmt::format("re-proved by Coq: {} facts ({})", proved, file);
    } else {
      report.findings[i].certificate = fmt::format(
          "partly re-proved by Coq: {} of {} facts, the rest unconfirmed ({})", proved, facts.size(), file);
    }
    (void)checked;
  }
}

}  // namespace infoflow::certify
