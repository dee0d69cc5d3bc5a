#ifndef INFOFLOW_SESSION_PLAN_HPP_
#define INFOFLOW_SESSION_PLAN_HPP_

/// \file
/// plan: the engine's plan for one target, layer by layer; without heads, the smallest
/// efficient architecture's.

#include <string>

#include <nlohmann/json.hpp>

#include "infoflow/session/target_request.hpp"
#include "infoflow/theorems/engine.hpp"

namespace infoflow::session {

struct Planned {
  theorems::Target target;
  theorems::Plan plan;
  std::string note;  ///< how the architecture was chosen when no heads were given; else empty
};

/// The options are checked before the target is read, as derive's; throws InputError.
Planned plan(theorems::Engine& engine, const TargetRequest& target,
             const ArchitectureRequest& architecture);

/// The text of `infoflow plan` (the note first).
std::string planned_text(const Planned& p);
/// The JSON of `plan --format json`: the plan, with the target's program.
nlohmann::json planned_json(const Planned& p);
/// For a notebook: planned_json with the rates in both forms beside it (rates_json, derive.hpp;
/// the command's keys keep the command's values).
nlohmann::json planned_data(const Planned& p);

}  // namespace infoflow::session

#endif  // INFOFLOW_SESSION_PLAN_HPP_
