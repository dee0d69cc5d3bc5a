#include "infoflow/session/plan.hpp"

#include <optional>

#include "infoflow/report/derivation_report.hpp"
#include "infoflow/session/derive.hpp"

namespace infoflow::session {

Planned plan(theorems::Engine& engine, const TargetRequest& target,
             const ArchitectureRequest& architecture) {
  architecture.check();  // before the target is read: its canonical forms may take seconds
  const targets::TargetSpec spec = target.resolve(true).front();
  Planned out{theorems::to_target(spec), {}, ""};
  const theorems::Architecture base = architecture.for_target(spec);
  if (!architecture.heads) {  // the smallest efficient architecture, if there is one
    theorems::Search s = engine.search(out.target, base);
    if (s.smallest) {
      out.plan = *s.smallest;
      out.note = "(no --heads: the smallest efficient architecture)\n";
      return out;
    }
    out.note = s.undecided ? "(no --heads, and the smallest efficient architecture undecided: "
                             "one layer, one head)\n"
                           : "(no --heads and no efficient architecture: one layer, one head)\n";
  }
  out.plan = engine.plan(out.target, base);
  return out;
}

std::string planned_text(const Planned& p) {
  return p.note + report::plan_text(p.target, p.plan);
}

nlohmann::json planned_json(const Planned& p) {
  const auto T = p.target.bindings.find("T");
  nlohmann::json j = report::to_json(
      p.plan, T == p.target.bindings.end() ? std::nullopt : std::optional<long>(T->second));
  j["target"] = report::to_json(*p.target.program);
  return j;
}

nlohmann::json planned_data(const Planned& p) {
  nlohmann::json j = planned_json(p);
  const nlohmann::json rates = rates_json(p.plan);
  for (const auto& [key, value] : rates.items()) {
    if (!j.contains(key)) j[key] = value;  // the command's keys keep the command's values
  }
  return j;
}

}  // namespace infoflow::session
