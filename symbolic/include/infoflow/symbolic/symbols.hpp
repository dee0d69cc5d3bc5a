#ifndef INFOFLOW_SYMBOLIC_SYMBOLS_HPP_
#define INFOFLOW_SYMBOLIC_SYMBOLS_HPP_

/// \file
/// The one registry of the theory's symbols (docs/theory.md, section 2) with their domains.
/// GiNaC tells symbols apart by object, not by name, so every expression of the project is
/// built from the symbols held here; two `possymbol("T")` would be different unknowns.

#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <ginac/ginac.h>

namespace infoflow::symbolic {

/// What a symbol stands for; it decides how two entries share it (see theorems/check).
enum class Role {
  kPrecision,     ///< eps, the approximation precision
  kProblem,       ///< a property of the target or the input (T, d, k, T0, D, gamma)
  kArchitecture,  ///< a property of the model (L, h, E, n, s)
  kConstant,      ///< an unknown positive constant of one theorem (c, c0): never shared
};

/// A symbol and its domain: lower <= x (or lower < x), optionally x < upper, integer or real.
/// Every symbol is positive, so GiNaC's `possymbol` holds it.
struct SymbolInfo {
  std::string name;     ///< as written in formulas: "T0"
  std::string latex;    ///< as typeset: "T_0"
  std::string meaning;  ///< one line for `infoflow symbols` and the docs
  Role role = Role::kProblem;
  bool integer = true;
  GiNaC::numeric lower = 1;
  bool lower_strict = false;
  std::optional<GiNaC::numeric> upper;  ///< strict upper bound, if any (eps < 1)
  GiNaC::possymbol symbol;
  std::size_t order = 0;  ///< position in the registry: the printing order of monomials
};

/// A fact of the theory's domain that no single symbol's bounds state: `smaller <= larger +
/// offset` (k <= T: the k-th largest of T scores). Declared once here; the sign oracle adds it to
/// every query that names both symbols (or renamed copies of them), so no decision and no
/// witness breaks it.
struct ImplicitFact {
  std::string smaller;  ///< a symbol's name (its renamed copies "s@id" are covered too)
  std::string larger;
  long offset = 0;
  std::string why;  ///< one line for `infoflow symbols`
};

/// An implicit fact as it binds two symbols of a question (either may be a renamed copy):
/// smaller <= larger + fact->offset.
struct FactBetween {
  const SymbolInfo* smaller = nullptr;
  const SymbolInfo* larger = nullptr;
  const ImplicitFact* fact = nullptr;
};

/// The registry. `standard()` holds docs/theory.md, section 2; copies renamed apart (an entry's own
/// constant c, say) are added on demand and live as long as the registry.
class SymbolRegistry {
 public:
  static SymbolRegistry& standard();

  /// The symbol of that name, or nullptr.
  [[nodiscard]] const SymbolInfo* find(std::string_view name) const;
  /// The symbol of that name; throws std::out_of_range for a name the registry lacks.
  [[nodiscard]] const SymbolInfo& at(std::string_view name) const;
  /// Information about a GiNaC symbol of this registry; throws std::out_of_range otherwise.
  [[nodiscard]] const SymbolInfo& info(const GiNaC::ex& symbol) const;
  [[nodiscard]] bool contains(const GiNaC::ex& symbol) const;

  /// A copy of `original` with the same domain, told apart by `tag` (name "c@tag"): used to
  /// keep one theorem's constants or architecture apart from another's. Cached per (name, tag).
  const SymbolInfo& renamed(const SymbolInfo& original, std::string_view tag);

  /// The symbols in registry order (renamed copies after the standard ones).
  [[nodiscard]] std::vector<const SymbolInfo*> all() const;
  /// The implicit domain facts (docs/theory.md, section 2).
  [[nodiscard]] const std::vector<ImplicitFact>& implicit_facts() const { return facts_; }
  /// The implicit facts binding two of `symbols` (a renamed copy s@id counts as s): what the sign
  /// oracle assumes, the certificates state and a witness must satisfy.
  [[nodiscard]] std::vector<FactBetween> implicit_facts_among(
      const std::vector<const SymbolInfo*>& symbols) const;

  /// The precision symbol eps.
  [[nodiscard]] const GiNaC::possymbol& eps() const { return at("eps").symbol; }
  /// The sequence length T.
  [[nodiscard]] const GiNaC::possymbol& seq_len() const { return at("T").symbol; }

 private:
  SymbolRegistry();
  const SymbolInfo& add(SymbolInfo info);

  mutable std::mutex mutex_;
  std::vector<ImplicitFact> facts_;
  std::deque<SymbolInfo> symbols_;  // deque: references stay valid as copies are added
  std::map<std::string, std::size_t, std::less<>> by_name_;
  std::map<GiNaC::ex, std::size_t, GiNaC::ex_is_less> by_symbol_;
};

/// The symbols occurring in `e`, in registry order.
std::vector<const SymbolInfo*> symbols_of(const GiNaC::ex& e);

}  // namespace infoflow::symbolic

#endif  // INFOFLOW_SYMBOLIC_SYMBOLS_HPP_
