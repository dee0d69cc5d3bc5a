#ifndef INFOFLOW_THEOREMS_ENGINE_COMPILER_HPP_
#define INFOFLOW_THEOREMS_ENGINE_COMPILER_HPP_

// The compile stage (docs/infoflow_engine.md, "Quantities"): a target, as the readings left it,
// becomes quantities, reduction by reduction. Its state is one Compilation; its passes, in the
// order pipeline.cpp sets, live in their rules' files: compiler.cpp (the walk over the tree,
// unrolling, E0, and a token reduction handed to the reduction passes), factors.cpp (E3: the
// factors the rules read), extremum.cpp (E1 and E2: elimination into retrievals), vertices.cpp
// (E1's vertex rules and R1's |L|), ranked.cpp (R2), mean.cpp (R6). Internal to the engine.

#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "infoflow/targets/formula.hpp"
#include "infoflow/theorems/program.hpp"

#include "readings/reading.hpp"
#include "terms.hpp"

namespace infoflow::theorems::detail {

/// Said of a retrieval whose score needs an FFN first (scores_from_encoded_tokens()).
inline constexpr const char* kScoreNeedsFfn =
    " (its score is not a query-key product of the encoded tokens: an FFN computes it first, "
    "so layer 2 at the earliest)";

/// What an expression reads: the token indices it is a function of, and the quantities.
struct Deps {
  std::set<std::string> indices;
  std::set<int> quantities;
  void add(const Deps& o);
};

struct Pass;

/// The compile stage's shared state (pipeline.hpp): the target, what its passes built so far, and
/// the walk's services, which the passes call (compiler.cpp).
struct Compilation {
  Compilation(std::span<const Pass* const> passes, const targets::Formula& written,
              const targets::Bindings& bindings, long token_dim, bool split_products);

  /// The formula compiled: C0's canonical form where it made one, else the formula as written.
  [[nodiscard]] const targets::Formula& formula() const { return canonical ? *canonical : written; }

  // The walk (compiler.cpp): the tree, unrolling (E0), a token reduction to its passes.
  int add(Quantity q, const std::string& key);
  /// The one quantity gathering every fixed position the target reads; its form's terms are the
  /// positioned tokens (x[3], x[T]), one each.
  int positions_quantity(const targets::Node& ref, const std::string& name);
  Deps expr(const targets::Node& n, const std::set<std::string>& scope);
  void note_order(const std::string& why);
  void outside(const std::string& why);
  /// A reduction over parameter ranges or fixed position ranges is a finite combination: its
  /// copies are compiled one by one.
  Deps reduction(const targets::Node& n, const std::set<std::string>& scope);
  /// The quantities made from `first` on, with needs inside them as offsets from `first`.
  [[nodiscard]] std::string shape(int first) const;
  Factor factor_of(const Term& term, const std::set<std::string>& scope);
  /// The sign a closed term keeps on random sequences (+1, -1), if it keeps one.
  [[nodiscard]] std::optional<int> closed_sign(const targets::Node& n) const;
  /// The first reduction pass that applies compiles `n`.
  Deps token_reduction(const targets::Node& n, const std::set<std::string>& scope);
  /// Says in the comparison just made how its reduction was written, if a rewrite made it.
  Deps annotated(Deps d, const targets::Node& n);
  /// kth(T, t ...): the T-th largest of the T tokens' values is the smallest, one retrieval
  /// (whatever T is), not a chain of T masked maxima.
  static bool ranks_last(const targets::Node& n);

  std::span<const Pass* const> passes;
  const targets::Formula& written;
  std::optional<targets::Formula> canonical;  // C0's
  bool keep_written = false;  // compile the formula as written (C0's form could not be compiled)
  const targets::Bindings& bindings;
  long token_dim = 0;           // the target's d, if known: E4 and E5 try it too
  bool split_products = false;  // every separable product at its vertices (the second reading)
  Reader reader;                // the readings, and what they found
  targets::Node root;           // the formula as the readings left it
  Program program;
  bool done = false;   // the program is final: the passes after are not run
  bool summed = true;  // the expression compiled is a term of the target's sum (R6's values)
  /// A mean quantity: the terms it averages, and whether each is a vector (d values).
  std::map<int, std::map<std::string, bool>> averaged;
  /// Per mean quantity: the key (up to size) and coefficient of each value its form carries.
  std::map<int, std::vector<std::pair<std::string, double>>> mean_values;
  std::deque<targets::Node> made;  // terms made by distributing dot over sums (stable addresses)
  std::map<std::string, int> merged;
  std::map<std::string, std::size_t> merged_chains;  // a k-th largest's chain: its Ranked
  int positions = -1;
  std::vector<std::string> position_names;
};

/// A token reduction as the reduction passes see it: what the passes before the one that
/// compiles it found.
struct TokenReduction {
  const targets::Node& node;
  const std::set<std::string>& scope;  ///< the indices bound further out
  bool summed = false;                 ///< a term of the target's sum (R6's values)
  std::vector<std::string> bound;
  std::vector<Factor> factors;  ///< the objective's terms, then the index constraints (E3)
  Deps body_deps;               ///< a selection's body
  Comparison comparison;
};

// The rules' parts that more than one rule's file calls.
/// A comparison no retrieval order resolves: only global aggregation reaches it (R4).
Deps blocked(Compilation& state, Comparison& c, int order, std::string why,
             const std::vector<Factor>& factors, const std::vector<std::string>& bound);
/// Leftover factors (over no bound index) pass through to the value.
Deps leftovers(const std::vector<Factor>& factors, const std::vector<std::string>& bound);
/// The form of a retrieval made from `used` (the factors over `v`), held at `at`.
Form form_of(const std::vector<const Factor*>& used, const std::string& v, const std::string& at,
             bool minimum);
/// This use's value over the value of the quantity's form: an action serves every score that
/// is its own up to a positive number (one term) or up to the sign of a minimum.
double ratio_to_form(const Form& form, const std::vector<const Factor*>& used, bool minimum,
                     bool one_term);
/// A selection's body read at the selected token may also read an index bound further out
/// (`max(s) max(t by dot(a, x[t])) dot(x[t], x[s])`): the value depends on that index too, so
/// whatever reduces over it must wait for the selection (the key alone does not say so).
void outer_indices_of_body(const Deps& body_deps, const std::vector<std::string>& bound, Deps& d);
/// A selection's value: `body` at the token that quantity `last` selects over `index`.
Value selected_value(int last, const targets::Node& body, const std::string& index);
/// The extremum over (r, s, t, ...) of a product of factors that split the indices into
/// independent groups (f(r) g(s, t): no factor, constraint or selection joins r to s or t):
/// the product is multilinear in the groups' values, which vary independently, so its
/// extremum is at a vertex, each group's product at its maximum or its minimum. Each group is
/// a reduction of its own, max and min (over one index: two retrievals; over a pair: E2); the
/// readout's FFN takes the best of the products (as |y| = max(y, -y)). Tried only where
/// elimination is blocked: over two indices the rank-one query-key product (R1) needs fewer
/// heads.
std::optional<Deps> separable_product(Compilation& state, const targets::Node& n,
                                      const std::vector<std::string>& bound,
                                      const std::vector<Factor>& factors,
                                      const std::set<std::string>& scope, Comparison& c);
/// The maximum of |E| (or of E^2) is the larger of max E and -min E (squared): two
/// reductions of E, each compiled on its own (E's terms may then be eliminated one index at a
/// time, where |E| couples them all). Tried where elimination is blocked, and in the second
/// reading where it is not (max(s, t) abs(y_s - y_t) is then max y - min y, two retrievals,
/// not a pair's score after an FFN), like separable_product(). The minimum of |E| is no such
/// combination.
std::optional<Deps> absolute_split(Compilation& state, const targets::Node& n,
                                   const std::vector<Factor>& factors,
                                   const std::set<std::string>& scope, Comparison& c);
/// Whether the blocking goes away when each product term splitting into independent groups
/// is read as one factor a group: then the comparison is not a coupling of three indices but
/// a product no rule combines with the other terms (undecided, not super-polynomial).
bool blocked_only_by_products(const std::vector<Factor>& factors,
                              const std::vector<std::string>& bound);

}  // namespace infoflow::theorems::detail

#endif  // INFOFLOW_THEOREMS_ENGINE_COMPILER_HPP_
