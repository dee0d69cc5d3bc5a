#ifndef INFOFLOW_THEOREMS_ENGINE_HPP_
#define INFOFLOW_THEOREMS_ENGINE_HPP_

/// \file
/// The InfoFlow engine (THEORY.md section 4): for a target and an architecture, the cheapest
/// plan of information flow to the readout, its predicted rate and verdict.
///
/// Rules (formalization, docs/infoflow_engine.md):
/// - capacity: in layer l each of the h_l heads acts once at the input tokens and once at the
///   readout (two token classes);
/// - a comparison of order 1 (an extremum over tokens) is one max-position retrieval at the
///   readout, in any layer; of order 2, a retrieval at every token in layer a, then one at
///   the readout in a layer b > a; k-th retrieval (k >= 2) replaces the readout's max;
/// - a coupled comparison of order >= 3, a sum over tokens, or a comparison left without
///   slots falls back to global aggregation at the readout; fixed positions are gathered by
///   specific-position aggregation (with a positional encoding; global aggregation without);
/// - every step is priced by a catalogue entry, named by id (CostModel): retrievals by the
///   efficient rate, decoding a set of size T0 by Theorem 3 floored by the efficient rate,
///   k-th retrieval by Theorem 2; a plan costs its dominant step (as T -> infinity, then the
///   constant);
/// - verdict: efficient when the exponent of 1/eps does not grow with T; otherwise
///   super-polynomial when a coupled comparison of order >= 3 forces it (no architecture
///   helps), exponential in T else.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <ginac/ginac.h>

#include "infoflow/symbolic/rate.hpp"
#include "infoflow/targets/analysis.hpp"
#include "infoflow/targets/formula.hpp"
#include "infoflow/theorems/catalogue.hpp"

namespace infoflow::theorems {

struct Architecture {
  std::vector<long> heads{1, 1};  ///< h_l per layer
  long embedding = 16;            ///< E
  long token_dim = 4;             ///< d
  long head_dim = 0;              ///< n; 0: E / h_l (which must divide)
  bool positional = false;        ///< positional encoding on

  /// Throws InputError: no layer, zero heads, E not divisible by h_l when n is derived.
  void validate() const;
  [[nodiscard]] long layers() const { return static_cast<long>(heads.size()); }
  [[nodiscard]] long head_dim_of(long layer) const;  ///< 0-based layer
  [[nodiscard]] long total_heads() const;
  [[nodiscard]] long widest() const;  ///< the largest h_l
  /// "L=2 h=(2,2) E=16 d=4 n=8 pe=off"
  [[nodiscard]] std::string text() const;
  [[nodiscard]] std::string heads_text() const;  ///< "(2,2)"
};

enum class Verdict { kEfficient, kExponentialInT, kSuperPolynomial };
std::string to_text(Verdict verdict);

enum class TokenClass { kInputs, kReadout };
enum class Action { kMaxRetrieval, kKthRetrieval, kGlobalAggregation, kPositionAggregation };
std::string to_text(Action action);

/// The catalogue entries that price the modes.
struct CostModel {
  std::string efficient = "infoflow.thm1.two_layer";  ///< a max-position retrieval; the floor
  std::string decoding = "infoflow.thm3.decoding";    ///< decoding a set of size T0
  std::string kth = "infoflow.thm2.kth_max";          ///< retrieving the k-th largest
};

struct PlanStep {
  long layer = 1;  ///< 1-based
  long head = 1;   ///< 1-based within the layer
  TokenClass where = TokenClass::kReadout;
  Action action = Action::kMaxRetrieval;
  std::string what;    ///< e.g. "s1*(t) = argmax_s of max(s, t) bilinear(A[1], x[s], x[t])"
  std::string entry;   ///< the catalogue entry pricing it
  GiNaC::ex exponent;  ///< of 1/eps
};

/// The information sets after layer `layer` (0: the input).
struct LayerSets {
  long layer = 0;
  std::string token;  ///< I(t, layer) of a typical input token
  long token_size = 1;
  std::string readout;  ///< I(T+1, layer)
  GiNaC::ex readout_size;
};

/// A decoding by the FFN after a layer: the set it reads and what it costs.
struct Decoding {
  long layer = 1;
  TokenClass where = TokenClass::kReadout;
  GiNaC::ex size;
  std::string entry;
  GiNaC::ex exponent;
};

struct Target {
  std::string name;
  targets::Formula formula;
  targets::Analysis analysis;
  targets::Bindings bindings;        ///< values of D, k, ... (T stays symbolic)
  std::string family = "retrieval";  ///< the catalogue task family the target belongs to
  bool is_family = false;            ///< the target is exactly that family

  /// Analyses the formula; checks that every named integer but T has a value.
  Target(std::string name, targets::Formula formula, targets::Bindings bindings, std::string family,
         bool is_family = false);
};

struct Plan {
  Architecture architecture;
  std::vector<PlanStep> steps;
  std::vector<Decoding> decodings;
  std::vector<LayerSets> sets;
  std::vector<std::string> fallbacks;  ///< why aggregation was needed
  GiNaC::ex exponent;                  ///< the rate is eps^(-exponent)
  std::string dominant;                ///< which step decides it
  Verdict verdict = Verdict::kEfficient;
  std::vector<std::string> entries;  ///< catalogue entries used, sorted
  [[nodiscard]] symbolic::Rate rate() const;
};

struct Search {
  std::optional<Plan> smallest;  ///< fewest heads per layer, then layers, then total heads
  std::vector<Plan> per_depth;   ///< for each L, the efficient plan with the fewest heads
  long architectures = 0;        ///< how many were tried
};

class Engine {
 public:
  explicit Engine(const Catalogue& catalogue, CostModel costs = {});

  /// The cheapest plan (throws InputError for an invalid architecture or a target the
  /// planner cannot handle, e.g. a fixed position read inside a comparison).
  [[nodiscard]] Plan plan(const Target& target, const Architecture& architecture);

  /// Every architecture with 1..max_layers layers of 1..max_heads heads (E, d, n and the
  /// positional encoding of `base`; n fixed to base's so that any head count is allowed).
  [[nodiscard]] Search search(const Target& target, const Architecture& base, long max_layers = 3,
                              long max_heads = 8);

  /// The plan's rate as a catalogue entry of provenance `derived`, for the target's own task
  /// family (derived_family): a bound derived for one target says nothing of its siblings.
  [[nodiscard]] Entry derived_entry(const Target& target, const Plan& plan) const;
  /// The family of a target's derived bounds: the catalogue family it is (is_family), or a new
  /// "target.NAME" inside the one it belongs to.
  [[nodiscard]] static TaskFamily derived_family(const Target& target);
  /// Adds the target's family (once) and the plan's derived entry to `catalogue`.
  void add_derived(Catalogue& catalogue, const Target& target, const Plan& plan) const;

 private:
  GiNaC::ex exponent_of(const std::string& entry, const GiNaC::exmap& values);
  GiNaC::ex decode_exponent(const GiNaC::ex& size, const Architecture& a);

  const Catalogue& catalogue_;
  CostModel costs_;
  std::map<std::string, GiNaC::ex> cache_;
};

}  // namespace infoflow::theorems

#endif  // INFOFLOW_THEOREMS_ENGINE_HPP_
