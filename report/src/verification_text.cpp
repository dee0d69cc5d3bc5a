#include "infoflow/report/verification_text.hpp"

#include <cmath>

#include <fmt/format.h>

#include "infoflow/report/catalogue_report.hpp"

namespace infoflow::report {

using experiments::Claim;
using experiments::Confrontation;
using experiments::Efficiency;
using experiments::ExperimentResult;
using experiments::nmse_text;
using experiments::PaperComparison;

std::string verification_text(const ExperimentResult& r) {
  std::string out =
      fmt::format("{} ({}, profile {}): {}\n", r.name, r.claim_kind, r.profile, r.title);
  for (const Claim& c : r.claims) {
    out += fmt::format(
        "  [{}] {}\n    predicted: {}\n    measured:  {}\n    status:    {}\n    why:       {}\n",
        to_text(c.verdict), c.group, c.prediction, c.measured, to_text(c.runs), c.why);
    if (!c.cross_check.empty()) out += "    BUT:       " + c.cross_check + "\n";
    for (std::size_t i = 0; i < c.constructed.size(); ++i)
      out += (i == 0 ? "    constructed: " : "                 ") + c.constructed[i] + "\n";
    if (!c.evidence.empty()) out += "    rests on:  " + c.evidence + "\n";
  }
  if (!r.reported.empty()) {
    out += "  reported by the paper (" + r.reported_source +
           ") against ours (min / median over "
           "seeds):\n";
    for (const PaperComparison& c : r.reported) {
      out += fmt::format("    {}: paper {}, ours {} / {} ({} runs, {} converged), ratio {}\n",
                         c.configuration, nmse_text(c.paper), nmse_text(c.ours_min),
                         nmse_text(c.ours_median), c.seeds, c.converged, ratio_text(c));
    }
  }
  if (!r.confrontations.empty()) {
    out += "  architecture by architecture, against " + entry_statement_text(*r.confronted) + ":\n";
    out += fmt::format("    {:<16} {:<9} {:<18} {:<16} {:>9} {:>5} {:>11}  {}\n", "group",
                       "heads", "engine", "entry", "median", "conv", "constructed", "measured");
    for (const Confrontation& c : r.confrontations) {
      std::string mark;
      if (c.entry_contradicted) mark += "  <- entry contradicted";
      if (c.engine_contradicted) mark += "  <- ENGINE contradicted";
      if (c.entry_contradicted_by_construction) mark += "  <- entry contradicted by a construction";
      out += fmt::format(
          "    {:<16} {:<9} {:<18} {:<16} {:>9} {:>2}/{:<2} {:>11}  {}{}\n", c.group,
          c.architecture, c.engine,
          c.entry == Efficiency::kUndecided ? std::string("no claim") : entry_claim_text(c),
          nmse_text(c.median), c.converged, c.seeds,
          std::isfinite(c.constructed) ? nmse_text(c.constructed) : std::string("-"),
          measured_text(c), mark);
    }
  }
  for (const std::string& n : r.notes) out += "  note: " + n + "\n";
  return out;
}

std::string ratio_text(const PaperComparison& c) {
  return c.seeds > 0 ? fmt::format("{:.3g}", c.ours_min / c.paper) : "n/a";
}

}  // namespace infoflow::report
