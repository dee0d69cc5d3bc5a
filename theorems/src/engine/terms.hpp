#ifndef INFOFLOW_THEOREMS_ENGINE_TERMS_HPP_
#define INFOFLOW_THEOREMS_ENGINE_TERMS_HPP_

// The terms of an objective as the quantity compiler reads them (docs/infoflow_engine.md, E1):
// additive terms with their constant factors set aside, the factors elimination gathers, and
// the keys that make identical actions one. Internal to the engine.

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "infoflow/targets/formula.hpp"
#include "infoflow/theorems/program.hpp"

namespace infoflow::theorems::detail {

/// A text that two expressions share iff they are equal up to the order of commutative
/// operands and the renaming `rename` (used for symmetry and for merging identical actions).
std::string canonical(const targets::Node& n, const std::map<std::string, std::string>& rename);

/// A term of an objective and the constant factor taken off it: its sign and the constants it
/// was multiplied or divided by. The factor changes neither the indices the term couples nor
/// whether attention forms its score, but it is part of what the term maximises: the maxima of
/// y and of -y (or c y, c of unknown sign) are two actions, not one.
struct Term {
  const targets::Node* node = nullptr;
  bool negative = false;
  std::vector<std::string> constants;  ///< "*c" and "/c", c in canonical form, but numbers
  double magnitude = 1;                ///< the numbers' product, without their signs
  std::vector<std::string> written;    ///< every factor as written, numbers too, for the text
  bool zero = false;                   ///< a factor is the number 0: the term vanishes

  [[nodiscard]] Term negated() const;
  /// The term times (`op` "*") or over ("/") `constant`.
  [[nodiscard]] Term scaled(const char* op, const targets::Node& constant) const;
  /// The factor of a product of this term and `other`.
  [[nodiscard]] Term times(const Term& other) const;
  /// The term's text with its sign and constant factors, as a quantity shows what it maximises.
  [[nodiscard]] std::string shown(const std::string& text) const;
  /// Equal for two terms that scale their objectives alike.
  [[nodiscard]] std::string scale() const;
  /// The same, up to a positive number: equal for two terms whose maxima are at one token
  /// (y and 2 y), where the term is the whole score.
  [[nodiscard]] std::string sign() const;
};

/// Top-level additive terms of `n` (scaled by `scale`), with dot and bilinear distributed over
/// sums of vectors and constant factors taken off (they change neither which indices a term
/// couples nor whether attention forms its score; Term keeps them for merging actions). Terms
/// that are not subtrees of `n` are kept in `made`; `distribute`: a product of sums of token
/// terms is expanded too (the first reading; not the second, which reads such a product at its
/// vertices). Not theorems::additive_terms(), the readout's: it splits a Value at +, - and numbers.
void additive_terms(const targets::Node& n, const Term& scale, std::vector<Term>& out,
                    std::deque<targets::Node>& made, bool distribute);

/// A factor of an objective: the token indices it couples and the quantities it reads. It is
/// a term of the objective, an index constraint, or a message of an earlier elimination.
struct Factor {
  std::set<std::string> indices;
  std::set<int> quantities;
  std::string text;
  const targets::Node* term = nullptr;
  std::string scale;     ///< a term's sign and constants (Term::scale())
  std::string sign;      ///< the same up to a positive number (Term::sign())
  double magnitude = 1;  ///< that number (Term::magnitude)
  std::string shown;     ///< a term's text with them (Term::shown())
  const targets::IndexConstraint* constraint = nullptr;
  int message = -1;
  std::string message_at;
  double ratio = 1;  ///< a message: its value over that of the quantity's form (Form)

  /// What a quantity maximises, with the term's sign and constants (the checks read `text`).
  [[nodiscard]] std::string signed_text() const { return shown.empty() ? text : shown; }

  /// Equal for two factors that are the same up to the renaming (for merging actions), and,
  /// `up_to_size`, up to a positive number (a score of one term, a mean's value).
  [[nodiscard]] std::string key(const std::map<std::string, std::string>& rename,
                                bool up_to_size = false) const;
};

/// The factors of an objective that read the index `v`, as its elimination gathers them.
struct FactorsReading {
  std::set<std::string> message;         ///< the indices they read (v among them)
  std::set<int> needs;                   ///< the quantities they read
  std::vector<std::string> texts;        ///< the signed texts of the terms and messages, in order
  std::vector<std::string> constraints;  ///< the texts of the index constraints, in order
  std::vector<const Factor*> used;       ///< every one of them, in order
};
FactorsReading factors_reading(const std::vector<Factor>& factors, const std::string& v);

/// A factor as a construction reads it; nullopt where a parameter (not a number) scales it.
std::optional<FormTerm> form_term(const Factor& f);

/// How many of a score's factors are terms (not index constraints).
long scoring_terms(const std::vector<const Factor*>& factors);

/// The one term of a score that is not an index constraint (the caller counted them).
const Factor* single_score(const std::vector<const Factor*>& terms);

}  // namespace infoflow::theorems::detail

#endif  // INFOFLOW_THEOREMS_ENGINE_TERMS_HPP_
