// Derived entries: a plan's rate as a catalogue entry of provenance `derived`, for the
// target's own task family; and every target file's bounds added to a catalogue.
#include "infoflow/theorems/engine.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "infoflow/symbolic/canonical.hpp"
#include "infoflow/symbolic/symbols.hpp"
#include "infoflow/targets/target_file.hpp"

namespace infoflow::theorems {

Entry Engine::derived_entry(const Target& target, const Plan& plan) const {
  if (!plan.priced()) {
    throw InputError("target " + target.name + " on " + plan.architecture.heads_text() +
                     " has no rate to derive: " + to_text(plan.verdict) + " (" + plan.reason + ")");
  }
  const Architecture& a = plan.architecture;
  Entry e;
  e.id = fmt::format("derived.{}.L{}.h{}.E{}{}", target.name, a.layers(), fmt::join(a.heads, "-"),
                     a.embedding, a.encodes_positions() ? ".pe" : "");
  e.paper = "derived";
  e.source = "infoflow derive (" + a.text() + ")";
  e.provenance = Provenance::kDerived;
  e.kind = plan.kind;  // a lower bound where the plan rests on one (Theorem 2)
  e.quantity = "M";
  e.task = derived_family(target).id;
  const SourceLocation where{"derived:" + target.name, 1, 1};
  e.where = where;
  auto relate = [&](const std::string& text, const std::string& field) {
    for (symbolic::Relation& r : symbolic::parse_relations(text, where)) {
      e.setting.push_back(WrittenRelation{std::move(r), field, where});
    }
  };
  relate("L == " + std::to_string(a.layers()), "depth");
  const bool uniform =
      std::all_of(a.heads.begin(), a.heads.end(), [&](long h) { return h == a.heads.front(); });
  if (uniform) relate("h == " + std::to_string(a.heads.front()), "heads");
  relate("E == " + std::to_string(a.embedding), "constraints");
  relate("d == " + std::to_string(a.token_dim), "constraints");
  bool uniform_n = true;
  for (long l = 0; l < a.layers(); ++l)
    uniform_n = uniform_n && a.head_dim_of(l) == a.head_dim_of(0);
  if (uniform_n) relate("n == " + std::to_string(a.head_dim_of(0)), "constraints");
  for (const auto& [name, value] : target.bindings) {
    const symbolic::SymbolInfo* s = symbolic::SymbolRegistry::standard().find(name);
    if (name != "T" && s != nullptr && s->role == symbolic::Role::kProblem) {
      relate(name + " == " + std::to_string(value), "constraints");
    }
  }
  const std::string rate = "eps^(-(" + symbolic::canonical(plan.exponent) + "))";
  e.rate_written = symbolic::parse_expression(rate, where);
  e.rate = symbolic::Rate::from_ex(symbolic::to_ex(e.rate_written), where);
  e.notes = fmt::format("{} for {} = {}; {}; dominant: {}; elimination: {}{}", to_text(plan.verdict),
                        target.name, targets::to_text(target.formula.root()), a.text(),
                        plan.dominant,
                        target.program->quantities.empty() ? "none"
                                                           : target.program->elimination_text(),
                        uniform ? "" : " (heads differ per layer; the setting records L, E, d, n only)");
  e.derived_from = plan.entries;
  return e;
}

TaskFamily Engine::derived_family(const Target& target) {
  if (target.is_family) return TaskFamily{target.family, "", ""};
  return TaskFamily{"target." + target.name, target.family,
                    targets::to_text(target.formula.root())};
}

void Engine::add_derived(Catalogue& catalogue, const Target& target, const Plan& plan) const {
  if (catalogue.find_task(target.family) == nullptr) {
    throw InputError("target " + target.name + ": no task family '" + target.family +
                     "' in the catalogue");
  }
  const TaskFamily family = derived_family(target);
  if (catalogue.find_task(family.id) == nullptr) catalogue.add_task(family);
  catalogue.add(derived_entry(target, plan));
}

void add_derived_bounds(Catalogue& catalogue, const std::vector<std::string>& target_files) {
  if (target_files.empty()) return;
  // Plans are priced by the catalogue as loaded; the derived entries join it afterwards.
  const Catalogue loaded = catalogue;
  Engine engine(loaded);
  for (const std::string& file : target_files) {
    for (const targets::TargetSpec& spec : targets::load_targets(file)) {
      const Target target = to_target(spec);
      for (const std::vector<long>& heads : spec.architectures) {
        Architecture a;
        a.heads = heads;
        a.embedding = spec.embedding;
        a.token_dim = spec.token_dim;
        a.positional = core::encoding_for(spec.positional);
        try {
          engine.add_derived(catalogue, target, engine.plan(target, a));
        } catch (const InputError& e) {
          throw InputError(
              spec.where, "target " + spec.name + ", heads " + a.heads_text() + ": " + e.message());
        }
      }
    }
  }
}

}  // namespace infoflow::theorems
