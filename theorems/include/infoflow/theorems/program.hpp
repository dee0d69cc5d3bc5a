#ifndef INFOFLOW_THEOREMS_PROGRAM_HPP_
#define INFOFLOW_THEOREMS_PROGRAM_HPP_

/// \file
/// The quantity compiler of the InfoFlow engine (docs/infoflow_engine.md, "Quantities"): a
/// target formula becomes the quantities a network must hold to compute it, each obtained by
/// one action of one head (a retrieval, a fetch of positions, a uniform average), with the
/// quantities its score reads. Reductions over several token indices are resolved by variable
/// elimination (max-sum style): each eliminated index is a retrieval at the tokens that
/// remain; a factor that couples three or more indices at once cannot be eliminated and sets
/// the comparison order. The planner (engine.hpp) then places the quantities in
/// (layer, head, token class) slots.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ginac/ginac.h>

#include "infoflow/targets/formula.hpp"
#include "infoflow/targets/node_algebra.hpp"
#include "infoflow/theorems/value.hpp"

namespace infoflow::theorems {

/// Where a quantity lives: one value for the whole sequence (held by the readout, or by every
/// token alike), or one value at each token.
enum class Holder { kGlobal, kToken };

/// How a quantity is obtained; each is a section of docs/infoflow_engine.md.
enum class Mode {
  kRetrieval,    ///< max-position retrieval: the argmax of a score over the tokens
  kRankStep,     ///< step j >= 2 of a k-th largest: a retrieval masked by step j - 1
  kPositions,    ///< specific-position aggregation of the target's fixed positions
  kRelative,     ///< x[t+c]: every token fetches the token c places away
  kMean,         ///< uniform attention: the mean of a token-wise value
  kAggregation,  ///< global aggregation: a comparison no elimination order resolves
};
std::string to_text(Mode mode);

/// One term of what a quantity maximises or averages, as a construction compiles it
/// (docs/constructions.md): a term of the formula, or the value of an earlier quantity.
struct FormTerm {
  std::shared_ptr<const targets::Node> node;  ///< the term as the compiler read it; null: a message
  double coefficient = 1;                     ///< the signed number the term is scaled by
  int message = -1;                           ///< the earlier quantity whose value this is
  std::string message_at;                     ///< the index it is read at ("": the readout's)
};

/// A quantity as a construction compiles it. `known` is false where a rule made the quantity
/// without recording its terms (`unknown` says which), and the constructor refuses it.
struct Form {
  bool known = false;
  std::string unknown;
  std::string index;     ///< the index the action ranges over (the candidate token)
  std::string at;        ///< the holder's index ("": the readout)
  bool minimum = false;  ///< the value is the minimum of the summed terms, not the maximum
  /// A retrieval's score terms; a mean's averaged values; kPositions: the positioned tokens.
  std::vector<FormTerm> terms;
  std::vector<targets::IndexConstraint> constraints;  ///< on `index` and `at`
  /// kRankStep: the step before in its chain (its quantity); this step's candidates are the
  /// tokens whose score is below that step's token's.
  int below = -1;
  /// A selection's value, read at the chosen token (null: the score's value).
  std::shared_ptr<const targets::Node> selected;
};

struct Quantity {
  std::string name;  ///< m1, g2, P, r+1: how plans and information sets refer to it
  Holder holder = Holder::kGlobal;
  Mode mode = Mode::kRetrieval;
  std::string what;        ///< the quantity in words and formulas
  std::vector<int> needs;  ///< quantities (indices) its score or value reads
  bool needs_at_tokens = false;  ///< kMean: the tokens themselves must hold the needs
  /// An FFN computes it first (layer 2 at the earliest): a kMean's averaged value that is
  /// nonlinear, or a retrieval's score that attention cannot form from the raw tokens.
  bool needs_ffn = false;
  long positions = 0;      ///< kPositions: how many positions it gathers
  long values = 1;         ///< kMean: the averaged scalars it carries (n values a head)
  long vectors = 0;        ///< kMean: the averaged token vectors, d values each
  int order = 0;           ///< kAggregation: the order of the comparison that forces it
  Form form;               ///< what a construction compiles

  /// kMean: how many values it averages at token dimension d.
  [[nodiscard]] long averaged(long token_dim) const { return values + vectors * token_dim; }
};

/// A k-th largest (k >= 2): a chain of k masked retrievals (the steps), or one k-th
/// retrieval priced by Theorem 2 in their place.
struct Ranked {
  std::vector<int> steps;
  long rank = 2;
  std::string text;
};

/// One reduction over tokens, as the comparison tree shows it.
struct Comparison {
  std::string text;       ///< the reduction, for people
  targets::Node reduction;  ///< the reduction compared: what tells two comparisons apart
  int order = 1;            ///< 1 + the largest set of indices a message depends on
  std::string elimination;  ///< "t -> m1(s); s -> g1", or why none exists
  bool blocked = false;     ///< no elimination order keeps messages on single tokens
  bool sum = false;         ///< a sum over tokens
  /// How comparisons listed before it combine (|E| as the larger of max E and -min E): no
  /// comparison of its own, so neither in beta_1 nor in the comparison number.
  bool summary = false;
  /// In beta_1 and the comparison number: made (order > 0: not an idle selection), no summary.
  [[nodiscard]] bool counts() const { return order > 0 && !summary; }
};

struct Program {
  std::vector<Quantity> quantities;  ///< each after the ones it needs
  std::vector<int> outputs;          ///< global quantities the readout needs at the end
  std::vector<Ranked> ranked;
  std::vector<Comparison> comparisons;
  std::vector<std::string> order_dependent;  ///< constructs that read token order
  std::optional<std::string> outside;        ///< why the target is outside the framework
  std::vector<std::string> constants;        ///< reductions that are constants (E5), in words
  int order = 0;                             ///< beta', the largest comparison order
  GiNaC::ex comparison_number = 0;           ///< sum over comparisons of T^order
  /// Copies of one unrolled template (sum(i = 1..D) ...): each inner list holds the first
  /// quantity of each copy; copies are interchangeable, so a search may order them.
  std::vector<std::vector<int>> interchangeable;
  /// For constructions: the formula as the compiler read it (after its rewrites), and the value
  /// of each reduction it resolved (value.hpp), keyed by the reduction (same_expression()).
  targets::Node root;
  std::map<targets::Node, Value, targets::ExpressionOrder> values;

  [[nodiscard]] bool blocked() const;
  /// beta_1: the distinct comparisons made (a reduction written twice counts once; neither the
  /// idle selections, of order 0, nor the summaries count).
  [[nodiscard]] long dimension() const;
  /// Whether a quantity reads token positions (a fixed position or an offset, R5).
  [[nodiscard]] bool reads_positions() const;
  [[nodiscard]] std::string elimination_text() const;

  /// The canonical form compiled (canonical_forms.hpp), where it is not the formula as written;
  /// and the ids of the rewrites that made it.
  std::string read_as;
  std::vector<std::string> rewrites;
};

/// Compiles a formula whose named integers other than T have values in `bindings`. Throws
/// InputError (with the column) for a range or rank with no value.
/// `split_products`: read every product of independent factors at its vertices (E1), not only
/// where elimination is blocked (the engine's alternative program).
Program compile(const targets::Formula& formula, const targets::Bindings& bindings,
                long token_dim = 0, bool split_products = false);

}  // namespace infoflow::theorems

#endif  // INFOFLOW_THEOREMS_PROGRAM_HPP_
