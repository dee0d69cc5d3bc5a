#ifndef INFOFLOW_SYMBOLIC_SIGN_HPP_
#define INFOFLOW_SYMBOLIC_SIGN_HPP_

/// \file
/// Sign decisions over a constrained parameter domain. A sign is decided structurally by GiNaC
/// when it can be (every symbol is positive), and otherwise by Z3 (nonlinear real arithmetic,
/// then integers for integer symbols): each answer is a proof or comes with a concrete witness
/// point, checked exactly. Nothing is answered from sampling.

#include <memory>
#include <ostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ginac/ginac.h>

#include "infoflow/symbolic/expression.hpp"
#include "infoflow/symbolic/symbols.hpp"

namespace infoflow::symbolic {

/// `expr op 0`, where `expr` is a rational function of registry symbols.
struct Constraint {
  GiNaC::ex expr;
  RelOp op = RelOp::kGreater;
  std::string origin;  ///< what stated it, for messages ("hypothesis k >= 2 of thm2")
};

/// A conjunction of constraints. Every symbol also carries its registry domain (integrality
/// and bounds), added when a query is posed, so a domain lists only the extra conditions.
class Domain {
 public:
  void require(const GiNaC::ex& lhs_minus_rhs, RelOp op, std::string origin = {});
  void require(const Relation& relation, std::string origin = {});
  void extend(const Domain& other);

  /// The same domain with symbols replaced (equalities solved, symbols renamed apart).
  [[nodiscard]] Domain substituted(const GiNaC::exmap& map) const;
  [[nodiscard]] const std::vector<Constraint>& constraints() const { return constraints_; }
  [[nodiscard]] std::string to_text() const;

 private:
  std::vector<Constraint> constraints_;
};

/// A point of parameter space; values are exact rationals (integers for integer symbols).
struct Witness {
  std::vector<std::pair<const SymbolInfo*, GiNaC::numeric>> values;

  [[nodiscard]] GiNaC::exmap as_map() const;
  /// "T=9, k=2", in registry order.
  [[nodiscard]] std::string to_text() const;
  /// The value of `e` at this point (symbols absent from the witness stay symbolic).
  [[nodiscard]] GiNaC::ex evaluate(const GiNaC::ex& e) const;
};

enum class Sign {
  kPositive,
  kNegative,
  kZero,
  kNonNegative,  ///< >= 0, zero somewhere, positive somewhere
  kNonPositive,
  kNonZero,      ///< positive somewhere, negative somewhere, never zero
  kIndefinite,   ///< takes both signs
  kEmptyDomain,  ///< the domain has no point
  kUnknown,      ///< the solver gave up (timeout or a non-polynomial expression)
};

std::string to_text(Sign sign);
inline std::ostream& operator<<(std::ostream& out, Sign sign) { return out << to_text(sign); }

/// The outcome of a sign query: the sign, a witness for each sign that occurs, how it was decided.
struct SignDecision {
  Sign sign = Sign::kUnknown;
  std::optional<Witness> positive_at;
  std::optional<Witness> negative_at;
  std::optional<Witness> zero_at;
  std::string method;  ///< "structural" or "z3"
};

enum class Satisfiability { kSatisfiable, kUnsatisfiable, kUnknown };
std::string to_text(Satisfiability status);
inline std::ostream& operator<<(std::ostream& out, Satisfiability status) {
  return out << to_text(status);
}

struct SatResult {
  Satisfiability status = Satisfiability::kUnknown;
  std::optional<Witness> witness;
  std::string reason;  ///< why kUnknown
};

/// Counts of what the oracle did, for benchmarks.
struct OracleStats {
  std::size_t sign_queries = 0;
  std::size_t structural = 0;
  std::size_t solver_calls = 0;
  std::size_t unknown = 0;
};

/// What a recorded question was about, set by the caller: the exponents whose gap is asked
/// (`first - second`), so that a certificate can end in the asymptotic claim.
struct JournalContext {
  std::string topic;             ///< "thm1 against thm2: lower against upper"
  std::optional<GiNaC::ex> first;   ///< the exponent of the first rate (when a gap is asked)
  std::optional<GiNaC::ex> second;  ///< the exponent of the second rate
  /// "eps" (exponents of 1/eps), "log" (of log(1/eps)) or "T" (first and second are then
  /// the slope in T of the eps-exponent gap and 0, and T_offset the gap's part free of T)
  std::string component;
  std::optional<GiNaC::ex> eps_exponent;  ///< for "log": the common exponent of 1/eps
  std::optional<GiNaC::ex> T_offset = std::nullopt;  ///< for "T": see component
};

/// One decided (or undecided) question, as the oracle answered it: is there a point of
/// `domain` (plus the registry domains of its symbols) where `expr op 0` holds (when
/// `has_relation`)? Structural sign answers are recorded as the unsatisfiable question they
/// settle ("expr <= 0 nowhere" for a positive expression).
struct JournalEntry {
  std::vector<Constraint> domain;
  bool has_relation = false;
  GiNaC::ex expr = 0;
  RelOp op = RelOp::kGreater;
  SatResult result;
  std::string method;  ///< "z3" or "structural"
  JournalContext context;
  long finding = -1;   ///< the finding this question supports (index), or -1
};

/// The questions an oracle answered, in order; attach with SignOracle::set_journal.
struct Journal {
  std::vector<JournalEntry> entries;
  JournalContext context;  ///< copied into each entry recorded while it is set
};

/// Holds a Z3 context; not thread-safe (use one per thread).
class SignOracle {
 public:
  explicit SignOracle(unsigned timeout_ms = 2000);
  ~SignOracle();
  SignOracle(const SignOracle&) = delete;
  SignOracle& operator=(const SignOracle&) = delete;

  /// Is there a point of the domain (with `extra` also holding)? A witness if so.
  SatResult satisfiable(const Domain& domain);
  /// Is there a point of `domain` with `expr op 0`?
  SatResult satisfiable(const Domain& domain, const GiNaC::ex& expr, RelOp op);
  /// The sign of `expr` over the domain.
  SignDecision sign(const GiNaC::ex& expr, const Domain& domain);

  [[nodiscard]] const OracleStats& stats() const { return stats_; }

  /// Records every later answer into `journal` (nullptr: stop recording).
  void set_journal(Journal* journal) { journal_ = journal; }
  [[nodiscard]] Journal* journal() const { return journal_; }

 private:
  void record(const Domain& domain, const GiNaC::ex* expr, RelOp op, const SatResult& result,
              const char* method);

  struct Impl;
  std::unique_ptr<Impl> impl_;
  OracleStats stats_;
  Journal* journal_ = nullptr;
};

}  // namespace infoflow::symbolic

#endif  // INFOFLOW_SYMBOLIC_SIGN_HPP_
