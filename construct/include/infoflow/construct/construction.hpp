#ifndef INFOFLOW_CONSTRUCT_CONSTRUCTION_HPP_
#define INFOFLOW_CONSTRUCT_CONSTRUCTION_HPP_

/// \file
/// Constructions (docs/constructions.md): the engine's plan for a target on an architecture,
/// compiled into the weights of the numeric Transformer and measured on fresh inputs, with no
/// training. A construction is the numeric witness of an upper bound: it shows that a network
/// of that architecture computing the target to the measured accuracy exists.
///
/// Each step of the plan becomes one head's action at one token class; what the steps read
/// and the values they make live in coordinates of the residual stream; the FFN after each
/// layer and the readout MLP compute the nonlinear functions of the held values by one
/// documented universal construction (ReLU interpolation on a grid, products through squares).
/// The constructor checks the architecture's room itself (heads, stream coordinates, head
/// dimensions, FFN width); a plan it cannot compile is reported with the step and the reason.

#include <cstdint>
#include <string>
#include <vector>

#include "infoflow/numeric/config.hpp"
#include "infoflow/targets/target_file.hpp"
#include "infoflow/theorems/engine.hpp"

namespace infoflow::construct {

struct ConstructOptions {
  double beta = 1000;           ///< the attention scale: softmax near hardmax as beta grows
  long ffn_width = 256;         ///< W, the hidden width of every FFN
  long readout_width = 0;       ///< the readout MLP's hidden width; 0: W
  /// The MLP encoder's hidden width, where a plan's layer 1 reads a token-wise feature that is
  /// not linear in x (the linear encoder otherwise); 0: W.
  long encoder_width = 0;
  /// The content features a mask without positions (s != t) reads: hat functions of one
  /// projection of the token, a stream coordinate and a key dimension each. The mask errs where
  /// two tokens' projections fall within two hats of each other: the more, the rarer.
  long mask_features = 64;
  std::uint64_t seed = 1;       ///< the measured inputs; calibration draws from seed + 1
  long samples = 4096;          ///< sequences measured
  long calibration = 4096;      ///< sequences the grids' ranges are read from (as many as measured)
  std::uint64_t task_seed = 1;  ///< the target's random parameters (as train's --task-seed)
  /// Throws InputError naming the first invalid field.
  void validate() const;
};

/// One coordinate range of the residual stream and what it holds, for the printed layout.
struct StreamSlot {
  long first = 0;
  long width = 1;
  std::string holds;
};

/// Whose rule is missing, or which resource ran out, where a plan does not compile.
enum class Shortfall {
  kNone,         ///< built
  kPlan,         ///< the plan is not efficient, or names a position outside 1..T
  kEngine,       ///< the plan asks what the architecture lacks (heads, positions)
  kConstructor,  ///< a rule this constructor has no compilation for
  /// A head needs more dimensions than n: the plan's heads suffice, and the same plan compiles
  /// at n = head_dim_needed, a width the theory lets grow with the accuracy.
  kHeadWidth,
  kFfnWidth,     ///< an FFN, the encoder or the readout MLP needs more units than its width
  kEmbedding,    ///< the stream has no room left: the same plan needs a larger E
};
/// The word printed for it, in text and JSON: "plan", "engine", "constructor", "width" (either
/// width), "embedding"; "" for kNone.
[[nodiscard]] std::string to_text(Shortfall s);

/// Why a plan did not compile, and where.
struct Status {
  Shortfall shortfall = Shortfall::kNone;
  /// The plan step's label ("layer 1, head 2 at the readout (q)"), the FFN's name, or the
  /// lowering pass that failed (lowering_passes) where no step is to blame.
  std::string step;
};

struct Construction {
  bool built = false;
  std::string failure;  ///< why not: the step and the reason ("" when built)
  Status status;        ///< whose fault a failure is, typed
  long head_dim_needed = 0;  ///< kHeadWidth: the n the failing step needs (0 otherwise)
  numeric::ModelConfig config;
  std::vector<double> parameters;  ///< in the layout's order
  numeric::ParameterCount counts;
  double nmse = 0;       ///< on `samples` fresh sequences
  double target_variance = 0;
  long knots = 0;        ///< grid points of each interpolated function (the smallest used)
  long fitted = 0;       ///< functions fitted by least squares, not written (steps say which)
  long ffn_units = 0;    ///< hidden units used, the widest FFN, encoder or readout MLP
  std::vector<StreamSlot> layout;  ///< the stream at the end, per coordinate range
  std::vector<std::string> steps;  ///< each compiled action, in words
  std::string plan_text;           ///< the architecture and verdict planned
  double seconds = 0;
};

/// One pass of the lowering (docs/constructions.md, "The lowering's passes").
struct LoweringPass {
  std::string name;
  bool per_layer = false;  ///< run once per layer, in turn with the other per-layer passes
  std::string does;
};
/// The lowering's passes, in the order they run: the registry, for the debug listing.
[[nodiscard]] std::vector<LoweringPass> lowering_passes();

/// Compiles the engine's plan of `spec`'s target on `plan.architecture` (plan from
/// Engine::plan) and measures it. `spec` gives the input distribution and the token dimension.
/// Throws InputError for invalid options; a plan that does not compile is a result with `built`
/// false.
Construction construct(const targets::TargetSpec& spec, const theorems::Plan& plan,
                       const ConstructOptions& options);

}  // namespace infoflow::construct

#endif  // INFOFLOW_CONSTRUCT_CONSTRUCTION_HPP_
