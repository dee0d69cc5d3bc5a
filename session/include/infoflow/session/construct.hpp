#ifndef INFOFLOW_SESSION_CONSTRUCT_HPP_
#define INFOFLOW_SESSION_CONSTRUCT_HPP_

/// \file
/// construct: the engine's plan for a target compiled into the weights of its architecture and
/// measured on fresh inputs, no training (docs/constructions.md); one construction, or a sweep
/// of them with a fitted slope.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "infoflow/construct/construction.hpp"
#include "infoflow/numeric/fit.hpp"
#include "infoflow/session/target_request.hpp"
#include "infoflow/theorems/engine.hpp"

namespace infoflow::session {

/// The one target asked for, with T = 8 unless set, after every check that needs no engine
/// (heads given and dividing E, the options' ranges). Throws InputError.
targets::TargetSpec construction_target(const TargetRequest& target,
                                        const ArchitectureRequest& architecture,
                                        const construct::ConstructOptions& options);

/// construct's --seed and --task-seed as written (Python's seed and task_seed as their digits):
/// train's own seed parser, 0 to 2^64 - 1. Throws InputError.
std::uint64_t parse_seed(std::string_view text);

/// Throws InputError without heads (the architecture to build) or for invalid options.
construct::Construction construct(theorems::Engine& engine, const targets::TargetSpec& spec,
                                  const ArchitectureRequest& architecture,
                                  const construct::ConstructOptions& options);

/// The text of `infoflow construct`.
std::string construction_text(const construct::Construction& c,
                              const construct::ConstructOptions& options);
/// The JSON of `construct --format json`.
nlohmann::json construction_json(const construct::Construction& c,
                                 const construct::ConstructOptions& options);

/// The `infoflow train` command that starts from a construction written to `checkpoint`: the
/// target as asked, and every model key of the run settings at the construction's values.
std::string training_command(const TargetRequest& target, const targets::TargetSpec& spec,
                             const numeric::ModelConfig& model, std::uint64_t task_seed,
                             const std::string& checkpoint);

/// What a sweep varies; an empty list holds the options' value (the target's T).
struct ConstructionSweep {
  std::vector<double> betas;
  std::vector<long> widths;
  std::vector<long> lengths;
};

struct ConstructionSweepResult {
  std::vector<nlohmann::json> points;  ///< construction_json of each, in sweep order
  std::string text;                    ///< the table of the points
  /// Of log NMSE against log M (one T) or against log T (one beta and width) over the built
  /// points, with a bootstrap over the points (numeric::fit_power_law_over_points).
  std::optional<numeric::PowerLawFit> fit;
  std::string fit_against;  ///< "M" or "T"
  std::string no_fit;       ///< why there is none
  std::uint64_t seed = 1;   ///< the bootstrap's
};

/// Every combination of the sweep's values, each value checked before the target is read or any
/// construction built; throws InputError as construct does.
ConstructionSweepResult construct_sweep(theorems::Engine& engine, const TargetRequest& target,
                                        const ArchitectureRequest& architecture,
                                        const construct::ConstructOptions& options,
                                        ConstructionSweep sweep);
std::string sweep_text(const ConstructionSweepResult& r);
nlohmann::json sweep_json(const ConstructionSweepResult& r);

}  // namespace infoflow::session

#endif  // INFOFLOW_SESSION_CONSTRUCT_HPP_
