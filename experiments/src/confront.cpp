#include "confront.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <string>

#include <fmt/format.h>

#include "evidence.hpp"
#include "infoflow/numeric/fit.hpp"
#include "infoflow/symbolic/symbols.hpp"
#include "prediction.hpp"

namespace infoflow::experiments {

namespace {

/// What an entry says of an architecture, and why it says nothing (kUndecided).
struct Said {
  Efficiency claim = Efficiency::kUndecided;
  std::string reason;
};


bool holds(const GiNaC::ex& value, symbolic::RelOp op) {
  const GiNaC::numeric v = GiNaC::ex_to<GiNaC::numeric>(value);
  switch (op) {
    case symbolic::RelOp::kLess: return v < 0;
    case symbolic::RelOp::kLessEqual: return v <= 0;
    case symbolic::RelOp::kGreater: return v > 0;
    case symbolic::RelOp::kGreaterEqual: return v >= 0;
    case symbolic::RelOp::kEqual: return v == 0;
    case symbolic::RelOp::kNotEqual: return v != 0;
  }
  return false;
}

/// What `entry` says of a run's architecture, with the reason where it says nothing.
Said entry_claim(const theorems::Entry& entry, const RunConfig& run) {
  const symbolic::SymbolRegistry& reg = symbolic::SymbolRegistry::standard();
  const auto& heads = run.model.heads;
  long total = 0;
  for (const long h : heads) total += h;
  GiNaC::exmap at;
  at[reg.at("L").symbol] = static_cast<long>(heads.size());
  at[reg.at("h").symbol] = GiNaC::numeric(total, static_cast<long>(heads.size()));
  at[reg.seq_len()] = run.task.tokens;
  at[reg.at("d").symbol] = run.model.token_dim;
  at[reg.at("E").symbol] = run.model.embedding;
  at[reg.at("n").symbol] = run.model.head_dim;
  for (const auto& [name, value] : formula_of(run).second) {
    if (const symbolic::SymbolInfo* s = reg.find(name)) at[s->symbol] = value;
  }
  const symbolic::Domain domain = entry.domain();
  for (const symbolic::Constraint& c : domain.constraints()) {
    const GiNaC::ex value = c.expr.subs(at).normal();
    if (!GiNaC::is_a<GiNaC::numeric>(value)) {
      return {Efficiency::kUndecided, c.origin + " is not decided by the architecture"};
    }
    if (!holds(value, c.op)) return {Efficiency::kUndecided, c.origin + " fails"};
  }
  const bool grows = entry.rate.eps_exponent().has(reg.seq_len());
  if (entry.bounds_below() && grows) return {Efficiency::kNotEfficient, ""};
  if (entry.bounds_above() && !grows) return {Efficiency::kEfficient, ""};
  return {Efficiency::kUndecided, "its rate does not decide efficiency"};
}

bool efficient(theorems::Verdict v) { return v == theorems::Verdict::kEfficient; }

}  // namespace

std::vector<Confrontation> confront(const theorems::Entry& entry, const Cells& cells) {
  std::map<std::string, std::vector<const Cell*>> groups;
  for (const auto& [id, c] : cells)
    groups[labels_except(c.labels, {"heads", "heads_pattern", "L"})].push_back(&c);
  std::vector<Confrontation> out;
  for (const auto& [group, members] : groups) {
    std::map<const Cell*, Said> claims;
    double reference = std::numeric_limits<double>::infinity();
    std::string reference_missing = "no configuration that both call not efficient";
    for (const Cell* c : members) {
      claims[c] = entry_claim(entry, *c->run);
      if (efficient(c->plan->verdict) || claims[c].claim != Efficiency::kNotEfficient) continue;
      if (c->finished() < kMinSeeds || c->converged_count() < c->finished()) {
        reference_missing = "the reference " + c->labels.at("heads") +
                            " (both call it not efficient) has not converged on 3 seeds";
        continue;
      }
      reference = std::min(reference, numeric::median_of(c->nmse));
    }
    for (const Cell* c : members) {
      Confrontation row;
      row.group = group;
      row.panel = labels_except(c->labels, {"heads", "heads_pattern", "L", "T"});
      row.tokens = c->tokens;
      row.architecture = c->labels.at("heads");
      row.engine = theorems::to_text(c->plan->verdict);
      row.entry = claims[c].claim;
      row.entry_reason = claims[c].reason;
      row.seeds = static_cast<long>(c->finished());
      row.converged = static_cast<long>(c->converged_count());
      row.median = c->finished() > 0 ? numeric::median_of(c->nmse)
                                     : std::numeric_limits<double>::quiet_NaN();
      if (std::isfinite(reference)) row.reference = reference;
      if (c->finished() < kMinSeeds) {
        row.measured_reason = fmt::format("{} finished seed{} (3 needed)", c->finished(),
                                          c->finished() == 1 ? "" : "s");
      } else if (!std::isfinite(reference)) {
        row.measured_reason = reference_missing;
      } else if (std::log10(reference / row.median) >= kEfficientDecades) {
        row.measured = Efficiency::kEfficient;
      } else if (std::log10(reference / row.median) > kPhaseDecades) {
        row.measured_reason =
            fmt::format("{:.2f} decades below the reference {}, between the thresholds",
                        std::log10(reference / row.median), nmse_text(reference));
      } else if (row.converged < row.seeds) {
        row.measured_reason = fmt::format("not converged at this budget ({} of {} runs)",
                                          row.seeds - row.converged, row.seeds);
      } else {
        row.measured = Efficiency::kNotEfficient;
      }
      const bool measured_efficient = row.measured == Efficiency::kEfficient;
      const bool measured_not = row.measured == Efficiency::kNotEfficient;
      row.entry_contradicted = (row.entry == Efficiency::kNotEfficient && measured_efficient) ||
                               (row.entry == Efficiency::kEfficient && measured_not);
      row.engine_contradicted = (efficient(c->plan->verdict) && measured_not) ||
                                (!efficient(c->plan->verdict) && measured_efficient);
      out.push_back(row);
    }
  }
  return out;
}

}  // namespace infoflow::experiments
