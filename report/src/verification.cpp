#include "infoflow/report/verification.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "infoflow/core/error.hpp"
#include "infoflow/report/catalogue_report.hpp"
#include "infoflow/symbolic/canonical.hpp"
#include "infoflow/symbolic/symbols.hpp"

namespace infoflow::report {

namespace {

constexpr double kPhaseDecades = 0.5;  // the least gap that counts as a separation
constexpr double kSaturated = 0.5;     // a median NMSE this high has not learnt the target
constexpr std::size_t kMinSeeds = 3;      // the fewest runs a configuration's interval needs
constexpr std::size_t kMinFitPoints = 6;  // the fewest unsaturated points a slope needs

struct Cell {  // one configuration: its runs over seeds
  std::map<std::string, std::string> labels;
  std::vector<double> nmse;  ///< +inf for a diverged run
  std::vector<bool> converged;
  std::vector<bool> recorded;  ///< the run's record has its curve (false before it was stored)
  std::vector<double> theory_params;
  const theorems::Plan* plan = nullptr;
  const numeric::RunConfig* run = nullptr;  ///< the first seed's configuration
  long tokens = 0;
  [[nodiscard]] std::size_t finished() const {
    return static_cast<std::size_t>(
        std::count_if(nmse.begin(), nmse.end(), [](double x) { return std::isfinite(x); }));
  }
  [[nodiscard]] std::size_t converged_count() const {
    return static_cast<std::size_t>(std::count(converged.begin(), converged.end(), true));
  }
};

/// The first configuration with fewer than kMinSeeds finished runs, as a reason; "" if none.
std::string too_few_seeds(const std::vector<const Cell*>& cells) {
  for (const Cell* c : cells) {
    if (c->finished() < kMinSeeds) {
      return fmt::format(
          "too few seeds: {} finished run{} for {} (an interval needs at least {})", c->finished(),
          c->finished() == 1 ? "" : "s", c->labels.count("heads") ? c->labels.at("heads") : "a point",
          kMinSeeds);
    }
  }
  return "";
}

/// "" if every finished run of `cells` converged, else which did not, as a reason.
std::string not_converged(const std::vector<const Cell*>& cells, const std::string& side) {
  std::size_t runs = 0;
  std::size_t converged = 0;
  std::size_t unrecorded = 0;
  for (const Cell* c : cells) {
    runs += c->finished();
    converged += c->converged_count();
    for (std::size_t i = 0; i < c->nmse.size(); ++i)
      unrecorded += std::isfinite(c->nmse[i]) && !c->recorded[i] ? 1 : 0;
  }
  if (converged >= runs) return "";
  return fmt::format(
      "not converged at this budget: {} of {} runs {} did not pass the plateau test{}, and a "
      "high NMSE counts only from converged runs",
      runs - converged, runs, side,
      unrecorded == 0 ? ""
                      : fmt::format(" ({} of them predate the convergence record: unknown)",
                                    unrecorded));
}

Claim gap_claim(const std::string& group, const std::string& prediction,
                const std::vector<const Cell*>& good_cells,
                const std::vector<const Cell*>& bad_cells, const std::string& medians) {
  std::vector<std::vector<double>> good;
  std::vector<std::vector<double>> bad;
  for (const Cell* c : good_cells) good.push_back(c->nmse);
  for (const Cell* c : bad_cells) bad.push_back(c->nmse);
  Claim claim;
  claim.group = group;
  claim.prediction = prediction;
  try {
    const numeric::Gap gap = numeric::log_gap(good, bad);
    claim.measured = fmt::format("gap {:.2f} decades [{:.2f}, {:.2f}]; median NMSE {}", gap.decades,
                                 gap.ci.low, gap.ci.high, medians);
    claim.verdict = gap.ci.low > kPhaseDecades ? Agreement::kAgrees
                    : gap.ci.high < 0          ? Agreement::kDisagrees
                                               : Agreement::kInconclusive;
    claim.why = claim.verdict == Agreement::kAgrees
                    ? fmt::format("the gap's interval lies above {} decade", kPhaseDecades)
                : claim.verdict == Agreement::kDisagrees
                    ? "the configurations predicted inefficient do better"
                    : fmt::format("the gap's interval reaches below {} decade", kPhaseDecades);
    // A low NMSE supports "efficient" from any run; a high one supports "not efficient" only
    // from converged runs (agreeing needs the inefficient side converged, disagreeing the
    // efficient side).
    const std::string unconverged =
        claim.verdict == Agreement::kAgrees
            ? not_converged(bad_cells, "of the configurations predicted inefficient")
        : claim.verdict == Agreement::kDisagrees
            ? not_converged(good_cells, "of the configurations predicted efficient")
            : "";
    std::vector<const Cell*> all = good_cells;
    all.insert(all.end(), bad_cells.begin(), bad_cells.end());
    const std::string few = too_few_seeds(all);
    if (!few.empty() || !unconverged.empty()) {
      claim.verdict = Agreement::kInconclusive;
      claim.why = !few.empty() ? few : unconverged;
    }
  } catch (const std::invalid_argument&) {
    claim.measured = "no finished run on one side";
    claim.why = "not enough data";
  }
  return claim;
}

/// A run's target as a formula with its integers (a built-in task's own formula).
std::pair<std::string, targets::Bindings> formula_of(const numeric::RunConfig& run) {
  if (!run.formula.empty()) return {run.formula, run.bindings};
  const numeric::TaskFormula f = numeric::formula_of(run.task);
  return {f.text, f.bindings};
}

/// The engine's plan for a run's configuration.
theorems::Plan predict(const numeric::RunConfig& run, theorems::Engine& engine) {
  const auto [text, bindings] = formula_of(run);
  const theorems::Target target(run.experiment, targets::Formula::parse(text), bindings,
                                "retrieval");
  theorems::Architecture a;
  a.heads.assign(run.model.heads.begin(), run.model.heads.end());
  a.embedding = run.model.embedding;
  a.token_dim = run.model.token_dim;
  a.head_dim = run.model.head_dim;
  a.positional = run.model.positional != numeric::PositionalEncoding::kNone;
  return engine.plan(target, a);
}

/// The plan's exponent of 1/eps at the run's T.
double exponent_at(const theorems::Plan& p, long tokens) {
  const GiNaC::ex value =
      p.exponent.subs(symbolic::SymbolRegistry::standard().seq_len() == tokens).evalf();
  return GiNaC::is_a<GiNaC::numeric>(value) ? GiNaC::ex_to<GiNaC::numeric>(value).to_double()
                                            : std::numeric_limits<double>::quiet_NaN();
}

std::string labels_except(const std::map<std::string, std::string>& labels,
                          const std::set<std::string>& skip) {
  std::string out;
  for (const auto& [k, v] : labels) {
    if (skip.count(k) == 0) out += (out.empty() ? "" : ", ") + k + " = " + v;
  }
  return out.empty() ? "all runs" : out;
}

double as_number(const std::string& s) {
  try {
    return std::stod(s);
  } catch (const std::exception&) {
    return std::numeric_limits<double>::quiet_NaN();
  }
}

Series series_from(const std::string& name, std::vector<std::pair<double, const Cell*>> points) {
  std::sort(points.begin(), points.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  Series s;
  s.name = name;
  for (const auto& [x, c] : points) {
    std::vector<double> v;
    for (const double y : c->nmse) {
      if (std::isfinite(y) && y > 0) v.push_back(y);
    }
    if (v.empty()) continue;
    s.x.push_back(x);
    s.median.push_back(numeric::median_of(v));
    s.low.push_back(*std::min_element(v.begin(), v.end()));
    s.high.push_back(*std::max_element(v.begin(), v.end()));
  }
  return s;
}

std::string sci(double x) {
  return std::isfinite(x) ? fmt::format("{:.2e}", x) : "n/a";
}

constexpr double kEfficientDecades = 1.0;  // measured efficient: this far below the reference

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

/// What `entry` says of a run's architecture: "not efficient", "efficient", or "no claim (why)".
std::string entry_claim(const theorems::Entry& entry, const numeric::RunConfig& run) {
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
      return "no claim (" + c.origin + " is not decided by the architecture)";
    }
    if (!holds(value, c.op)) return "no claim (" + c.origin + " fails)";
  }
  const bool grows = entry.rate.eps_exponent().has(reg.seq_len());
  if (entry.bounds_below() && grows) return "not efficient";
  if (entry.bounds_above() && !grows) return "efficient";
  return "no claim (its rate does not decide efficiency)";
}

bool efficient(theorems::Verdict v) { return v == theorems::Verdict::kEfficient; }

/// Every architecture of the cells beside the engine, the entry and the measurement (the rule
/// is in verification.hpp).
std::vector<Confrontation> confront(const theorems::Entry& entry,
                                    const std::map<std::string, Cell>& cells) {
  std::map<std::string, std::vector<const Cell*>> groups;
  for (const auto& [id, c] : cells)
    groups[labels_except(c.labels, {"heads", "heads_pattern", "L"})].push_back(&c);
  std::vector<Confrontation> out;
  for (const auto& [group, members] : groups) {
    std::map<const Cell*, std::string> claims;
    double reference = std::numeric_limits<double>::infinity();
    std::string reference_missing = "no configuration that both call not efficient";
    for (const Cell* c : members) {
      claims[c] = entry_claim(entry, *c->run);
      if (efficient(c->plan->verdict) || claims[c] != "not efficient") continue;
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
      row.entry = claims[c];
      row.seeds = static_cast<long>(c->finished());
      row.converged = static_cast<long>(c->converged_count());
      row.median = c->finished() > 0 ? numeric::median_of(c->nmse)
                                     : std::numeric_limits<double>::quiet_NaN();
      if (c->finished() < kMinSeeds) {
        row.measured = fmt::format("inconclusive: {} finished seed{} (3 needed)", c->finished(),
                                   c->finished() == 1 ? "" : "s");
      } else if (!std::isfinite(reference)) {
        row.measured = "inconclusive: " + reference_missing;
      } else if (std::log10(reference / row.median) >= kEfficientDecades) {
        row.measured = "efficient";
      } else if (std::log10(reference / row.median) > kPhaseDecades) {
        row.measured = fmt::format(
            "inconclusive: {:.2f} decades below the reference {}, between the thresholds",
            std::log10(reference / row.median), sci(reference));
      } else if (row.converged < row.seeds) {
        row.measured = fmt::format("inconclusive: not converged at this budget ({} of {} runs)",
                                   row.seeds - row.converged, row.seeds);
      } else {
        row.measured = "not efficient";
      }
      const bool measured_efficient = row.measured == "efficient";
      const bool measured_not = row.measured == "not efficient";
      row.entry_contradicted = (row.entry == "not efficient" && measured_efficient) ||
                               (row.entry == "efficient" && measured_not);
      row.engine_contradicted = (efficient(c->plan->verdict) && measured_not) ||
                                (!efficient(c->plan->verdict) && measured_efficient);
      out.push_back(row);
    }
  }
  return out;
}

}  // namespace

std::string to_text(Agreement a) {
  switch (a) {
    case Agreement::kAgrees:
      return "agrees";
    case Agreement::kDisagrees:
      return "disagrees";
    case Agreement::kInconclusive:
      return "inconclusive";
  }
  return "";
}

ExperimentResult verify(const numeric::ExperimentSpec& spec, const std::string& profile,
                        const std::vector<numeric::RunRecord>& records, theorems::Engine& engine) {
  ExperimentResult out;
  out.name = spec.name;
  out.title = spec.title;
  out.claim_kind = spec.claim;
  out.profile = profile;
  const std::vector<numeric::RunConfig> runs = spec.runs(profile);
  std::map<std::string, const numeric::RunRecord*> by_key;
  for (const numeric::RunRecord& r : records) by_key[r.key] = &r;

  // Configurations: runs that differ only by seed.
  std::map<std::string, Cell> cells;
  std::map<std::string, theorems::Plan> plans;
  long missing = 0;
  long diverged = 0;
  for (const numeric::RunConfig& run : runs) {
    std::map<std::string, std::string> labels = run.labels;
    labels.erase("seed");
    const std::string id = labels_except(labels, {});
    Cell& cell = cells[id];
    cell.labels = labels;
    cell.tokens = run.task.tokens;
    if (cell.run == nullptr) cell.run = &run;
    if (plans.count(id) == 0) plans.emplace(id, predict(run, engine));
    cell.plan = &plans.at(id);
    RunRow row;
    row.labels = run.labels;
    row.tokens = run.task.tokens;
    row.predicted_verdict = theorems::to_text(cell.plan->verdict);
    row.predicted_rate = cell.plan->priced() ? cell.plan->rate().print(symbolic::Landau::kBigO)
                                             : theorems::to_text(cell.plan->verdict);
    const auto hit = by_key.find(run.key);
    if (hit == by_key.end()) {
      ++missing;
    } else {
      const numeric::RunRecord& r = *hit->second;
      row.status = std::string(numeric::to_string(r.status));
      row.best_nmse = r.best_validation_nmse;
      row.parameters = r.parameters;
      row.parameters_theory = r.parameters_theory;
      row.seconds = r.seconds;
      out.run_seconds += r.seconds;
      const bool lost = r.status == numeric::RunStatus::kDiverged;
      if (lost) ++diverged;
      cell.nmse.push_back(lost ? std::numeric_limits<double>::infinity()
                                                 : r.best_validation_nmse);
      cell.converged.push_back(r.converged());
      cell.recorded.push_back(!r.curve.empty());
      if (!lost && !r.converged() && !r.curve.empty())
        out.curves.push_back({labels_except(run.labels, {"heads_pattern"}), r.curve});
      cell.theory_params.push_back(static_cast<double>(r.parameters_theory));
    }
    out.rows.push_back(row);
  }
  if (missing > 0) {
    out.notes.push_back(fmt::format("{} of {} runs have no result yet (run `infoflow sweep {}`)",
                                    missing, runs.size(), spec.file.string()));
  }
  if (diverged > 0)
    out.notes.push_back(
        fmt::format("{} runs diverged; they are left out of the statistics", diverged));

  if (spec.claim == "heads_phase") {
    const std::string arm = spec.arm.empty() ? "heads" : spec.arm;
    const std::string series_key = arm == "heads" ? "heads_pattern" : arm;
    out.x_label = spec.group.empty() ? "configuration" : spec.group;
    out.log_x = false;
    std::map<std::string, std::vector<const Cell*>> groups;
    for (const auto& [id, c] : cells)
      groups[labels_except(c.labels, {arm, "heads", "heads_pattern", "L"})].push_back(&c);
    for (const auto& [group, members] : groups) {
      std::vector<const Cell*> good;
      std::vector<const Cell*> bad;
      std::string good_names;
      std::string bad_names;
      std::string medians;
      for (const Cell* c : members) {
        const bool efficient = c->plan->verdict == theorems::Verdict::kEfficient;
        (efficient ? good : bad).push_back(c);
        (efficient ? good_names : bad_names) +=
            (efficient ? good_names : bad_names).empty() ? "" : ", ";
        const std::string name = arm == "heads" || c->labels.count(arm) == 0
                                     ? c->labels.at("heads")
                                     : arm + " " + c->labels.at(arm);
        (efficient ? good_names : bad_names) += name;
        medians += fmt::format("{}{} {}", medians.empty() ? "" : "; ", name,
                               sci(numeric::median_of(c->nmse)));
      }
      Claim claim;
      claim.group = group;
      if (good.empty() || bad.empty()) {
        claim.prediction = good.empty() ? "no configuration here is efficient"
                                        : "every configuration here is efficient";
        claim.measured = "median NMSE " + medians;
        claim.why = "the engine predicts no transition in this group, so there is no gap to test";
        out.claims.push_back(claim);
        continue;
      }
      claim = gap_claim(group,
                        fmt::format("{} efficient, {} not: the efficient ones reach a lower NMSE",
                                    good_names, bad_names),
                        good, bad, medians);
      // Where the measured transition lies, along configurations ordered by their heads.
      std::vector<const Cell*> ordered = members;
      std::sort(ordered.begin(), ordered.end(), [](const Cell* x, const Cell* y) {
        const auto total = [](const Cell* c) {
          long t = 0;
          for (const char ch : c->labels.at("heads"))
            t += std::isdigit(static_cast<unsigned char>(ch)) ? ch - '0' : 0;
          return t;
        };
        return std::make_pair(total(x), x->labels.at("heads")) <
               std::make_pair(total(y), y->labels.at("heads"));
      });
      std::vector<std::vector<double>> levels;
      for (const Cell* c : ordered) levels.push_back(c->nmse);
      try {
        const numeric::Transition t = numeric::locate_transition(levels);
        claim.measured += fmt::format(
            "; largest drop {:.2f} decades [{:.2f}, {:.2f}] from {} to {}", t.decades, t.ci.low,
            t.ci.high, ordered[t.from]->labels.at("heads"), ordered[t.at]->labels.at("heads"));
      } catch (const std::invalid_argument&) {
        // fewer than two configurations with results: the gap claim says so already
      }
      out.claims.push_back(claim);
    }
    std::map<std::string, std::vector<std::pair<double, const Cell*>>> lines;
    for (const auto& [id, c] : cells) {
      const std::string name =
          c.labels.count(series_key) ? c.labels.at(series_key) : c.labels.at("heads");
      const double x = spec.group.empty() || !c.labels.count(spec.group)
                           ? 0.0
                           : as_number(c.labels.at(spec.group));
      lines[name].emplace_back(x, &c);
    }
    for (auto& [name, points] : lines) out.series.push_back(series_from("heads " + name, points));
  } else {
    const bool exponent = spec.claim == "exponent";
    const std::string xkey = exponent ? (spec.arm.empty() ? "ffn_width" : spec.arm) : "T";
    out.x_label = exponent ? "parameters M (encoder + FFN + readout)" : "T";
    std::map<std::string, std::vector<const Cell*>> lines;
    for (const auto& [id, c] : cells)
      lines[labels_except(c.labels, {xkey, "heads_pattern"})].push_back(&c);
    for (const auto& [line, members] : lines) {
      std::vector<double> xs;
      std::vector<std::vector<double>> ys;
      std::vector<std::pair<double, const Cell*>> points;
      std::vector<const Cell*> fitted;  // points outside saturation: shown and fitted
      for (const Cell* c : members) {
        const double x = exponent ? (c->theory_params.empty() ? 0.0 : c->theory_params.front())
                                  : as_number(c->labels.count(xkey) ? c->labels.at(xkey)
                                                                    : std::to_string(c->tokens));
        points.emplace_back(x, c);
        if (c->finished() == 0 || numeric::median_of(c->nmse) >= kSaturated) continue;
        xs.push_back(x);
        ys.push_back(c->nmse);
        fitted.push_back(c);
      }
      Series s = series_from(line, points);
      Claim claim;
      claim.group = line;
      const theorems::Plan& plan = *members.front()->plan;
      const std::string rate = plan.priced() ? plan.rate().print(symbolic::Landau::kBigO)
                                             : "no rate (" + plan.reason + ")";
      try {
        if (!exponent) {
          const bool efficient = plan.verdict == theorems::Verdict::kEfficient;
          claim.prediction =
              fmt::format("{} ({}): NMSE {} in T", rate, theorems::to_text(plan.verdict),
                          efficient ? "does not grow" : "grows");
          const numeric::GrowthTest g = numeric::classify_growth(xs, ys, "T");
          claim.measured = numeric::to_text(g.growth) + ": " + g.evidence;
          s.has_fit = true;
          s.fit = g.fit;
          const bool grows = g.growth == numeric::Growth::kGrowing;
          const bool stays =
              g.growth == numeric::Growth::kFlat || g.growth == numeric::Growth::kFalling;
          claim.verdict = g.growth == numeric::Growth::kInconclusive ? Agreement::kInconclusive
                          : (efficient ? stays : grows)              ? Agreement::kAgrees
                                                                     : Agreement::kDisagrees;
          claim.why = claim.verdict == Agreement::kInconclusive
                          ? "the slope's interval straddles a class boundary"
                      : claim.verdict == Agreement::kAgrees
                          ? "the measured growth class is the predicted one"
                          : "the measured growth class is the opposite of the prediction";
          if (!s.median.empty() && s.median.front() >= kSaturated) {
            claim.verdict = Agreement::kInconclusive;
            claim.why = fmt::format(
                "saturated: the median NMSE is {:.2f} already at T = {:g}; at this budget the "
                "network "
                "does not learn the target, so its growth in T cannot be measured",
                s.median.front(), s.x.front());
          }
          // Growth or flatness in T needs converged runs at every T.
          const std::string unconverged = not_converged(members, "of this line");
          if (claim.verdict != Agreement::kInconclusive && !unconverged.empty()) {
            claim.verdict = Agreement::kInconclusive;
            claim.why = unconverged;
          }
        } else {
          const double a = exponent_at(plan, members.front()->tokens);
          s.predicted_slope = -2.0 / a;
          const numeric::PowerLawFit f = numeric::fit_power_law(xs, ys);
          s.has_fit = true;
          s.fit = f;
          claim.prediction = fmt::format("{} at T = {}: NMSE ~ M^({:.2f})", rate,
                                         members.front()->tokens, s.predicted_slope);
          claim.measured = fmt::format(
              "slope {:.2f} [{:.2f}, {:.2f}] (Theil-Sen {:.2f}) over M = {:g}..{:g}, {} points, up "
              "to {} seeds",
              f.slope, f.slope_ci.low, f.slope_ci.high, f.robust_slope, f.x_min, f.x_max, f.points,
              f.seeds);
          // The rate is an upper bound on M: NMSE must fall at least as fast as M^(-2/a).
          claim.verdict =
              f.slope_ci.low <= s.predicted_slope ? Agreement::kAgrees : Agreement::kDisagrees;
          claim.why = f.slope_ci.contains(s.predicted_slope)
                          ? "the predicted slope lies in the interval: the bound is tight here"
                      : claim.verdict == Agreement::kAgrees
                          ? fmt::format(
                                "NMSE falls faster than the bound's M^({:.2f}): the bound holds "
                                "and is not tight for "
                                "this target",
                                s.predicted_slope)
                          : fmt::format(
                                "NMSE falls slower than the bound's M^({:.2f}) allows (training "
                                "adds optimisation "
                                "error, which a longer run may reduce)",
                                s.predicted_slope);
          // Too shallow a fall counts only from converged runs.
          if (claim.verdict == Agreement::kDisagrees &&
              !not_converged(fitted, "of the fitted points").empty()) {
            claim.verdict = Agreement::kInconclusive;
            claim.why = not_converged(fitted, "of the fitted points");
          }
        }
      } catch (const std::invalid_argument&) {
        claim.measured = "fewer than two points outside saturation";
        claim.why = !s.median.empty() && s.median.front() >= kSaturated
                        ? fmt::format(
                              "saturated: the median NMSE is {:.2f} already at {} = {:g}; at this "
                              "budget the network does not learn the target",
                              s.median.front(), exponent ? "M" : "T", s.x.front())
                        : fmt::format(
                              "only {} point{} outside saturation (median NMSE < {}); a slope "
                              "needs at least {}",
                              fitted.size(), fitted.size() == 1 ? "" : "s", kSaturated,
                              kMinFitPoints);
      }
      // A slope needs enough unsaturated points, each with enough seeds.
      const std::string few = too_few_seeds(fitted);
      if (claim.verdict != Agreement::kInconclusive &&
          (fitted.size() < kMinFitPoints || !few.empty())) {
        claim.verdict = Agreement::kInconclusive;
        claim.why = !few.empty() ? few
                                 : fmt::format(
                                       "only {} points outside saturation (median NMSE < {}); a "
                                       "slope needs at least {}",
                                       fitted.size(), kSaturated, kMinFitPoints);
      }
      out.claims.push_back(claim);
      out.series.push_back(s);
    }
    if (!exponent) {  // arms predicted differently: compare them at the largest T
      std::vector<const Cell*> good;
      std::vector<const Cell*> bad;
      std::string good_names;
      std::string bad_names;
      std::string medians;
      double largest = 0;
      for (const auto& [line, members] : lines) {
        for (const Cell* c : members) largest = std::max(largest, static_cast<double>(c->tokens));
      }
      for (const auto& [line, members] : lines) {
        for (const Cell* c : members) {
          if (static_cast<double>(c->tokens) != largest) continue;
          const bool efficient = c->plan->verdict == theorems::Verdict::kEfficient;
          (efficient ? good : bad).push_back(c);
          std::string& names = efficient ? good_names : bad_names;
          names += (names.empty() ? "" : "; ") + line;
          medians += fmt::format("{}{}: {}", medians.empty() ? "" : "; ", line,
                                 sci(numeric::median_of(c->nmse)));
        }
      }
      if (!good.empty() && !bad.empty()) {
        out.claims.push_back(
            gap_claim(fmt::format("at T = {:g}", largest),
                      fmt::format("efficient ({}) reaches a lower NMSE than not efficient ({})",
                                  good_names, bad_names),
                      good, bad, medians));
      }
    }
  }
  if (!spec.confront.empty()) {
    const theorems::Entry* entry = engine.catalogue().find(spec.confront);
    if (entry == nullptr) {
      throw InputError(spec.confront_at,
                       "experiment: confront names no catalogue entry '" + spec.confront + "'");
    }
    std::string statement;
    for (const theorems::WrittenRelation& h : entry->hypotheses)
      statement += (statement.empty() ? "" : ", ") + symbolic::to_text(h.relation);
    const std::string provenance = theorems::to_text(entry->provenance);
    out.confronted = fmt::format("{} ({}): {} {}", entry->id,
                                 entry->source == provenance ? provenance
                                                             : provenance + ", " + entry->source,
                                 statement.empty() ? "always" : "where " + statement,
                                 entry->rate.print(entry->kind == theorems::Kind::kLower
                                                       ? symbolic::Landau::kOmega
                                                       : symbolic::Landau::kBigO));
    std::string hypotheses;
    for (const theorems::WrittenRelation& h : entry->hypotheses)
      hypotheses += (hypotheses.empty() ? "$" : ", $") + symbolic::to_latex(h.relation) + "$";
    out.confronted_latex =
        fmt::format("{} ({}): ${}$ {}", latex_identifier(entry->id),
                    latex_escape(entry->source == provenance ? provenance
                                                             : provenance + ", " + entry->source),
                    bound_latex(*entry), hypotheses.empty() ? "always" : "where " + hypotheses);
    out.confrontations = confront(*entry, cells);
  }
  return out;
}

std::string verification_text(const ExperimentResult& r) {
  std::string out =
      fmt::format("{} ({}, profile {}): {}\n", r.name, r.claim_kind, r.profile, r.title);
  for (const Claim& c : r.claims) {
    out += fmt::format("  [{}] {}\n    predicted: {}\n    measured:  {}\n    why:       {}\n",
                       to_text(c.verdict), c.group, c.prediction, c.measured, c.why);
    if (!c.cross_check.empty()) out += "    BUT:       " + c.cross_check + "\n";
  }
  if (!r.reported.empty()) {
    out += "  reported by the paper (" + r.reported_source + ") against ours (min / median over "
           "seeds):\n";
    for (const PaperComparison& c : r.reported) {
      out += fmt::format("    {}: paper {}, ours {} / {} ({} runs, {} converged), ratio {}\n",
                         c.configuration, sci(c.paper), sci(c.ours_min), sci(c.ours_median),
                         c.seeds, c.converged, ratio_text(c));
    }
  }
  if (!r.confrontations.empty()) {
    out += "  architecture by architecture, against " + r.confronted + ":\n";
    out += fmt::format("    {:<16} {:<9} {:<18} {:<16} {:>9} {:>5}  {}\n", "group", "heads",
                       "engine", "entry", "median", "conv", "measured");
    for (const Confrontation& c : r.confrontations) {
      std::string mark;
      if (c.entry_contradicted) mark += "  <- entry contradicted";
      if (c.engine_contradicted) mark += "  <- ENGINE contradicted";
      out += fmt::format("    {:<16} {:<9} {:<18} {:<16} {:>9} {:>2}/{:<2}  {}{}\n", c.group,
                         c.architecture, c.engine,
                         c.entry.rfind("no claim", 0) == 0 ? std::string("no claim") : c.entry,
                         sci(c.median), c.converged, c.seeds, c.measured, mark);
    }
  }
  for (const std::string& n : r.notes) out += "  note: " + n + "\n";
  return out;
}

namespace {

/// A claim's group as label values: "D = 4, T = 16" -> {D: 4, T: 16}; "all runs" -> {}.
std::map<std::string, std::string> group_labels(const std::string& group) {
  std::map<std::string, std::string> out;
  if (group == "all runs") return out;
  std::size_t at = 0;
  while (at < group.size()) {
    const std::size_t end = std::min(group.find(", ", at), group.size());
    const std::string pair = group.substr(at, end - at);
    const std::size_t eq = pair.find(" = ");
    if (eq != std::string::npos) out[pair.substr(0, eq)] = pair.substr(eq + 3);
    at = end + 2;
  }
  return out;
}

/// Whether `other`'s group is the same configurations as `mine`: the same labels, or more,
/// where the extra one is T and every run of `mine` has that T (a profile that varies T
/// against one that fixes it).
bool same_configurations(const std::string& mine, const std::string& other,
                         const std::vector<RunRow>& my_rows) {
  const std::map<std::string, std::string> a = group_labels(mine);
  const std::map<std::string, std::string> b = group_labels(other);
  for (const auto& [k, v] : b) {
    const auto it = a.find(k);
    if (it != a.end()) {
      if (it->second != v) return false;
      continue;
    }
    if (k != "T") return false;
    bool any = false;  // no run of mine: nothing says which T they are
    for (const RunRow& row : my_rows) {
      const bool member = std::all_of(a.begin(), a.end(), [&](const auto& kv) {
        const auto l = row.labels.find(kv.first);
        return l != row.labels.end() && l->second == kv.second;
      });
      if (member && std::to_string(row.tokens) != v) return false;
      any = any || member;
    }
    if (!any) return false;
  }
  return std::all_of(a.begin(), a.end(), [&](const auto& kv) { return b.count(kv.first) != 0; });
}

}  // namespace

void cross_check(ExperimentResult& r, const ExperimentResult& other) {
  for (Claim& c : r.claims) {
    for (const Claim& o : other.claims) {
      if (!same_configurations(c.group, o.group, r.rows) || o.verdict == c.verdict) continue;
      c.cross_check = fmt::format("the {} profile's results say: {} ({}; {})", other.profile,
                                  to_text(o.verdict), o.measured, o.why);
    }
  }
}

std::string ratio_text(const PaperComparison& c) {
  return c.seeds > 0 ? fmt::format("{:.3g}", c.ours_min / c.paper) : "n/a";
}

}  // namespace infoflow::report
