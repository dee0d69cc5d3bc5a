#ifndef INFOFLOW_CERTIFY_HPP_
#define INFOFLOW_CERTIFY_HPP_

/// \file
/// Certificates: every question the sign oracle decided, re-proved by Coq, and re-decided by
/// cvc5 as a cross-check.
///
/// `write_certificates` turns a Journal (symbolic/sign.hpp) into Coq files, one per unit of the
/// check (a finding, or a pair found consistent), each fact a lemma: a universal sign on a
/// region (Z3 found no point where it fails) proved with lra/nra/psatz and the tool's hints
/// (the denominator's sign, the numerator over it), or a witness point proved by computation;
/// where the question compared two exponents, a claim lemma follows that applies the bridge
/// library (certify/coq/Bridge.v, Coquelicot) to reach the asymptotic statement. `check_certificates`
/// runs coqc on them and sorts each fact into re-proved / tactics failed / statement false.

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "infoflow/symbolic/sign.hpp"

namespace infoflow::theorems {
struct CheckReport;
}

namespace infoflow::certify {

struct Options {
  std::filesystem::path directory;  ///< where the .v files go (created)
  bool run_coq = true;              ///< run coqc on what was written
  bool run_cvc5 = true;             ///< re-decide every question with cvc5
  std::string coqc = "coqc";
  std::string cvc5 = "cvc5";
  unsigned jobs = 2;                ///< coqc processes at once
  unsigned cvc5_timeout_ms = 500;  ///< per question (its nonlinear procedures rarely gain from more)

  /// Empty when usable, else what is wrong.
  [[nodiscard]] std::string invalid() const;
};

enum class ProofStatus {
  kReproved,        ///< Coq proved the statement
  kTacticsFailed,   ///< Coq's tactics did not find a proof: the answer stands unconfirmed
  kFalse,           ///< Coq proved the statement false: a defect of the tool
  kNotCertifiable,  ///< no statement could be written (undecided, or no exact witness)
  kNotChecked,      ///< written, coqc not run (absent, or not asked)
};
std::string to_text(ProofStatus status);
inline std::ostream& operator<<(std::ostream& out, ProofStatus s) { return out << to_text(s); }

enum class CrossCheck { kAgree, kDisagree, kCvc5Unknown, kNotAsked };
std::string to_text(CrossCheck check);
inline std::ostream& operator<<(std::ostream& out, CrossCheck c) { return out << to_text(c); }

/// One decided question and what became of it.
struct Fact {
  std::size_t index = 0;  ///< in the journal
  long finding = -1;      ///< the finding it supports, or -1
  std::string topic;
  std::string statement;  ///< in words: "for all points of the region, T - k - 1 > 0"
  std::string file;       ///< the .v file, relative to the directory
  std::string lemma;      ///< its name in the file
  std::string claim;      ///< the claim lemma (asymptotic statement), if any
  ProofStatus status = ProofStatus::kNotChecked;
  bool claim_proved = false;
  CrossCheck cross = CrossCheck::kNotAsked;
  std::string z3;    ///< "sat" / "unsat"
  std::string cvc5;  ///< "sat" / "unsat" / "unknown"
  std::string detail;  ///< why not proved, the counterexample, ...
};

struct Summary {
  std::vector<Fact> facts;
  std::size_t files = 0;
  bool coq_ran = false;
  bool cvc5_ran = false;
  std::string coq_absent;  ///< why coqc did not run, when it did not
  double write_seconds = 0;
  double coq_seconds = 0;
  double cvc5_seconds = 0;

  [[nodiscard]] std::size_t count(ProofStatus status) const;
  [[nodiscard]] std::size_t count(CrossCheck check) const;
  [[nodiscard]] std::size_t decided() const;  ///< facts with a statement (not kNotCertifiable)
  /// "212 decided facts: 212 re-proved by Coq, 0 unconfirmed, 0 false; cvc5 agrees on 205, ..."
  [[nodiscard]] std::string brief() const;
  /// One line per fact that is not re-proved, or on which the solvers disagree.
  [[nodiscard]] std::string problems() const;
};

/// The bridge library's source (certify/coq/Bridge.v), as shipped.
const std::string& bridge_library();

/// Is `coqc` runnable with Coquelicot? Empty when so, else why not.
std::string coq_unavailable(const std::string& coqc = "coqc");

/// Writes the certificates of `journal` into options.directory, then (as asked) re-decides with
/// cvc5 and runs coqc. Throws InputError when the directory cannot be written.
Summary certify(const symbolic::Journal& journal, const Options& options);

/// Marks each finding of `report` with the state of its certificate.
void annotate(theorems::CheckReport& report, const Summary& summary);

}  // namespace infoflow::certify

#endif  // INFOFLOW_CERTIFY_HPP_
