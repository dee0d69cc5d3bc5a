#ifndef INFOFLOW_CONSTRUCT_LOWERING_STATE_HPP_
#define INFOFLOW_CONSTRUCT_LOWERING_STATE_HPP_

// What the lowering's passes share (docs/constructions.md, "The lowering's passes"): the plan
// and its target, the network being written, and what each pass leaves for the later ones. The
// passes are in registry.cpp, in order; each one's file says what it reads and writes here.

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "infoflow/construct/construction.hpp"
#include "infoflow/numeric/tasks.hpp"
#include "infoflow/targets/evaluator.hpp"
#include "infoflow/targets/node_algebra.hpp"
#include "infoflow/theorems/engine.hpp"

#include "network.hpp"
#include "ridge.hpp"

namespace infoflow::construct::detail {

/// Each token read by position (x[3], x[T]) -> its position.
using Positions = std::map<targets::Node, long, targets::ExpressionOrder>;

/// Grid knots below which an interpolated function is too coarse to be a construction.
constexpr long kFewestKnots = 3;
/// Sequences one forward pass takes.
constexpr long kBatch = 128;

inline std::string class_name(Class c) {
  return c == Class::kInputs ? "input tokens" : "readout";
}

/// A function the FFN after a layer computes at one token class and adds to one coordinate.
struct Job {
  Class at = Class::kInputs;
  std::vector<long> inputs;  ///< the coordinates it reads
  Function f;                ///< of their values, in that order
  long into = 0;             ///< -1: a coordinate given out once the FFN has freed what it erases
  std::string what;
  std::function<void(long)> placed;  ///< told the coordinate given out
  /// f as a ridge sum known in advance (a feature the constructor designed): no decomposition.
  std::optional<RidgeSum> known;
  /// A maximum or minimum of a few held values: fitted by least squares (fit()) where no
  /// decomposition writes it in one level, and refused only if the fit errs too much.
  bool fitted_if_needed = false;
};

/// A step function the FFN after a layer computes at the input tokens: 0 where u <= -delta, 1
/// where u >= 0, into one coordinate.
struct Clamp {
  Form u;
  long into = 0;
};

/// A piece of a score or of a value: a function of one token's x, times a number.
struct TokenFunction {
  std::function<double(const Eigen::VectorXd&)> f;
  std::string key;  ///< what it is, so that two steps share one computed feature
};

/// A score's terms split by where they are read (the candidate, the holder, both).
struct Score {
  std::vector<TokenFunction> candidate;                    ///< of x at the candidate
  std::vector<std::pair<int, double>> candidate_messages;  ///< (quantity, coefficient)
  Eigen::MatrixXd cross;                                ///< x_holder' B x_candidate; empty if none
  std::vector<TokenFunction> holder;                    ///< of x at the holder
  /// Products phi(x_candidate) psi(x_holder) of two token-wise functions (a_s c_s * b_t): a key
  /// feature against a query feature, a key dimension each.
  std::vector<std::pair<TokenFunction, TokenFunction>> products;
  std::vector<std::pair<int, double>> holder_messages;  ///< at the holder, or global
  /// The holder's x is the tokens it fetched by position (P's mean), not its own token.
  bool holder_positions = false;
  bool holder_token = false;  ///< a term reads the holder's own token
};

/// A chain's step masked by content at the readout (rank_mask, threshold_jobs).
struct Threshold {
  int id = 0;      ///< the step whose score is the threshold
  int next = 0;    ///< the step it masks
  long held = 0;   ///< the readout's coordinate holding the score
  Form candidate;  ///< the candidate's score, over the stream
  std::string step;
};

/// What the attention pass leaves for the FFN pass of the same layer.
struct LayerWork {
  std::vector<Job> jobs;
  std::vector<std::pair<long, std::optional<Class>>> erasures;  ///< (coordinate, at; none: all)
  std::vector<Clamp> clamps;
};

/// The lowering's state: set once (the plan, the target, the sizes), then filled pass by pass.
struct Lowering {
  Lowering(const targets::TargetSpec& target, const theorems::Plan& planned,
           const ConstructOptions& asked)
      : spec(target), plan(planned), program(*planned.program), options(asked) {}

  /// "layer 1, head 2 at the readout (q)": how failures and the printed steps name a step.
  [[nodiscard]] std::string label(const theorems::PlanStep& s) const;
  [[nodiscard]] const theorems::Quantity& quantity(const theorems::PlanStep& s) const;
  [[nodiscard]] const std::string& name(int id) const;  ///< quantity `id`'s name
  /// The form of quantity `id`'s value at class `at`; Failure where no earlier step put it.
  [[nodiscard]] const Form& held(Class at, int id, const std::string& step) const;

  // The plan and its target (set up).
  const targets::TargetSpec& spec;
  const theorems::Plan& plan;
  const theorems::Program& program;
  ConstructOptions options;
  long tokens = core::defaults::kTokens;
  long d = core::defaults::kTokenDim;
  std::unique_ptr<targets::Evaluator> evaluator;
  std::unique_ptr<numeric::Task> task;
  std::map<std::string, int> by_name;
  theorems::Value output;
  std::set<int> selected;
  std::map<int, const theorems::Value*> selections;  ///< into output
  /// Token selections read inside another selection's value (#select(g, #select(m, ...))): each
  /// token fetches its own, which the outer selection then reads off the chosen token.
  std::set<int> selected_at_tokens;
  std::set<int> needed_at_readout;  ///< the quantities whose values the output reads
  Positions positions;              ///< each token read by position

  // What the analysis found (analyse).
  std::map<int, Score> scores;
  std::map<int, int> chained;  ///< a k-th largest's step -> the step below it
  std::map<std::string, std::optional<std::pair<Eigen::VectorXd, double>>> affine;
  std::map<std::string, long> feature_layer;
  std::map<std::string, std::function<double(const Eigen::VectorXd&)>> feature_functions;
  std::map<std::string, RidgeSum> feature_known;  ///< features written exactly
  std::vector<std::string> content_keys;          ///< the content features, in order
  std::vector<double> content_centres;            ///< their hats' centres on u.x

  // The network and where its values are (stream layout, then every building pass).
  std::unique_ptr<Network> network;
  std::map<std::string, long> features;
  std::array<std::map<int, Form>, 2> values;
  /// A mean's values, by (quantity, component): a form per entry.
  std::array<std::map<std::pair<int, int>, std::vector<Form>>, 2> components;
  std::map<int, std::vector<long>> fetched_x;
  std::map<int, long> fetched_value;  ///< a selection whose body is affine: its value's coordinate
  /// The same for a global selection the input tokens make: the readout brings it along.
  std::map<int, long> fetched_value_at_tokens;
  std::map<int, long> made_in;        ///< the layer that made each retrieved value (-1: positions)
  std::map<int, std::vector<long>>
      undefined_at;                           ///< a masked quantity -> holders with no candidate
  std::map<std::set<long>, long> indicators;  ///< a set of positions -> its indicator coordinate
  std::vector<long> one_hot_code;             ///< position p's one-hot coordinate at p - 1
  std::array<std::vector<long>, 2> positions_held;  ///< P's mean of x, at each class

  // Chains of k-th largest (attention, masks).
  std::vector<Threshold> thresholds;                 ///< this layer's, for its FFN
  std::map<int, std::vector<long>> threshold_masks;  ///< a chain's step -> its hats' coordinates
  std::map<int, long> rank_masks;       ///< a chain's step -> the flag its candidates are masked by
  std::map<int, long> own_score;        ///< a retrieval -> the coordinate of its fetched score
  std::map<int, Form> candidate_score;  ///< a retrieval -> its score as the candidate's form

  // The layer being built (attention, FFN).
  long current_layer = 0;  ///< 1-based
  LayerWork layer;
  std::set<int> pending_values;          ///< values the FFN of the layer being built completes
  std::vector<theorems::Value> pending;  ///< first-level extrema asked of the last layer's FFN
  std::vector<std::pair<theorems::Value, long>> first_level_units;  ///< ... and their coordinates

  // What the construction reports.
  std::vector<std::string> described;
  long fewest_knots = 0;
  long fitted = 0;  ///< functions fitted by least squares
  long widest_units = 0;
  double nmse = 0;
  double target_variance = 0;
};

}  // namespace infoflow::construct::detail

#endif  // INFOFLOW_CONSTRUCT_LOWERING_STATE_HPP_
