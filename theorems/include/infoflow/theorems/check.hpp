#ifndef INFOFLOW_THEOREMS_CHECK_HPP_
#define INFOFLOW_THEOREMS_CHECK_HPP_

/// \file
/// Consistency checking of a catalogue (`infoflow check`). Rules, for entries bounding the same
/// quantity:
/// - contradiction: an upper bound U and a lower bound B whose settings overlap, the target
///   family of B inside that of U, and a point of the overlap where B's exponent exceeds U's;
/// - separation: the same, but the settings are disjoint in the architecture: the
///   architecture of U is cheaper wherever B's exponent exceeds U's (architecture symbols
///   renamed apart, problem symbols shared);
/// - implication: two bounds in the same direction, one setting inside the other: the wider
///   bound implies the narrower where its exponent is at least as good, and the gap says by how
///   much the narrower is weaker;
/// - conjecture contradicted: a contradiction where one side is a conjecture and the other a
///   derived bound or a published theorem: the finding is where the conjecture fails, with the
///   witness, not an error of the catalogue;
/// - vacuous / degenerate: a lower bound whose exponent of 1/eps can be <= 0 (it says nothing
///   there), an upper bound whose exponent can be <= 0 (it claims a parameter count bounded as
///   eps -> 0).
/// Each entry's unknown constants (c, c0) are its own: they are renamed apart per entry.

#include <ostream>
#include <string>
#include <vector>

#include "infoflow/symbolic/sign.hpp"
#include "infoflow/theorems/catalogue.hpp"

namespace infoflow::theorems {

enum class Severity { kError, kWarning, kInfo };
enum class FindingKind {
  kContradiction,
  kConjectureContradicted,
  kSeparation,
  kImplication,
  kVacuous,
  kDegenerate,
  kUndecided,
};

std::string to_text(Severity severity);
std::string to_text(FindingKind kind);
inline std::ostream& operator<<(std::ostream& out, Severity s) { return out << to_text(s); }
inline std::ostream& operator<<(std::ostream& out, FindingKind k) { return out << to_text(k); }

struct LabelledWitness {
  std::string label;  ///< what holds there: "lower exceeds upper"
  symbolic::Witness point;
};

struct Finding {
  FindingKind kind = FindingKind::kUndecided;
  Severity severity = Severity::kInfo;
  std::vector<std::string> entries;  ///< ids, in the order the summary names them
  std::string summary;               ///< one sentence
  std::string condition;             ///< the regime where it holds, text
  std::string condition_latex;
  std::string gap;                   ///< the exponent difference that decided it, text
  std::vector<LabelledWitness> witnesses;
  /// The sides of the finding without a witness, each with why: "grows: none, no point of the
  /// setting", or the solver gave up (and why).
  std::vector<std::string> missing_witnesses;
  std::vector<std::string> suggestions;  ///< restrictions that would remove a contradiction
  std::string certificate;  ///< when certified: "re-proved by Coq (DIR/f003.v)", or why not
};

struct CheckOptions {
  unsigned solver_timeout_ms = 2000;
  /// When set, every question the solver answers is recorded here, each tied to the finding it
  /// supports (for certificates: infoflow/certify).
  symbolic::Journal* journal = nullptr;
};

struct CheckReport {
  std::vector<Finding> findings;
  std::size_t entries = 0;
  std::size_t pairs_examined = 0;      ///< pairs with the same quantity and related tasks
  std::size_t comparisons = 0;         ///< exponent comparisons posed
  std::size_t comparisons_decided = 0;
  symbolic::OracleStats oracle;
  double seconds = 0;

  [[nodiscard]] std::size_t count(Severity severity) const;
  /// "10 entries, 17 pairs, 3 errors, 5 warnings, 8 notes in 0.21 s"
  [[nodiscard]] std::string brief() const;
};

CheckReport check(const Catalogue& catalogue, const CheckOptions& options = {});

}  // namespace infoflow::theorems

#endif  // INFOFLOW_THEOREMS_CHECK_HPP_
