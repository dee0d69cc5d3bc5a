// The engine: a target's programs, the catalogue's prices, and the plan of a target on one
// architecture (the pipeline's architecture stage).
#include "infoflow/theorems/engine.hpp"

#include <fmt/format.h>

#include "infoflow/core/progress.hpp"
#include "infoflow/symbolic/canonical.hpp"
#include "infoflow/targets/target_file.hpp"

#include "pipeline.hpp"

namespace infoflow::theorems {

Target::Target(std::string name_, targets::Formula formula_, targets::Bindings bindings_,
               std::string family_, bool is_family_, long token_dim_)
    : name(std::move(name_)),
      formula(std::move(formula_)),
      bindings(std::move(bindings_)),
      family(std::move(family_)),
      is_family(is_family_),
      token_dim(token_dim_) {
  core::progress::set("compiling target " + name + " (its values on random sequences)");
  try {
    detail::Readings readings =
        detail::compile_readings(detail::passes(), formula, bindings, token_dim);
    program = std::move(readings.first);
    alternative = std::move(readings.second);
  } catch (const InputError& e) {
    throw InputError("target " + name + ": " + e.message() +
                     (e.where().column > 0 ? fmt::format(" (column {})", e.where().column) : ""));
  }
}

Engine::Engine(const Catalogue& catalogue, CostModel costs, long node_cap)
    : catalogue_(catalogue), costs_(std::move(costs)), node_cap_(node_cap) {
  for (const std::string& id : {costs_.efficient, costs_.decoding, costs_.kth, costs_.mean}) {
    if (catalogue_.find(id) == nullptr) {
      throw InputError("the InfoFlow engine prices its steps by catalogue entry '" + id +
                       "', which this catalogue lacks");
    }
  }
}

GiNaC::ex Engine::exponent_of(const std::string& entry, const GiNaC::exmap& values) {
  std::string key = entry;
  for (const auto& [s, v] : values)
    key += "|" + symbolic::canonical(s) + "=" + symbolic::canonical(v);
  const auto hit = cache_.find(key);
  if (hit != cache_.end()) return hit->second;
  const GiNaC::ex a = catalogue_.find(entry)->rate.eps_exponent().subs(values).expand();
  cache_.emplace(key, a);
  return a;
}

Plan Engine::plan(const Target& target, const Architecture& arch) {
  arch.validate();
  detail::Planning state(detail::passes(), *this, target.program, arch, node_cap_,
                         target.alternative);
  detail::plan_with(state);
  return std::move(state.plan);
}

Target to_target(const targets::TargetSpec& spec) {
  return Target(spec.name, spec.formula, spec.set, spec.family, spec.same_as_family,
                spec.token_dim);
}

Architecture architecture_for(const targets::TargetSpec& spec, long embedding, long head_dim,
                              std::vector<long> heads) {
  Architecture a;
  a.heads = std::move(heads);
  a.embedding = embedding;
  a.token_dim = spec.token_dim;
  a.head_dim = head_dim;
  a.positional = core::encoding_for(spec.positional);
  a.validate();
  return a;
}

}  // namespace infoflow::theorems
