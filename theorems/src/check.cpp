#include "infoflow/theorems/check.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <optional>

#include <fmt/format.h>

#include "infoflow/symbolic/canonical.hpp"
#include "infoflow/symbolic/compare.hpp"

namespace infoflow::theorems {
namespace {

using GiNaC::ex;
using symbolic::Domain;
using symbolic::Rate;
using symbolic::RelOp;
using symbolic::Role;
using symbolic::Satisfiability;
using symbolic::SymbolInfo;
using symbolic::SymbolRegistry;

/// A relation of an entry in GiNaC form, for containment tests and suggested restrictions.
struct Requirement {
  ex expr;  // lhs - rhs
  RelOp op;
  std::string text;     // as written
  std::string negated;  // its negation, as one would write it
};

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

/// An entry with its constants renamed apart (c of one theorem is not c of another).
struct Prepared {
  const Entry* entry = nullptr;
  Rate rate;
  Domain domain;
  std::vector<Requirement> requirements;
};

GiNaC::exmap renaming(const std::vector<ex>& parts, const std::string& tag,
                      const std::function<bool(const SymbolInfo&)>& which) {
  GiNaC::exmap map;
  SymbolRegistry& registry = SymbolRegistry::standard();
  for (const ex& part : parts) {
    for (const SymbolInfo* info : symbolic::symbols_of(part)) {
      if (which(*info)) map[info->symbol] = registry.renamed(*info, tag).symbol;
    }
  }
  return map;
}

std::vector<ex> parts_of(const Rate& rate, const Domain& domain) {
  std::vector<ex> parts{rate.to_ex()};
  for (const symbolic::Constraint& c : domain.constraints()) parts.push_back(c.expr);
  return parts;
}

Prepared prepare(const Entry& entry) {
  Prepared p;
  p.entry = &entry;
  const Domain raw = entry.domain();
  const GiNaC::exmap map = renaming(parts_of(entry.rate, raw), entry.id, [](const SymbolInfo& s) {
    return s.role == Role::kConstant;
  });
  p.rate = entry.rate.substituted(map);
  p.domain = raw.substituted(map);
  for (const auto* list : {&entry.setting, &entry.hypotheses}) {
    for (const WrittenRelation& w : *list) {
      const symbolic::Relation& r = w.relation;
      p.requirements.push_back(Requirement{
          symbolic::to_ex_difference(r).subs(map), r.op, symbolic::to_text(r),
          symbolic::to_text(r.lhs) + " " + symbolic::to_text(negate(r.op)) + " " +
              symbolic::to_text(r.rhs)});
    }
  }
  return p;
}

/// Symbols solved for first when an equality fixes them: the generic architecture names give
/// way to the specific ones (h == s keeps s), T0 gives way to T.
int elimination_rank(const SymbolInfo& s) {
  static const std::vector<std::string> order = {"h", "L", "T0", "n", "E", "s", "k", "d", "D"};
  const auto it = std::find(order.begin(), order.end(), s.name.substr(0, s.name.find('@')));
  return it == order.end() ? static_cast<int>(order.size()) : static_cast<int>(it - order.begin());
}

/// Solves the domain's linear equalities (x == expr) and substitutes them everywhere, so that
/// rates print in the remaining symbols and the solver has fewer unknowns.
/// Returns the domain as text, the solved equalities first ("L = 1, h = 1, n >= T*d").
std::string eliminate_equalities(Domain& domain, std::vector<Rate*> rates) {
  std::string solved;
  const auto text = [&] {
    const std::string rest = domain.constraints().empty() ? "" : domain.to_text();
    if (solved.empty()) return rest.empty() ? std::string("no constraint") : rest;
    return rest.empty() ? solved : solved + ", " + rest;
  };
  for (int round = 0; round < 16; ++round) {
    std::optional<std::pair<ex, ex>> pick;
    int best = 1 << 20;
    for (const symbolic::Constraint& c : domain.constraints()) {
      if (c.op != RelOp::kEqual) continue;
      const ex e = c.expr.normal().numer().expand();
      if (e.is_zero()) continue;
      for (const SymbolInfo* info : symbolic::symbols_of(e)) {
        const ex x = info->symbol;
        if (!e.is_polynomial(x) || e.degree(x) != 1) continue;
        const ex coeff = e.coeff(x, 1);
        if (!GiNaC::is_a<GiNaC::numeric>(coeff)) continue;
        const ex solution = (-(e.coeff(x, 0)) / coeff).normal();
        // Integer symbols stay integer only under integer solutions with integer coefficients.
        if (std::abs(GiNaC::ex_to<GiNaC::numeric>(coeff).to_double()) != 1.0 && info->integer) continue;
        const int rank = elimination_rank(*info);
        if (rank < best) {
          best = rank;
          pick = std::make_pair(x, solution);
        }
      }
    }
    if (!pick) return text();
    if (!solved.empty()) solved += ", ";
    solved += symbolic::canonical(pick->first) + " = " + symbolic::canonical(pick->second);
    GiNaC::exmap map;
    map[pick->first] = pick->second;
    domain = domain.substituted(map);
    // The solved symbol keeps its own domain as a constraint on the solution.
    const SymbolInfo& info = SymbolRegistry::standard().info(pick->first);
    const bool plain_symbol = GiNaC::is_a<GiNaC::symbol>(pick->second);
    if (!plain_symbol) domain.require(pick->second - info.lower, info.lower_strict ? RelOp::kGreater : RelOp::kGreaterEqual,
                   "domain of " + info.name);
    for (Rate* r : rates) *r = r->substituted(map);
  }
  return text();
}

std::string rate_text(const Prepared& p) {
  return p.rate.print(landau_of(p.entry->kind));
}

class Checker {
 public:
  Checker(const Catalogue& catalogue, const CheckOptions& options)
      : catalogue_(catalogue), oracle_(options.solver_timeout_ms), journal_(options.journal) {
    oracle_.set_journal(journal_);
  }

  CheckReport run() {
    const auto start = std::chrono::steady_clock::now();
    std::vector<Prepared> prepared;
    for (const Entry& e : catalogue_.entries()) prepared.push_back(prepare(e));
    report_.entries = prepared.size();
    for (const Prepared& p : prepared) unit(p.entry->id + ": vacuity", [&] { vacuity(p); });
    for (std::size_t i = 0; i < prepared.size(); ++i) {
      for (std::size_t j = i + 1; j < prepared.size(); ++j) {
        unit(prepared[i].entry->id + " and " + prepared[j].entry->id,
             [&] { pair(prepared[i], prepared[j]); });
      }
    }
    report_.oracle = oracle_.stats();
    report_.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::move(report_);
  }

 private:
  /// Runs one unit of the check; the questions it records support the finding it adds.
  template <class Work>
  void unit(const std::string& topic, Work work) {
    const std::size_t findings = report_.findings.size();
    const std::size_t entries = journal_ != nullptr ? journal_->entries.size() : 0;
    if (journal_ != nullptr) journal_->context = {topic, {}, {}, {}, {}};
    work();
    if (journal_ == nullptr) return;
    journal_->context = {};
    if (report_.findings.size() == findings) return;
    // A unit adds at most one finding per kind of question: tie each question to the finding
    // whose topic it was asked under (the last one added when the unit added several).
    for (std::size_t i = entries; i < journal_->entries.size(); ++i) {
      symbolic::JournalEntry& e = journal_->entries[i];
      if (e.finding < 0) e.finding = static_cast<long>(report_.findings.size() - 1);
    }
  }
  /// The exponents the next questions compare (first - second), for the certificates.
  void exponents(const std::optional<ex>& first, const std::optional<ex>& second,
                 const std::string& component = "eps") {
    if (journal_ == nullptr) return;
    journal_->context = {journal_->context.topic, first, second, first ? component : "", {}};
  }
  /// Ties the questions recorded since `mark` to the finding just added.
  void supports_last_finding(std::size_t mark) {
    if (journal_ == nullptr) return;
    for (std::size_t i = mark; i < journal_->entries.size(); ++i) {
      journal_->entries[i].finding = static_cast<long>(report_.findings.size() - 1);
    }
  }
  [[nodiscard]] std::size_t mark() const { return journal_ != nullptr ? journal_->entries.size() : 0; }

  symbolic::SatResult sat(const Domain& d) { return oracle_.satisfiable(d); }
  symbolic::SatResult sat(const Domain& d, const ex& e, RelOp op) {
    ++report_.comparisons;
    symbolic::SatResult r = oracle_.satisfiable(d, e, op);
    if (r.status != Satisfiability::kUnknown) ++report_.comparisons_decided;
    return r;
  }

  void undecided(const std::vector<std::string>& ids, const std::string& what, const std::string& why) {
    Finding f;
    f.kind = FindingKind::kUndecided;
    f.severity = Severity::kWarning;
    f.entries = ids;
    f.summary = what + " could not be decided: " + why;
    report_.findings.push_back(std::move(f));
  }

  /// One side of a finding: its witness, or why it has none.
  static void side(Finding& f, const std::string& label, const symbolic::SatResult& r) {
    if (r.witness) {
      f.witnesses.push_back({label, *r.witness});
    } else if (r.status == Satisfiability::kUnsatisfiable) {
      f.missing_witnesses.push_back(label + ": none, no point of the setting");
    } else if (r.status == Satisfiability::kUnknown) {
      f.missing_witnesses.push_back(label + ": not found, the solver gave up (" + r.reason + ")");
    } else {
      f.missing_witnesses.push_back(label + ": exists, but the solver gave no exact point");
    }
  }

  /// The three sides of a gap's sign over `domain` (positive, negative, zero): witnesses, or
  /// why none.
  void sides(Finding& f, const symbolic::SignDecision& d, const Domain& domain,
             const std::array<std::string, 3>& labels) {
    using symbolic::Sign;
    const auto is = [&](std::initializer_list<Sign> signs) {
      return std::find(signs.begin(), signs.end(), d.sign) != signs.end();
    };
    const bool holds[3] = {
        is({Sign::kPositive, Sign::kNonNegative, Sign::kNonZero, Sign::kIndefinite}),
        is({Sign::kNegative, Sign::kNonPositive, Sign::kNonZero, Sign::kIndefinite}),
        is({Sign::kZero, Sign::kNonNegative, Sign::kNonPositive})};
    // Whether the gap is zero somewhere is open for an indefinite sign without a zero point.
    const bool open[3] = {d.sign == Sign::kUnknown, d.sign == Sign::kUnknown,
                          d.sign == Sign::kUnknown || d.sign == Sign::kIndefinite};
    const std::optional<symbolic::Witness>* points[3] = {&d.positive_at, &d.negative_at, &d.zero_at};
    for (int i = 0; i < 3; ++i) {
      std::optional<symbolic::Witness> point = *points[i];
      // A structural sign holds on the whole domain: any of its points is a witness.
      if (!point && holds[i] && d.method == "structural") point = sat(domain).witness;
      if (point) {
        f.witnesses.push_back({labels[i], *point});
      } else if (holds[i]) {
        f.missing_witnesses.push_back(labels[i] + ": exists, but the solver gave no exact point");
      } else if (open[i]) {
        f.missing_witnesses.push_back(labels[i] + ": not found, the solver could not decide "
                                      "whether there is one");
      } else {
        f.missing_witnesses.push_back(labels[i] + ": none, no point of the setting");
      }
    }
  }

  void vacuity(const Prepared& p) {
    Domain domain = p.domain;
    Rate rate = p.rate;
    eliminate_equalities(domain, {&rate});
    const ex a = rate.eps_exponent();
    exponents(a, ex(0));
    // eps^(-a) log(1/eps)^b stays bounded as eps -> 0 where a < 0, or a = 0 and b <= 0: at equal
    // exponents the log power decides (Omega(eps^(2-k) log(1/eps)) says something at k = 2).
    const ex b = rate.log_exponent();
    const bool logs = !b.is_zero();
    Domain at_zero = domain;
    at_zero.require(a, RelOp::kEqual);
    symbolic::SatResult weak = sat(domain, a, logs ? RelOp::kLess : RelOp::kLessEqual);
    if (logs && weak.status == Satisfiability::kUnsatisfiable) {
      exponents(b, ex(0), "log");
      weak = sat(at_zero, b, RelOp::kLessEqual);
      exponents(a, ex(0));
    }
    if (weak.status == Satisfiability::kUnknown) {
      undecided({p.entry->id}, "the sign of the exponent of " + rate_text(p), weak.reason);
      return;
    }
    if (weak.status == Satisfiability::kUnsatisfiable) return;
    symbolic::SatResult strong = sat(domain, a, RelOp::kGreater);
    if (logs && strong.status == Satisfiability::kUnsatisfiable) {
      strong = sat(at_zero, b, RelOp::kGreater);
    }
    const bool everywhere = strong.status == Satisfiability::kUnsatisfiable;
    Finding f;
    const bool lower = p.entry->kind == Kind::kLower;
    f.kind = lower ? FindingKind::kVacuous : FindingKind::kDegenerate;
    f.severity = Severity::kWarning;
    f.entries = {p.entry->id};
    if (!logs || b.info(GiNaC::info_flags::negative)) {
      f.condition = symbolic::canonical_relation(a, "<=");
      f.condition_latex = symbolic::canonical_relation(a, "<=", symbolic::Format::kLatex);
    } else if (b.info(GiNaC::info_flags::positive)) {
      f.condition = symbolic::canonical_relation(a, "<");
      f.condition_latex = symbolic::canonical_relation(a, "<", symbolic::Format::kLatex);
    } else {
      f.condition = symbolic::canonical_relation(a, "<") + ", or " +
                    symbolic::canonical_relation(a, "=") + " and " +
                    symbolic::canonical_relation(b, "<=");
      f.condition_latex = symbolic::canonical_relation(a, "<", symbolic::Format::kLatex) +
                          ", \\text{ or } " +
                          symbolic::canonical_relation(a, "=", symbolic::Format::kLatex) +
                          ", " + symbolic::canonical_relation(b, "\\le", symbolic::Format::kLatex);
    }
    f.gap = symbolic::canonical(a);
    const std::string where = everywhere ? "everywhere in its setting" : "where " + f.condition;
    f.summary = lower ? rate_text(p) + " is vacuous " + where +
                            (logs ? ": the rate stays bounded as eps -> 0 (where the exponents "
                                    "of 1/eps are equal, the power of log(1/eps) decides)"
                                  : ": the exponent of 1/eps is <= 0")
                      : rate_text(p) + " is degenerate " + where +
                            ": it claims a parameter count that stays bounded as eps -> 0";
    side(f, logs ? "bounded" : "exponent <= 0", weak);
    side(f, logs ? "grows" : "exponent > 0", strong);
    report_.findings.push_back(std::move(f));
  }

  void pair(const Prepared& a, const Prepared& b) {
    if (a.entry->quantity != b.entry->quantity) return;
    const bool related = catalogue_.task_within(a.entry->task, b.entry->task) ||
                         catalogue_.task_within(b.entry->task, a.entry->task);
    if (!related) return;
    ++report_.pairs_examined;
    for (const auto& [upper, lower] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
      if (upper->entry->bounds_above() && lower->entry->bounds_below() &&
          catalogue_.task_within(lower->entry->task, upper->entry->task)) {
        upper_against_lower(*upper, *lower);
      }
    }
    if (a.entry->bounds_above() && b.entry->bounds_above()) implications(a, b, true);
    if (a.entry->bounds_below() && b.entry->bounds_below()) implications(a, b, false);
  }

  /// Restricting `target` to where one of `other`'s requirements fails removes their overlap.
  std::vector<std::string> restrictions(const Prepared& other, const Prepared& target) {
    std::vector<std::string> out;
    for (const Requirement& r : other.requirements) {
      Domain d = target.domain;
      if (sat(d, r.expr, negate(r.op)).status != Satisfiability::kSatisfiable) continue;
      out.push_back("restrict " + target.entry->id + " to " + r.negated);
    }
    return out;
  }

  /// How much stands behind an entry: a contradiction puts the one with less in doubt first (a
  /// conjecture before a derived bound, that before a formalization, those before the
  /// catalogue author's own result, which is not yet a published theorem).
  static int support(const Entry& e) {
    switch (e.provenance) {
      case Provenance::kConjecture: return 0;
      case Provenance::kDerived: return 1;
      case Provenance::kFormalization: return 2;
      case Provenance::kOwn: return 3;
      case Provenance::kSeed:
      case Provenance::kPredecessor: return 4;
    }
    return 4;
  }

  /// The fixes of a contradiction, the less supported entry's first (named, then restricted);
  /// with equal support the lower bound is restricted, the one whose regime is most often
  /// stated too widely.
  std::vector<std::string> fixes(const Prepared& upper, const Prepared& lower) {
    const int su = support(*upper.entry);
    const int sl = support(*lower.entry);
    if (su == sl) return restrictions(upper, lower);
    const Prepared& suspect = su < sl ? upper : lower;
    const Prepared& trusted = su < sl ? lower : upper;
    std::vector<std::string> out{fmt::format(
        "re-examine {} first: it is a {} bound, {} a {} one", suspect.entry->id,
        to_text(suspect.entry->provenance), trusted.entry->id, to_text(trusted.entry->provenance))};
    for (std::string& r : restrictions(trusted, suspect)) out.push_back(std::move(r));
    if (&suspect == &upper) {
      for (std::string& r : restrictions(upper, lower)) out.push_back(std::move(r));
    }
    return out;
  }

  void upper_against_lower(const Prepared& upper, const Prepared& lower) {
    Domain overlap = upper.domain;
    overlap.extend(lower.domain);
    Rate ru = upper.rate;
    Rate rl = lower.rate;
    const std::string overlap_text = eliminate_equalities(overlap, {&ru, &rl});
    const std::vector<std::string> ids{lower.entry->id, upper.entry->id};
    const symbolic::SatResult shared = sat(overlap);
    if (shared.status == Satisfiability::kUnknown) {
      undecided(ids, "whether the settings overlap", shared.reason);
      return;
    }
    if (shared.status == Satisfiability::kUnsatisfiable) {
      separation(upper, lower);
      return;
    }
    const ex gap = (rl.eps_exponent() - ru.eps_exponent()).normal();
    const ex log_gap = (rl.log_exponent() - ru.log_exponent()).normal();
    // The questions below compare exponents of 1/eps, or of log(1/eps) where those are equal.
    const auto eps_terms = [&] { exponents(rl.eps_exponent(), ru.eps_exponent()); };
    const auto log_terms = [&] {
      exponents(rl.log_exponent(), ru.log_exponent(), "log");
      if (journal_ != nullptr) journal_->context.eps_exponent = rl.eps_exponent();
    };
    const std::size_t start = mark();
    eps_terms();
    symbolic::SatResult exceeds = sat(overlap, gap, RelOp::kGreater);
    const bool exceeds_by_eps = exceeds.status == Satisfiability::kSatisfiable;
    ex decided_gap = gap;
    // Where the eps exponents are equal (everywhere, or on a boundary of the overlap), the
    // lower bound exceeds the upper one if its power of log(1/eps) is higher.
    Domain tie = overlap;
    tie.require(gap, RelOp::kEqual);
    bool exceeds_at_ties = false;
    if (exceeds.status == Satisfiability::kUnsatisfiable && gap.is_zero()) {
      decided_gap = log_gap;
      log_terms();
      exceeds = sat(overlap, log_gap, RelOp::kGreater);
    } else if (exceeds.status != Satisfiability::kUnknown && !gap.is_zero() && !log_gap.is_zero()) {
      log_terms();
      const symbolic::SatResult at_ties = sat(tie, log_gap, RelOp::kGreater);
      if (at_ties.status == Satisfiability::kUnknown) {
        undecided(ids, "whether " + lower.entry->id + " exceeds " + upper.entry->id +
                           " where their exponents of 1/eps are equal", at_ties.reason);
        return;
      }
      exceeds_at_ties = at_ties.status == Satisfiability::kSatisfiable;
      if (exceeds.status == Satisfiability::kUnsatisfiable) exceeds = at_ties;
    }
    exponents(std::nullopt, std::nullopt);
    if (exceeds.status == Satisfiability::kUnknown) {
      undecided(ids, "whether " + lower.entry->id + " exceeds " + upper.entry->id, exceeds.reason);
      return;
    }
    if (exceeds.status == Satisfiability::kUnsatisfiable) return;  // consistent
    Finding f;
    f.kind = FindingKind::kContradiction;
    const bool claims = upper.entry->is_claim() && lower.entry->is_claim();
    f.severity = claims ? Severity::kError : Severity::kWarning;
    f.entries = ids;
    symbolic::Condition where = symbolic::positive_condition(decided_gap, overlap, oracle_);
    if (exceeds_at_ties) {
      // A positive constant log gap: every tie exceeds, and the condition is gap >= 0.
      const bool log_higher = log_gap.info(GiNaC::info_flags::positive);
      const std::string at_ties = symbolic::canonical_relation(gap, "=") + " and " +
                                  symbolic::canonical_relation(log_gap, ">");
      const std::string at_ties_latex =
          symbolic::canonical_relation(gap, "=", symbolic::Format::kLatex) + ", " +
          symbolic::canonical_relation(log_gap, ">", symbolic::Format::kLatex);
      if (log_higher && exceeds_by_eps) {
        where = symbolic::nonnegative_condition(gap, overlap, oracle_);
      } else if (log_higher) {
        where.text = symbolic::canonical_relation(gap, "=");
        where.latex = symbolic::canonical_relation(gap, "=", symbolic::Format::kLatex);
      } else if (exceeds_by_eps) {
        where.text += ", or " + at_ties;
        where.latex += ", \\text{ or } " + at_ties_latex;
      } else {
        where.text = at_ties;
        where.latex = at_ties_latex;
      }
    }
    // Consistent where the gap is negative, or zero with no higher log power.
    symbolic::SatResult fine;
    if (gap.is_zero() || log_gap.is_zero()) {
      if (gap.is_zero()) log_terms(); else eps_terms();
      fine = sat(overlap, decided_gap, RelOp::kLessEqual);
    } else {
      eps_terms();
      fine = sat(overlap, gap, RelOp::kLess);
      if (fine.status != Satisfiability::kSatisfiable) {
        log_terms();
        fine = sat(tie, log_gap, RelOp::kLessEqual);
      }
    }
    f.gap = symbolic::canonical(decided_gap);
    if (fine.status == Satisfiability::kUnsatisfiable) {
      // No point of the overlap is consistent: say "everywhere", and why, rather than a
      // condition that always holds ("1 > 0").
      where.text = gap.is_zero()
                       ? "everywhere (the same exponent of 1/eps, and a power of log(1/eps) "
                         "higher by " + symbolic::canonical(log_gap) + ")"
                       : "everywhere (its exponent of 1/eps is higher by " +
                             symbolic::canonical(gap) +
                             (exceeds_at_ties ? ", or equal and its power of log(1/eps) higher)"
                                              : ")");
      where.latex = "\\text{everywhere}";
    }
    f.condition = where.text;
    f.condition_latex = where.latex;
    f.summary = fmt::format(
        "lower bound {} {} exceeds upper bound {} {} where their settings overlap ({}), {}{}",
        lower.entry->id, rl.print(landau_of(lower.entry->kind)), upper.entry->id,
        ru.print(landau_of(upper.entry->kind)), overlap_text,
        fine.status == Satisfiability::kUnsatisfiable ? "" : "wherever ", where.text);
    // A conjecture against a derivation or a theorem: where the conjecture fails.
    const auto evidence = [](const Entry& e) {
      return e.provenance == Provenance::kDerived || e.is_claim();
    };
    const Entry* conjecture = lower.entry->provenance == Provenance::kConjecture   ? lower.entry
                              : upper.entry->provenance == Provenance::kConjecture ? upper.entry
                                                                                   : nullptr;
    const Entry* other = conjecture == lower.entry ? upper.entry : lower.entry;
    // Only where the evidence's rate does not grow with T does it settle the question for every
    // value of the conjecture's unknown constants (else they disagree about constants only).
    const Rate& evidence_rate = conjecture == lower.entry ? ru : rl;
    const bool settles = !evidence_rate.eps_exponent().has(symbolic::SymbolRegistry::standard().seq_len());
    if (conjecture != nullptr && evidence(*other) && settles) {
      f.kind = FindingKind::kConjectureContradicted;
      f.severity = Severity::kWarning;
      f.summary = fmt::format("conjecture {} is contradicted by {} {} {} ({}): {}", conjecture->id,
                              other->provenance == Provenance::kDerived ? "derivation" : "theorem",
                              other->id, evidence_rate.print(landau_of(other->kind)),
                              other->source, f.summary);
    }
    exponents(std::nullopt, std::nullopt);
    side(f, "lower exceeds upper", exceeds);
    side(f, "consistent", fine);
    f.suggestions = fixes(upper, lower);
    report_.findings.push_back(std::move(f));
    supports_last_finding(start);
  }

  void separation(const Prepared& upper, const Prepared& lower) {
    // Two architectures for the same targets: the upper bound's architecture symbols are its own.
    const GiNaC::exmap apart =
        renaming(parts_of(upper.rate, upper.domain), upper.entry->id,
                 [](const SymbolInfo& s) { return s.role == Role::kArchitecture; });
    Domain both = upper.domain.substituted(apart);
    both.extend(lower.domain);
    Rate ru = upper.rate.substituted(apart);
    Rate rl = lower.rate;
    eliminate_equalities(both, {&ru, &rl});
    if (sat(both).status != Satisfiability::kSatisfiable) return;  // they differ in the problem
    ++report_.comparisons;
    const symbolic::RateComparison c = symbolic::compare_as_eps_to_zero(rl, ru, both, oracle_);
    if (c.growth != symbolic::Growth::kUnknown) ++report_.comparisons_decided;
    if (c.growth != symbolic::Growth::kFaster && c.growth != symbolic::Growth::kDepends) {
      if (c.growth == symbolic::Growth::kUnknown) {
        undecided({lower.entry->id, upper.entry->id}, "a separation", c.note);
      }
      return;
    }
    Finding f;
    f.kind = FindingKind::kSeparation;
    f.severity = Severity::kInfo;
    f.entries = {lower.entry->id, upper.entry->id};
    f.gap = symbolic::canonical(c.gap);
    const bool always = c.growth == symbolic::Growth::kFaster;
    f.condition = always ? "always" : c.faster_when.text;
    f.condition_latex = always ? "\\text{always}" : c.faster_when.latex;
    f.summary = fmt::format(
        "{} ({}) needs more than {} ({}) achieves, {}: lower {} against upper {}",
        lower.entry->id, lower.domain.to_text(), upper.entry->id, upper.domain.to_text(),
        always ? "for every value of the parameters" : "wherever " + c.faster_when.text,
        rl.print(landau_of(lower.entry->kind)), ru.print(landau_of(upper.entry->kind)));
    sides(f, c.gap_sign, both, {"separated", "not separated", "equal growth"});
    report_.findings.push_back(std::move(f));
  }

  /// Is every point of `inner`'s domain in `outer`'s?
  bool contains(const Prepared& outer, const Prepared& inner) {
    for (const Requirement& r : outer.requirements) {
      if (sat(inner.domain, r.expr, negate(r.op)).status != Satisfiability::kUnsatisfiable) {
        return false;
      }
    }
    return true;
  }

  void implications(const Prepared& a, const Prepared& b, bool upper) {
    for (const auto& [wide, narrow] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
      // Upper bounds pass to narrower task families, lower bounds to wider ones.
      const bool tasks_fit = upper ? catalogue_.task_within(narrow->entry->task, wide->entry->task)
                                   : catalogue_.task_within(wide->entry->task, narrow->entry->task);
      if (!tasks_fit || !contains(*wide, *narrow)) continue;
      implication(*wide, *narrow, upper);
      return;  // equal settings: report one direction
    }
  }

  void implication(const Prepared& wide, const Prepared& narrow, bool upper) {
    Domain domain = narrow.domain;
    Rate rw = wide.rate;
    Rate rn = narrow.rate;
    const std::string domain_text = eliminate_equalities(domain, {&rw, &rn});
    // How much weaker the narrow entry is than what the wide one gives on its setting: the
    // narrow rate against the wide one (an upper bound), or the reverse (a lower bound).
    const Rate& weaker_if_faster = upper ? rn : rw;
    const Rate& other = upper ? rw : rn;
    ++report_.comparisons;
    const std::size_t start = mark();
    const symbolic::RateComparison c =
        symbolic::compare_as_eps_to_zero(weaker_if_faster, other, domain, oracle_);
    const symbolic::SignDecision& sign = c.gap_sign;
    exponents(std::nullopt, std::nullopt);
    if (sign.sign == symbolic::Sign::kUnknown || c.growth == symbolic::Growth::kUnknown) {
      undecided({wide.entry->id, narrow.entry->id}, "an implication",
                c.note.empty() ? "the exponent gap's sign" : c.note);
      return;
    }
    ++report_.comparisons_decided;
    Finding f;
    f.kind = FindingKind::kImplication;
    f.severity = Severity::kInfo;
    f.entries = {wide.entry->id, narrow.entry->id};
    f.gap = symbolic::canonical(c.gap);
    // How much weaker: a power of 1/eps, or of log(1/eps) where those of 1/eps are equal.
    const std::string factor =
        c.decided_by == "log exponent"
            ? "log(1/eps)^(" + f.gap + ")"
            : "eps^(-(" + f.gap + "))" +
                  (c.log_decides_ties ? " (where that is 1, a power of log(1/eps))" : "");
    const std::string restricted = fmt::format("{} restricted to the setting of {} ({}) gives {}",
                                               wide.entry->id, narrow.entry->id, domain_text,
                                               rw.print(landau_of(wide.entry->kind)));
    const std::string theirs = rn.print(landau_of(narrow.entry->kind));
    switch (sign.sign) {
      case symbolic::Sign::kPositive:
        f.condition = "always";
        f.summary = fmt::format("{}; it implies {} {}, which is weaker by a factor {}",
                                restricted, narrow.entry->id, theirs, factor);
        break;
      case symbolic::Sign::kZero:
        f.condition = "always";
        f.summary = fmt::format("{}, the same rate as {} {}: the narrower entry is "
                                "implied exactly", restricted, narrow.entry->id, theirs);
        break;
      case symbolic::Sign::kNegative:
        f.condition = "never";
        f.summary = fmt::format("refinement: {}; {} {} is stronger everywhere on its setting "
                                "(exponent gap {})", restricted, narrow.entry->id, theirs, f.gap);
        break;
      default: {
        // Where the narrower entry is the stronger claim: where the other rate grows faster.
        const symbolic::Condition where =
            !c.log_decides_ties ? symbolic::positive_condition(-c.gap, domain, oracle_)
                           : symbolic::compare_as_eps_to_zero(other, weaker_if_faster, domain, oracle_)
                                 .faster_when;
        exponents(std::nullopt, std::nullopt);
        f.condition = "exponent gap " + f.gap + " >= 0";
        f.condition_latex = symbolic::canonical_relation(c.gap, ">=", symbolic::Format::kLatex);
        if (c.log_decides_ties) {
          f.condition += " (where it is 0, the power of log(1/eps) decides)";
          f.condition_latex += "\\text{ (where it is 0, the power of } \\log(1/\\varepsilon)\\text{ decides)}";
        }
        f.summary = fmt::format(
            "depends on the parameters: {}; it implies {} {} where {} >= 0 "
            "(exponent gap), and {} is the stronger claim where {}", restricted,
            narrow.entry->id, theirs, f.gap, narrow.entry->id, where.text);
        break;
      }
    }
    sides(f, sign, domain, {"implied, weaker", "narrower is stronger", "implied, equal"});
    report_.findings.push_back(std::move(f));
    supports_last_finding(start);
  }

  const Catalogue& catalogue_;
  symbolic::SignOracle oracle_;
  symbolic::Journal* journal_ = nullptr;
  CheckReport report_;
};

}  // namespace

std::string to_text(Severity severity) {
  switch (severity) {
    case Severity::kError: return "error";
    case Severity::kWarning: return "warning";
    case Severity::kInfo: return "note";
  }
  return {};
}

std::string to_text(FindingKind kind) {
  switch (kind) {
    case FindingKind::kContradiction: return "contradiction";
    case FindingKind::kConjectureContradicted: return "conjecture contradicted";
    case FindingKind::kSeparation: return "separation";
    case FindingKind::kImplication: return "implication";
    case FindingKind::kVacuous: return "vacuous";
    case FindingKind::kDegenerate: return "degenerate";
    case FindingKind::kUndecided: return "undecided";
  }
  return {};
}

std::size_t CheckReport::count(Severity severity) const {
  return static_cast<std::size_t>(std::count_if(
      findings.begin(), findings.end(), [&](const Finding& f) { return f.severity == severity; }));
}

std::string CheckReport::brief() const {
  return fmt::format("{} entries, {} related pairs, {} comparisons ({} decided, {} solver calls): "
                     "{} errors, {} warnings, {} notes in {:.3f} s",
                     entries, pairs_examined, comparisons, comparisons_decided, oracle.solver_calls,
                     count(Severity::kError), count(Severity::kWarning), count(Severity::kInfo),
                     seconds);
}

CheckReport check(const Catalogue& catalogue, const CheckOptions& options) {
  return Checker(catalogue, options).run();
}

}  // namespace infoflow::theorems
