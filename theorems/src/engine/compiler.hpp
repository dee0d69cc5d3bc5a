#ifndef INFOFLOW_THEOREMS_ENGINE_COMPILER_HPP_
#define INFOFLOW_THEOREMS_ENGINE_COMPILER_HPP_

// The compiler core (docs/infoflow_engine.md, "Quantities"): a target, as the readings left it,
// becomes quantities, reduction by reduction. Its parts, one file each: compiler.cpp (the walk
// over the tree, unrolling, E0, and the dispatch of a token reduction), extremum.cpp (E1 and E2:
// elimination into retrievals), vertices.cpp (E1's vertex rules and R1's |L|), ranked.cpp (R2),
// mean.cpp (R6). Internal to the engine.

#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <set>
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

class Compiler {
 public:
  Compiler(const targets::Formula& f, const targets::Bindings& b, long token_dim,
           bool split_products);

  Program run();

 private:
  // compiler.cpp: the walk, unrolling (E0), a token reduction's dispatch.
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
  Deps token_reduction(const targets::Node& n, const std::set<std::string>& scope);
  /// Says in the comparison just made how its reduction was written, if a rewrite made it.
  Deps annotated(Deps d, const targets::Node& n);
  /// kth(T, t ...): the T-th largest of the T tokens' values is the smallest, one retrieval
  /// (whatever T is), not a chain of T masked maxima.
  static bool ranks_last(const targets::Node& n);

  // extremum.cpp: E1 and E2, elimination into retrievals.
  Deps extremum(const targets::Node& n, const std::vector<std::string>& bound,
                std::vector<Factor> factors, const Deps& body_deps,
                const std::set<std::string>& scope, Comparison& c);
  /// A comparison no retrieval order resolves: only global aggregation reaches it (R4).
  Deps blocked(Comparison& c, int order, std::string why, const std::vector<Factor>& factors,
               const std::vector<std::string>& bound);
  /// Program::values for a closed extremum resolved by `last`: its value, plus the terms left
  /// over that read no index (a constant offset); a selection's value is its body at the token.
  void record_value(const targets::Node& n, const std::vector<Factor>& left, int last, double ratio,
                    const std::string& index);
  /// Leftover factors (over no bound index) pass through to the value.
  static Deps leftovers(const std::vector<Factor>& factors, const std::vector<std::string>& bound);
  /// The form of a retrieval made from `used` (the factors over `v`), held at `at`.
  static Form form_of(const std::vector<const Factor*>& used, const std::string& v,
                      const std::string& at, bool minimum);
  /// This use's value over the value of the quantity's form: an action serves every score that
  /// is its own up to a positive number (one term) or up to the sign of a minimum.
  static double ratio_to_form(const Form& form, const std::vector<const Factor*>& used,
                              bool minimum, bool one_term);
  /// A selection's body read at the selected token may also read an index bound further out
  /// (`max(s) max(t by dot(a, x[t])) dot(x[t], x[s])`): the value depends on that index too, so
  /// whatever reduces over it must wait for the selection (the key alone does not say so).
  static void outer_indices_of_body(const Deps& body_deps, const std::vector<std::string>& bound,
                                    Deps& d);
  /// A selection's value: `body` at the token that quantity `last` selects over `index`.
  static Value selected_value(int last, const targets::Node& body, const std::string& index);

  // vertices.cpp: E1's vertex rules and R1's |L|.
  /// max over one token of |L|, L linear in the token (no key, no constraint): |y| = max(y, -y),
  /// so two retrievals of linear scores, one each, and the readout's FFN takes the larger.
  /// Attention forms both scores from the raw tokens, where |L| itself would wait for an FFN
  /// (R1). A selection by |L| (or L^2), `max(t by abs(L)) V`, is V at the token of max L or at
  /// that of min L, whichever |L| is larger: the selections by L and by -L and the two extrema
  /// of L, which share their retrievals.
  std::optional<Deps> absolute_maximum(const targets::Node& n,
                                       const std::vector<std::string>& bound,
                                       const std::vector<Factor>& factors, const Deps& body_deps,
                                       const std::set<std::string>& scope, Comparison& c);
  Deps absolute_selection(const targets::Node& n, const targets::Node& score, bool square,
                          const std::set<std::string>& scope, Comparison& c);
  /// The extremum over (r, s, t, ...) of a product of factors that split the indices into
  /// independent groups (f(r) g(s, t): no factor, constraint or selection joins r to s or t):
  /// the product is multilinear in the groups' values, which vary independently, so its
  /// extremum is at a vertex, each group's product at its maximum or its minimum. Each group is
  /// a reduction of its own, max and min (over one index: two retrievals; over a pair: E2); the
  /// readout's FFN takes the best of the products (as |y| = max(y, -y)). Tried only where
  /// elimination is blocked: over two indices the rank-one query-key product (R1) needs fewer
  /// heads.
  std::optional<Deps> separable_product(const targets::Node& n,
                                        const std::vector<std::string>& bound,
                                        const std::vector<Factor>& factors,
                                        const std::set<std::string>& scope, Comparison& c);
  /// The maximum of |E| (or of E^2) is the larger of max E and -min E (squared): two
  /// reductions of E, each compiled on its own (E's terms may then be eliminated one index at a
  /// time, where |E| couples them all). Tried where elimination is blocked, and in the second
  /// reading where it is not (max(s, t) abs(y_s - y_t) is then max y - min y, two retrievals,
  /// not a pair's score after an FFN), like separable_product(). The minimum of |E| is no such
  /// combination.
  std::optional<Deps> absolute_split(const targets::Node& n, const std::vector<Factor>& factors,
                                     const std::set<std::string>& scope, Comparison& c);
  /// Whether the blocking goes away when each product term splitting into independent groups
  /// is read as one factor a group: then the comparison is not a coupling of three indices but
  /// a product no rule combines with the other terms (undecided, not super-polynomial).
  static bool blocked_only_by_products(const std::vector<Factor>& factors,
                                       const std::vector<std::string>& bound);

  // ranked.cpp: R2, a k-th largest as a chain of masked retrievals.
  Deps ranked(const targets::Node& n, const std::vector<std::string>& bound,
              std::vector<Factor> factors, const Deps& body_deps, long k, Comparison& c);
  /// Program::values for a k-th largest resolved by its chain's last step `last`: the step's
  /// value, or the selection's body at its token; recorded where the score is the whole body.
  void record_rank_value(const targets::Node& n, int last, const std::vector<const Factor*>& used,
                         const std::vector<Factor>& factors, const std::string& index,
                         const std::string& at);

  // mean.cpp: R6, uniform averages.
  /// A sum over tokens: the mean mode prices a sum of token-wise values; anything else is
  /// outside the framework.
  Deps mean(const targets::Node& n, const std::vector<std::string>& bound,
            const std::vector<Factor>& factors, bool summed, Comparison& c);
  /// T times the mean of factor `f` over `v` as a value of mean quantity `id`: a new value of
  /// its form, or a multiple of one it carries already (y and 2 y average one value).
  std::optional<Value> averaged_value(Quantity& made, int id, const Factor& f,
                                              const std::string& v);

  const targets::Formula& formula_;
  const targets::Bindings& bindings_;
  long token_dim_ = 0;           // the target's d, if known: E4 and E5 try it too
  bool split_products_ = false;  // every separable product at its vertices (the alternative)
  Reader reader_;                // the readings, and what they found
  bool summed_ = true;  // the expression compiled is a term of the target's sum (R6's values)
  targets::Node root_;
  /// A mean quantity: the terms it averages, and whether each is a vector (d values).
  std::map<int, std::map<std::string, bool>> averaged_;
  /// Per mean quantity: the key (up to size) and coefficient of each value its form carries.
  std::map<int, std::vector<std::pair<std::string, double>>> mean_values_;
  std::deque<targets::Node> made_;  // terms made by distributing dot over sums (stable addresses)
  Program p_;
  std::map<std::string, int> merged_;
  std::map<std::string, std::size_t> merged_chains_;  // a k-th largest's chain: its Ranked
  int positions_ = -1;
  std::vector<std::string> position_names_;
};

}  // namespace infoflow::theorems::detail

#endif  // INFOFLOW_THEOREMS_ENGINE_COMPILER_HPP_
