#ifndef INFOFLOW_SESSION_DERIVE_HPP_
#define INFOFLOW_SESSION_DERIVE_HPP_

/// \file
/// derive: each target's comparison structure, plan, rate, verdict and smallest efficient
/// architecture; or, for one target whose integer is left unset, the conditions on it.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "infoflow/report/derivation_report.hpp"
#include "infoflow/session/target_request.hpp"
#include "infoflow/theorems/engine.hpp"

namespace infoflow::session {

struct Derived {
  std::vector<targets::TargetSpec> specs;
  std::vector<theorems::Target> targets;
  std::vector<report::Derivation> derivations;  ///< each points into `targets`
  /// Set when the single target left an integer unset: the conditions on it, depth by depth.
  std::string unset;
  std::vector<theorems::Condition> conditions;

  Derived() = default;
  Derived(Derived&&) = default;  // moving keeps `targets`' storage, so the pointers hold
  Derived& operator=(Derived&&) = default;
  Derived(const Derived&) = delete;
  Derived& operator=(const Derived&) = delete;
};

/// `conditions_wanted`: an unset integer is answered with conditions (the text and data
/// forms) rather than refused. The options are checked before the target is read
/// (ArchitectureRequest::check, TargetRequest::check); throws InputError.
Derived derive(theorems::Engine& engine, const TargetRequest& target,
               const ArchitectureRequest& architecture, bool conditions_wanted);

/// The text of `infoflow derive`.
std::string derived_text(const Derived& d);
/// The JSON of `derive --format json`: one object, or an array of several targets.
nlohmann::json derived_json(const Derived& d);
/// The conditions on the unset integer as data: target, formula, unset and the conditions.
nlohmann::json conditions_json(const Derived& d);
/// For a notebook: each target's derived_json with, beside it, the rates of its plan
/// (plan_rate), of the smallest efficient architecture (smallest_rate) and of each depth
/// (per_depth_rates) in both forms (see rates_json), and its row of the LaTeX table (latex_row).
nlohmann::json derived_data(const Derived& d, const theorems::Catalogue& catalogue);

/// A plan's verdict and rates in both forms: the bound O(...) as `rate`, the rate alone as
/// `eps_rate` (what compare() takes), each with its LaTeX.
nlohmann::json rates_json(const theorems::Plan& plan);

}  // namespace infoflow::session

#endif  // INFOFLOW_SESSION_DERIVE_HPP_
