#include "infoflow/session/derive.hpp"

#include <utility>

#include "infoflow/report/derivation_report.hpp"

namespace infoflow::session {

Derived derive(theorems::Engine& engine, const TargetRequest& target,
               const ArchitectureRequest& architecture, bool conditions_wanted) {
  Derived out;
  architecture.check();  // before the target is read: its canonical forms may take seconds
  out.specs = target.resolve(false);
  if (out.specs.size() == 1)
    out.unset = targets::unset_integer_for_conditions(out.specs.front(), conditions_wanted);
  if (!out.unset.empty()) {
    // Every head vector is tried for the conditions: the given heads play no part.
    ArchitectureRequest base = architecture;
    base.heads.reset();
    out.conditions = theorems::conditions_by_depth(engine, out.specs.front(), out.unset,
                                                   base.for_target(out.specs.front()));
    return out;
  }
  out.targets.reserve(out.specs.size());
  for (const targets::TargetSpec& s : out.specs) out.targets.push_back(theorems::to_target(s));
  for (std::size_t i = 0; i < out.specs.size(); ++i) {
    const targets::TargetSpec& spec = out.specs[i];
    report::Derivation d;
    d.target = &out.targets[i];
    // The search keeps the given E and n (n fixed, so any head count is allowed).
    const theorems::Architecture base = architecture.for_target(spec);
    d.search = engine.search(out.targets[i], base);
    // A plan on the given heads; without them, one on each architecture a target file lists
    // (with the file's E), as check --targets derives them.
    std::vector<theorems::Architecture> planned;
    if (architecture.heads) {
      planned.push_back(base);
    } else {
      for (const std::vector<long>& heads : spec.architectures) {
        ArchitectureRequest listed = architecture;
        listed.heads = heads;
        listed.embedding = spec.embedding;
        planned.push_back(listed.for_target(spec));
      }
    }
    if (planned.empty()) out.derivations.push_back(d);
    for (const theorems::Architecture& a : planned) {
      d.plan = engine.plan(out.targets[i], a);
      out.derivations.push_back(d);
    }
  }
  return out;
}

std::string derived_text(const Derived& d) {
  if (!d.unset.empty()) return report::conditions_text(d.specs.front(), d.unset, d.conditions);
  std::string out;
  for (const report::Derivation& x : d.derivations) out += report::derivation_text(x);
  return out;
}

nlohmann::json derived_json(const Derived& d) {
  nlohmann::json j = nlohmann::json::array();
  for (const report::Derivation& x : d.derivations) j.push_back(report::to_json(x));
  return d.derivations.size() == 1 ? j[0] : j;
}

nlohmann::json conditions_json(const Derived& d) {
  nlohmann::json conditions = nlohmann::json::array();
  for (const theorems::Condition& c : d.conditions) {
    nlohmann::json capacity = nlohmann::json::array();
    for (const auto& [heads, n] : c.capacity) capacity.push_back({heads, n});
    conditions.push_back({{"name", c.name},
                          {"layers", c.layers},
                          {"max_heads", c.max_heads},
                          {"limit", c.limit},
                          {"closed_form", c.closed_form},
                          {"monotone", c.monotone},
                          {"capacity", capacity},
                          {"text", report::condition_text(c)}});
  }
  const targets::TargetSpec& spec = d.specs.front();
  return {{"target", spec.name},
          {"formula", targets::to_text(spec.formula.root())},
          {"unset", d.unset},
          {"conditions", conditions}};
}

nlohmann::json rates_json(const theorems::Plan& p) {
  nlohmann::json d = {{"heads", p.architecture.heads},
                      {"architecture_text", p.architecture.text()},
                      {"verdict", theorems::to_text(p.verdict)},
                      {"priced", p.priced()}};
  if (p.priced()) {
    const symbolic::Rate rate = p.rate();
    const symbolic::Rate general = p.general_rate();
    d["kind"] = theorems::to_text(p.kind);
    d["rate"] = rate.print(p.landau());
    d["rate_latex"] = rate.print(p.landau(), symbolic::Format::kLatex);
    d["eps_rate"] = rate.print();
    d["eps_rate_latex"] = rate.print(symbolic::Format::kLatex);
    d["rate_general"] = general.print(p.landau());
    d["rate_general_latex"] = general.print(p.landau(), symbolic::Format::kLatex);
    d["rate_general_condition"] = p.general_condition;
  }
  return d;
}

nlohmann::json derived_data(const Derived& d, const theorems::Catalogue& catalogue) {
  nlohmann::json out = nlohmann::json::array();
  for (const report::Derivation& x : d.derivations) {
    nlohmann::json j = report::to_json(x);
    if (x.plan) j["plan_rate"] = rates_json(*x.plan);
    j["smallest_rate"] = x.search.smallest ? rates_json(*x.search.smallest) : nlohmann::json();
    nlohmann::json depths = nlohmann::json::array();
    for (const theorems::Plan& p : x.search.per_depth) depths.push_back(rates_json(p));
    j["per_depth_rates"] = depths;
    j["latex_row"] = report::derivations_latex({x}, catalogue);
    out.push_back(std::move(j));
  }
  return out.size() == 1 ? out[0] : out;
}

}  // namespace infoflow::session
