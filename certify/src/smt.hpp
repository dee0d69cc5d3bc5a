#ifndef INFOFLOW_CERTIFY_SMT_HPP_
#define INFOFLOW_CERTIFY_SMT_HPP_

// Internal: every question of a journal re-decided by cvc5 (its binary, SMT-LIB2 text).

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "infoflow/symbolic/sign.hpp"

namespace infoflow::certify::detail {

struct Cvc5Result {
  bool ran = false;  ///< false when the binary is absent
  std::vector<symbolic::Satisfiability> answers;  ///< per journal entry
  /// Where cvc5 found a point and Z3 found none, or none it could state exactly: that point.
  std::vector<std::optional<symbolic::Witness>> models;
};

/// The question of one entry as an SMT-LIB2 script body (declarations and assertions);
/// integer symbols are Int when `integers`, else every symbol is Real.
std::string smt_question(const symbolic::JournalEntry& entry, bool integers);

/// The scripts are kept in `dir` (cvc5_relaxed.smt2, cvc5_exact.smt2, cvc5_models.smt2).
Cvc5Result run_cvc5(const symbolic::Journal& journal, const std::string& cvc5, unsigned timeout_ms,
                    const std::filesystem::path& dir);

}  // namespace infoflow::certify::detail

#endif  // INFOFLOW_CERTIFY_SMT_HPP_
