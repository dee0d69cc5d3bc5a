#ifndef INFOFLOW_THEOREMS_ENGINE_HPP_
#define INFOFLOW_THEOREMS_ENGINE_HPP_

/// \file
/// The InfoFlow engine (docs/theory.md, sections 5 and 6; rules in docs/infoflow_engine.md): for
/// a target and an architecture, the cheapest plan of information flow to the readout under the
/// rules, its predicted rate and its verdict.
///
/// The target is compiled into quantities (program.hpp); a plan places each quantity's action
/// in a (layer, head, token class) slot so that everything its score reads is held by then,
/// and the readout holds the output at the end. The search is exact: every placement is tried
/// (with pruning), and the cheapest wins; when none exists, the target falls back to one global
/// aggregation (or, for a k-th largest, to one k-th retrieval priced by Theorem 2). Every step
/// names its rule and the catalogue entry that prices it.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ginac/ginac.h>

#include "infoflow/core/architecture.hpp"
#include "infoflow/symbolic/rate.hpp"
#include "infoflow/targets/formula.hpp"
#include "infoflow/targets/target_file.hpp"
#include "infoflow/theorems/catalogue.hpp"
#include "infoflow/theorems/program.hpp"

namespace infoflow::theorems {

/// The shape the engine plans on (E, d, n, heads per layer, positions), shared with training.
using core::Architecture;

enum class Verdict {
  kEfficient,          ///< the exponent of 1/eps does not grow with T
  kExponentialInT,     ///< it grows; more heads or layers would help
  kSuperPolynomial,    ///< it grows because a comparison of order >= 3 forces aggregation
  kNotComputable,      ///< order-dependent target, no positional encoding
  kOutsideFramework,   ///< a construct no rule covers
  kUndecided,          ///< the placement search reached its node cap before deciding
};
std::string to_text(Verdict verdict);

enum class TokenClass { kInputs, kReadout };
std::string to_text(TokenClass where);

enum class Action {
  kMaxRetrieval,
  kMaskedRetrieval,
  kKthRetrieval,
  kGlobalAggregation,
  kPositionAggregation,
  kRelativeFetch,
  kUniformAggregation,
  kCarry,
};
std::string to_text(Action action);
/// The section of docs/infoflow_engine.md that states the action's rule.
std::string rule_of(Action action);

/// The catalogue entries that price the modes.
struct CostModel {
  std::string efficient = "infoflow.thm1.two_layer";  ///< a max-position retrieval; the floor
  std::string decoding = "infoflow.thm3.decoding";    ///< decoding a set of size T0
  std::string kth = "infoflow.thm2.kth_max";          ///< retrieving the k-th largest
  std::string mean = "infoflow.uniform_aggregation";  ///< the mean of a token-wise value
};

struct PlanStep {
  long layer = 1;  ///< 1-based
  long head = 1;   ///< 1-based within the layer and token class; the first where it spans more
  TokenClass where = TokenClass::kReadout;
  Action action = Action::kMaxRetrieval;
  std::string quantity;  ///< the quantity's name (m1, g2, P), "" for a carry or the fallback
  std::string what;
  std::string entry;   ///< the catalogue entry pricing it
  GiNaC::ex exponent;  ///< of 1/eps
  GiNaC::ex general;   ///< the same with d, E and n left symbolic
  std::string floored_while;  ///< when the floor was taken: the condition for it, in d, E, n
  /// Consecutive heads from `head` the step uses: more than one for a mean whose values do not
  /// fit in the room its first head has left (R6: n averaged values a head).
  long heads = 1;
  /// The entry's kind: a lower bound (Theorem 2's k-th retrieval) says what the step costs at
  /// least, and nothing of what it costs at most.
  Kind kind = Kind::kUpper;
};

/// "head 2", or "heads 1-2" for a step that spans several.
std::string heads_text(const PlanStep& step);

/// The information sets after layer `layer` (0: the input), as the union of their parts. A
/// size counts the distinct positions of the union as T grows (T where a set holds every
/// position); at a given T a set holds at most T of them (size_at).
struct LayerSets {
  long layer = 0;
  std::vector<std::string> token;  ///< parts of I(t, layer) of a typical input token
  GiNaC::ex token_size = 1;
  std::vector<std::string> readout;  ///< parts of I(T+1, layer)
  GiNaC::ex readout_size = 0;
};

/// A set's size at a given T: `size` there, and no more than the T positions there are.
GiNaC::ex size_at(const GiNaC::ex& size, long tokens);

/// A decoding by the FFN after a layer: the set it reads and what it costs.
struct Decoding {
  long layer = 1;
  TokenClass where = TokenClass::kReadout;
  GiNaC::ex size;  ///< as T grows; see size_at
  std::string entry;
  GiNaC::ex exponent;
  GiNaC::ex general;          ///< with d, E and n left symbolic
  std::string floored_while;  ///< when the floor was taken: the condition for it
  /// Theorem 3's exponent with d and E given and T0 left symbolic, before the floor: what the
  /// decoding costs at a T where the set holds fewer positions than `size`.
  GiNaC::ex law;
  /// The exponent at a given T (before the floor, which the plan applies).
  [[nodiscard]] GiNaC::ex exponent_at(long tokens) const;
};

struct Target {
  std::string name;
  targets::Formula formula;
  targets::Bindings bindings;        ///< values of D, k, ... (T stays symbolic)
  std::string family = "retrieval";  ///< the catalogue task family the target belongs to
  bool is_family = false;            ///< the target is exactly that family
  long token_dim = 0;  ///< its d when known (0: not); E4 and E5 try it beside d = 4, 2, 8
  std::shared_ptr<const Program> program;
  /// The second reading: each product of independent factors over two or more indices read at
  /// its vertices (E1), where the planner reads it otherwise; planned where `program` finds no
  /// efficient plan (the pipeline's "second reading" and "reading choice" passes).
  std::shared_ptr<const Program> alternative;

  /// Compiles the formula (program.hpp); InputError for a named integer without a value.
  Target(std::string name, targets::Formula formula, targets::Bindings bindings, std::string family,
         bool is_family = false, long token_dim = 0);
};

struct Plan {
  Architecture architecture;
  std::shared_ptr<const Program> program;  ///< the reading planned (Target::program or alternative)
  std::vector<PlanStep> steps;
  std::vector<Decoding> decodings;
  std::vector<LayerSets> sets;
  GiNaC::ex exponent;    ///< the rate is eps^(-exponent)
  /// What `exponent` bounds. kLower where a step is priced by a lower-bound entry (a k-th
  /// retrieval in one layer, Theorem 2): the rate is then the largest of those steps' (M is at
  /// least that on this route), and `upper` is the cheapest plan the rules build here.
  Kind kind = Kind::kUpper;
  /// For a lower-bound plan: the best upper bound the rules give on the same architecture (a
  /// placement without Theorem 2's retrieval, or global aggregation).
  std::shared_ptr<const Plan> upper;
  /// The dominant step's exponent with d, E and n symbolic (the architecture's values only
  /// chose the plan), and the condition under which it holds ("" if always).
  GiNaC::ex general_exponent;
  std::string general_condition;
  std::string dominant;  ///< which step decides it
  Verdict verdict = Verdict::kEfficient;
  std::string reason;                ///< why the verdict is not "efficient", "" if it is
  std::vector<std::string> entries;  ///< catalogue entries used, sorted
  bool truncated = false;            ///< the placement search reached its cap: kUndecided
  /// The efficient rate's exponent. No decoding costs less (rule), but a decoding of a set that
  /// grows with T keeps Theorem 3's exponent, which falls below this one at small T.
  GiNaC::ex floor = 0;
  [[nodiscard]] symbolic::Rate rate() const;
  /// O, or Omega for a lower bound.
  [[nodiscard]] symbolic::Landau landau() const { return landau_of(kind); }
  /// The exponent at a given T, exact: the largest of the steps' and decodings' at that T (each
  /// set holding at most T positions), no less than `floor` where the plan decodes anything;
  /// for a lower bound, the largest of the lower-bound steps' at that T; `exponent` at T where
  /// a value stays symbolic.
  [[nodiscard]] GiNaC::ex exponent_at(long tokens) const;
  /// The rate at a given T: eps^(-exponent_at(T)).
  [[nodiscard]] symbolic::Rate rate_at(long tokens) const;
  [[nodiscard]] symbolic::Rate general_rate() const;
  /// A rate exists (not "not computable", "outside" or "undecided").
  [[nodiscard]] bool priced() const;
};

struct Search {
  std::optional<Plan> smallest;  ///< fewest heads per layer, then layers, then total heads
  std::vector<Plan> per_depth;   ///< for each L, the efficient plan with the fewest heads
  long architectures = 0;        ///< how many were tried
  long max_layers = 0;
  long max_heads = 0;
  /// Why the framework cannot decide the target (outside it, or a placement search reached its
  /// cap where the answer depends on it): then no smallest is claimed, and outputs say
  /// "undecided" with this reason, never "none".
  std::optional<std::string> undecided;
  /// Placement searches that reached the cap (architectures left undecided, plans undecided).
  long capped = 0;
};

/// When a target's named integer N (D, k, ...) has no value: for which N each architecture is
/// efficient, and a closed form in h_1..h_L where one holds on every architecture checked.
struct Condition {
  std::string name;  ///< N
  long layers = 0;
  long max_heads = 0;
  long limit = 0;  ///< N was tried from 1 to this
  /// Per head vector: the largest N with an efficient plan (0: none; limit: every N tried).
  std::vector<std::pair<std::vector<long>, long>> capacity;
  std::string closed_form;  ///< "D <= 2*h_1 + h_2"; "" if none of the forms tried holds
  bool monotone = true;     ///< efficient for N implies efficient for every smaller N
};

/// The placement search for one architecture stops after this many nodes; the answer is then
/// "undecided: search cap reached", never the best found so far. No target of the engine's
/// table or of targets/targets.toml comes near it (tests/theorems/test_engine_table.cpp).
inline constexpr long kPlacementNodeCap = 400000;

class Engine {
 public:
  /// `node_cap`: kPlacementNodeCap, or less (a test of what reaching it says).
  explicit Engine(const Catalogue& catalogue, CostModel costs = {},
                  long node_cap = kPlacementNodeCap);

  /// The cheapest plan under the rules (throws InputError for an invalid architecture).
  [[nodiscard]] Plan plan(const Target& target, const Architecture& architecture);

  /// Every architecture with 1..max_layers layers of 1..max_heads heads (E, d, n and the
  /// positional encoding of `base`; n fixed to base's so that any head count is allowed).
  [[nodiscard]] Search search(const Target& target, const Architecture& base, long max_layers = 4,
                              long max_heads = 8);

  /// Conditions on the unset integer `name` for every head vector with 1..max_heads heads in
  /// each of `layers` layers (E, d, n and the encoding of `base`). Forms tried, each verified
  /// on every head vector: N <= b + sum a_l h_l; N <= min of h_l over a set of layers; none.
  [[nodiscard]] Condition condition(const Target& target, const std::string& name,
                                    const Architecture& base, long layers, long max_heads = 4);

  /// The plan's rate as a catalogue entry of provenance `derived`, for the target's own task
  /// family (derived_family): a bound derived for one target says nothing of its siblings.
  [[nodiscard]] Entry derived_entry(const Target& target, const Plan& plan) const;
  /// The family of a target's derived bounds: the catalogue family it is (is_family), or a new
  /// "target.NAME" inside the one it belongs to.
  [[nodiscard]] static TaskFamily derived_family(const Target& target);
  /// Adds the target's family (once) and the plan's derived entry to `catalogue`.
  void add_derived(Catalogue& catalogue, const Target& target, const Plan& plan) const;

  /// The exponent of 1/eps of a catalogue entry with some symbols given values.
  [[nodiscard]] GiNaC::ex exponent_of(const std::string& entry, const GiNaC::exmap& values);
  [[nodiscard]] const CostModel& costs() const { return costs_; }
  [[nodiscard]] const Catalogue& catalogue() const { return catalogue_; }

 private:
  const Catalogue& catalogue_;
  CostModel costs_;
  long node_cap_;
  std::map<std::string, GiNaC::ex> cache_;
};

/// The engine's bound for every architecture each target of the target files lists, added to
/// `catalogue` as `derived` entries (what `check --targets` checks). Plans are priced by the
/// catalogue as given; an unplannable target is an InputError at its place in its file.
void add_derived_bounds(Catalogue& catalogue, const std::vector<std::string>& target_files);

/// The engine's passes, in the order it runs them, as its registry lists them (`infoflow
/// passes`): each with its rule's id and what it does, C0's rewrites and the readings under
/// their pass.
std::string passes_text();

/// The target a target file (or a formula on the command line) describes.
Target to_target(const targets::TargetSpec& spec);

/// The architecture a target is planned on (derive, plan, the Python module): `heads` per layer,
/// embedding E, per-head dimension n (0: E / h), and the target's token dimension and positional
/// encoding. Throws InputError where it is not a valid architecture.
Architecture architecture_for(const targets::TargetSpec& spec, long embedding, long head_dim,
                              std::vector<long> heads);

/// `derive` on a target with one integer unset: the condition on it for 1, 2 and 3 layers
/// (Engine::condition with up to 4 heads a layer).
std::vector<Condition> conditions_by_depth(Engine& engine, const targets::TargetSpec& spec,
                                           const std::string& name, const Architecture& base);

}  // namespace infoflow::theorems

#endif  // INFOFLOW_THEOREMS_ENGINE_HPP_
