#include "infoflow/experiments/constructed.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "infoflow/numeric/fit.hpp"
#include "infoflow/targets/target_file.hpp"

#include "cells.hpp"
#include "confront.hpp"
#include "prediction.hpp"

namespace infoflow::experiments {

namespace {

/// The run's target as construct reads it: its formula, integers, token dimension, inputs.
targets::TargetSpec target_of(const RunConfig& run) {
  const auto [text, bindings] = formula_of(run);
  targets::TargetSpec t;
  t.name = run.experiment;
  t.formula = targets::Formula::parse(text);
  t.set = bindings;
  t.token_dim = run.model.token_dim;
  t.variance = run.inputs.variance;
  t.min_norm = run.inputs.min_norm;
  t.max_norm = run.inputs.max_norm;
  if (run.formula.empty()) {  // a built-in task draws its inputs as its entry says
    for (const targets::TargetSpec& b : targets::builtin_targets()) {
      if (b.task && b.name == run.task.name) {
        t.variance = b.variance;
        t.min_norm = b.min_norm;
        t.max_norm = b.max_norm;
      }
    }
  }
  t.positional = run.model.encodes_positions();
  return t;
}

ConstructedCell build(const RunConfig& run, theorems::Engine& engine,
                      construct::ConstructOptions options) {
  ConstructedCell c;
  c.labels = run.labels;
  c.labels.erase("seed");
  c.tokens = run.task.tokens;
  c.ffn_width = run.model.ffn_width;
  c.readout_width = run.model.readout_width;
  options.ffn_width = run.model.ffn_width;
  options.readout_width = run.model.readout_width;
  options.encoder_width = run.model.encoder_width;  // at the runs' size, as the other widths
  options.task_seed = run.task.seed;
  const construct::Construction built =
      construct::construct(target_of(run), predict(run, engine), options);
  c.built = built.built;
  c.failure = built.built ? "" : construct::to_text(built.status.shortfall) + ": " + built.failure;
  c.nmse = built.nmse;
  c.parameters = built.counts.theory();
  if (c.built && run.model.positional == numeric::PositionalEncoding::kSinusoidal)
    c.failure = "built with a learned positional table in place of the runs' sinusoidal one";
  return c;
}

bool in(const std::map<std::string, std::string>& labels,
        const std::map<std::string, std::string>& group) {
  for (const auto& [k, v] : group) {
    const auto it = labels.find(k);
    if (it == labels.end() || it->second != v) return false;
  }
  return true;
}

/// A configuration's labels beyond the group's ("" when it has none).
std::string where(const ConstructedCell& c, const std::map<std::string, std::string>& group) {
  std::set<std::string> skip;
  for (const auto& [k, v] : group) skip.insert(k);
  const std::string text = labels_except(c.labels, skip);
  return text == "all runs" ? "" : text;
}

/// Configurations named by their labels beyond the group's, each label's values once: the
/// varying ones listed ("T = 4, 8, 16"), the others after them in parentheses.
std::string values_text(const std::vector<const ConstructedCell*>& cells,
                        const std::map<std::string, std::string>& group) {
  std::map<std::string, std::vector<std::string>> values;
  for (const ConstructedCell* c : cells) {
    for (const auto& [k, v] : c->labels) {
      std::vector<std::string>& seen = values[k];
      if (group.count(k) == 0 && std::find(seen.begin(), seen.end(), v) == seen.end())
        seen.push_back(v);
    }
  }
  std::vector<std::string> varying;
  std::vector<std::string> fixed;
  for (const auto& [k, vs] : values) {
    if (vs.empty()) continue;
    (vs.size() > 1 ? varying : fixed).push_back(fmt::format("{} = {}", k, fmt::join(vs, ", ")));
  }
  std::string text = fmt::format("{}", fmt::join(varying, ", "));
  if (!fixed.empty())
    text += fmt::format("{}{}{}", text.empty() ? "" : " (", fmt::join(fixed, ", "),
                        text.empty() ? "" : ")");
  return text;
}

/// A built configuration in a claim's lines.
std::string built_text(const ConstructedCell& c, const std::map<std::string, std::string>& group) {
  const std::string at = where(c, group);
  std::string text = fmt::format("{}{}{} at M = {} (W = {}, readout {})", at,
                                 at.empty() ? "" : ": ", nmse_text(c.nmse), c.parameters,
                                 c.ffn_width, c.readout_width);
  if (c.trained_parameters > 0 && c.trained_parameters != c.parameters)
    text += fmt::format(", runs' M = {}", c.trained_parameters);
  if (std::isfinite(c.trained_median)) {
    text += fmt::format(", trained {} (median of {})", nmse_text(c.trained_median), c.seeds);
    if (c.nmse < c.trained_median)
      text += fmt::format(", optimisation gap {:.1f} decades",
                          std::log10(c.trained_median / c.nmse));
  }
  if (!c.failure.empty()) text += " (" + c.failure + ")";
  return text;
}

/// The constructed line's slope where the claim's x is T or M (growth_in_T, exponent).
std::string slope_text(const std::vector<const ConstructedCell*>& cells, bool against_t,
                       std::uint64_t seed) {
  std::vector<double> xs;
  std::vector<double> ys;
  for (const ConstructedCell* c : cells) {
    if (!c->built) continue;
    xs.push_back(static_cast<double>(against_t ? c->tokens : c->parameters));
    ys.push_back(c->nmse);
  }
  if (std::set<double>(xs.begin(), xs.end()).size() < 3) return "";
  const numeric::PowerLawFit f = numeric::fit_power_law_over_points(xs, ys, seed);
  return fmt::format("constructed slope of log NMSE against log {} {:.2f} [{:.2f}, {:.2f}]",
                     against_t ? "T" : "M", f.slope, f.slope_ci.low, f.slope_ci.high);
}

/// The figure's constructed lines: x as the trained lines' (the construction's own M where x
/// is M), one line per architecture (the heads pattern where the spec names one).
void add_series(ExperimentResult& result) {
  if (result.y_label != ExperimentResult{}.y_label) return;  // M* and the like: no NMSE axis
  const bool against_m = result.claim_kind == "exponent";
  std::map<std::string, Series> lines;
  for (const ConstructedCell& c : result.constructed) {
    if (!c.built) continue;
    double x = static_cast<double>(c.parameters);
    std::set<std::string> skip{"L", "heads"};
    if (!against_m) {
      const auto at = c.labels.find(result.x_label);
      if (at == c.labels.end()) return;  // an x this cannot place
      x = as_number(at->second);
      skip.insert(result.x_label);
    }
    if (c.labels.count("heads_pattern") == 0) skip = {result.x_label};
    if (against_m) skip = {"ffn_width", "E", "head_dim"};  // the arms that make M
    const std::string name = "constructed: " + labels_except(c.labels, skip);
    Series& s = lines[name];
    s.name = name;
    s.constructed = true;
    s.x.push_back(x);
    s.median.push_back(c.nmse);
    s.low.push_back(c.nmse);
    s.high.push_back(c.nmse);
  }
  for (auto& [name, s] : lines) {
    std::vector<std::size_t> order(s.x.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    const std::vector<double>& xs = s.x;  // Clang 14 cannot capture the binding s
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return xs[a] < xs[b]; });
    Series sorted = s;
    for (std::size_t i = 0; i < order.size(); ++i) {
      sorted.x[i] = s.x[order[i]];
      sorted.median[i] = sorted.low[i] = sorted.high[i] = s.median[order[i]];
    }
    result.series.push_back(std::move(sorted));
  }
}

/// A construction of an architecture the confronted entry calls not efficient, a decade or
/// more below the reference R (the rule that measures training's median efficient).
void mark_confrontations(ExperimentResult& result) {
  for (Confrontation& row : result.confrontations) {
    for (const ConstructedCell& c : result.constructed) {
      const auto heads = c.labels.find("heads");
      if (!c.built || heads == c.labels.end() || heads->second != row.architecture ||
          labels_except(c.labels, {"heads", "heads_pattern", "L"}) != row.group)
        continue;
      row.constructed = c.nmse;
      row.entry_contradicted_by_construction =
          row.entry == Efficiency::kNotEfficient && std::isfinite(row.reference) &&
          std::log10(row.reference / c.nmse) >= kEfficientDecades;
    }
  }
}

}  // namespace

void add_constructions(ExperimentResult& result, theorems::Engine& engine,
                       const construct::ConstructOptions& options) {
  std::map<std::string, std::size_t> seen;  // a configuration's index in result.constructed
  for (std::size_t i = 0; i < result.rows.size() && i < result.runs.size(); ++i) {
    const RunRow& row = result.rows[i];
    std::map<std::string, std::string> labels = row.labels;
    labels.erase("seed");
    const std::string id = group_text(labels);
    if (row.predicted_verdict != theorems::to_text(theorems::Verdict::kEfficient)) continue;
    if (seen.count(id) == 0) {
      seen[id] = result.constructed.size();
      result.constructed.push_back(build(result.runs[i], engine, options));
    }
  }
  for (ConstructedCell& c : result.constructed) {
    std::vector<double> trained;
    for (const RunRow& row : result.rows) {
      if (!in(row.labels, c.labels) || !row.status ||
          *row.status == numeric::RunStatus::kDiverged)
        continue;
      trained.push_back(row.best_nmse);
      c.trained_parameters = row.parameters_theory;
    }
    c.seeds = static_cast<long>(trained.size());
    c.trained_median = trained.empty() ? std::numeric_limits<double>::quiet_NaN()
                                       : numeric::median_of(trained);
  }
  add_series(result);
  mark_confrontations(result);
  const bool against_t = result.claim_kind == "growth_in_T";
  const bool against_m = result.claim_kind == "exponent";
  for (Claim& claim : result.claims) {
    std::vector<const ConstructedCell*> cells;
    for (const ConstructedCell& c : result.constructed)
      if (in(c.labels, claim.group_labels)) cells.push_back(&c);
    bool lower_bounds = false;
    for (const RunRow& row : result.rows) {
      if (in(row.labels, claim.group_labels) &&
          row.predicted_verdict != theorems::to_text(theorems::Verdict::kEfficient))
        lower_bounds = true;
    }
    if (cells.empty()) {
      claim.evidence = "training alone (no configuration of the claim is efficient: a "
                       "construction cannot show that no network exists)";
      continue;
    }
    std::map<std::string, std::vector<const ConstructedCell*>> not_built;  // by reason
    long built = 0;
    for (const ConstructedCell* c : cells) {
      if (c->built) {
        ++built;
        claim.constructed.push_back(built_text(*c, claim.group_labels));
      } else {
        not_built[c->failure].push_back(c);
      }
    }
    for (const auto& [reason, at] : not_built) {
      const std::string list = values_text(at, claim.group_labels);
      claim.constructed.push_back(fmt::format("{}{}not built ({})", list,
                                              list.empty() ? "" : ": ", reason));
    }
    if (built == 0) {
      claim.evidence = "training alone: no construction of its efficient configurations was "
                       "built (the reasons are given)";
    } else {
      claim.evidence = lower_bounds ? "training; constructions show that networks of the "
                                      "efficient configurations built exist, the others rest "
                                      "on training"
                                    : "training; constructions show that the networks built "
                                      "exist";
    }
    if (against_t || against_m) {
      const std::string slope = slope_text(cells, against_t, options.seed);
      if (!slope.empty()) claim.constructed.push_back(slope);
    }
  }
}

}  // namespace infoflow::experiments
