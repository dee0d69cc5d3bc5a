#include "infoflow/report/derivation_report.hpp"

#include <fmt/format.h>

#include "infoflow/report/catalogue_report.hpp"
#include "infoflow/symbolic/canonical.hpp"

namespace infoflow::report {

namespace {

using symbolic::Format;
using symbolic::Landau;

std::string comparisons_text(const targets::Analysis& a) {
  std::string out;
  for (const targets::Comparison& c : a.comparisons) {
    std::string mult;
    for (const std::string& m : c.multiplicity) mult += m + " x ";
    const char* mode = c.mode == targets::CompareMode::kRanked ? "k-th"
                       : c.mode == targets::CompareMode::kSum  ? "sum"
                                                               : "extremum";
    out +=
        fmt::format("    {}{}: order {}, {}{}\n", mult, c.text, c.order, mode,
                    c.split ? fmt::format(" (splits into {} single-index terms)", c.indices) : "");
  }
  return out;
}

std::string architecture_line(const theorems::Plan& p) {
  return fmt::format("{}: {} {}", p.architecture.text(), p.rate().print(Landau::kBigO),
                     theorems::to_text(p.verdict));
}

std::string where_text(theorems::TokenClass c) {
  return c == theorems::TokenClass::kReadout ? "readout" : "tokens";
}

}  // namespace

std::string derivation_text(const Derivation& d) {
  const theorems::Target& t = *d.target;
  const targets::Analysis& a = t.analysis;
  std::string out = fmt::format("target {}: {}\n", t.name, targets::to_text(t.formula.root()));
  out +=
      fmt::format("  comparison order beta' = {}, dimension beta_1 = {}, comparison number = {}\n",
                  a.order, a.dimension_text(), a.number_text());
  out += comparisons_text(a);
  if (!a.fixed_positions.empty())
    out += fmt::format("    fixed positions {{{}}}\n", fmt::join(a.fixed_positions, ", "));
  if (d.plan) {
    out += fmt::format("  on {}\n    M = {}: {}\n    dominant: {}\n", d.plan->architecture.text(),
                       d.plan->rate().print(Landau::kBigO), theorems::to_text(d.plan->verdict),
                       d.plan->dominant);
    for (const std::string& f : d.plan->fallbacks) out += "    aggregation because " + f + "\n";
  }
  if (d.search.smallest) {
    out += fmt::format("  smallest efficient architecture (of {} with L <= 3, h <= 8): {}\n",
                       d.search.architectures, architecture_line(*d.search.smallest));
    for (const theorems::Plan& p : d.search.per_depth)
      out += "    fewest heads with L = " + std::to_string(p.architecture.layers()) + ": " +
             p.architecture.heads_text() + "\n";
  } else {
    out += fmt::format("  no efficient architecture among the {} with L <= 3 and h <= 8\n",
                       d.search.architectures);
  }
  return out;
}

std::string derivations_latex(const std::vector<Derivation>& ds) {
  std::string out =
      "\\begin{tabular}{lllllll}\n\\toprule\n"
      "Target & $\\beta'$ & $\\beta_1$ & Comparisons & Architecture & $M$ & Smallest efficient "
      "\\\\\n\\midrule\n";
  for (const Derivation& d : ds) {
    const theorems::Target& t = *d.target;
    std::string arch = "--";
    std::string rate = "--";
    if (d.plan) {
      arch = fmt::format("$L={}$, $h={}$", d.plan->architecture.layers(),
                         d.plan->architecture.heads_text());
      rate = "$" + d.plan->rate().print(Landau::kBigO, Format::kLatex) + "$ (" +
             theorems::to_text(d.plan->verdict) + ")";
    }
    const std::string smallest =
        d.search.smallest ? fmt::format("$L={}$, $h={}$", d.search.smallest->architecture.layers(),
                                        d.search.smallest->architecture.heads_text())
                          : "none";
    out += fmt::format("{} & {} & ${}$ & ${}$ & {} & {} & {} \\\\\n", latex_escape(t.name),
                       t.analysis.order, t.analysis.dimension_text(), t.analysis.number_text(),
                       arch, rate, smallest);
  }
  return out + "\\bottomrule\n\\end{tabular}\n";
}

nlohmann::json to_json(const theorems::Plan& p) {
  nlohmann::json steps = nlohmann::json::array();
  for (const theorems::PlanStep& s : p.steps) {
    steps.push_back({{"layer", s.layer},
                     {"head", s.head},
                     {"at", where_text(s.where)},
                     {"action", theorems::to_text(s.action)},
                     {"what", s.what},
                     {"entry", s.entry},
                     {"exponent", symbolic::canonical(s.exponent)}});
  }
  nlohmann::json sets = nlohmann::json::array();
  for (const theorems::LayerSets& s : p.sets) {
    sets.push_back({{"layer", s.layer},
                    {"token", s.token},
                    {"token_size", s.token_size},
                    {"readout", s.readout},
                    {"readout_size", symbolic::canonical(s.readout_size)}});
  }
  nlohmann::json decodings = nlohmann::json::array();
  for (const theorems::Decoding& d : p.decodings) {
    decodings.push_back({{"layer", d.layer},
                         {"at", where_text(d.where)},
                         {"size", symbolic::canonical(d.size)},
                         {"entry", d.entry},
                         {"exponent", symbolic::canonical(d.exponent)}});
  }
  const theorems::Architecture& a = p.architecture;
  return {{"architecture",
           {{"L", a.layers()},
            {"heads", a.heads},
            {"E", a.embedding},
            {"d", a.token_dim},
            {"n", a.head_dim},
            {"pe", a.positional}}},
          {"rate", p.rate().print(Landau::kBigO)},
          {"rate_latex", p.rate().print(Landau::kBigO, Format::kLatex)},
          {"exponent", symbolic::canonical(p.exponent)},
          {"verdict", theorems::to_text(p.verdict)},
          {"dominant", p.dominant},
          {"steps", steps},
          {"information_sets", sets},
          {"decodings", decodings},
          {"fallbacks", p.fallbacks},
          {"entries", p.entries}};
}

nlohmann::json to_json(const Derivation& d) {
  const theorems::Target& t = *d.target;
  nlohmann::json comparisons = nlohmann::json::array();
  for (const targets::Comparison& c : t.analysis.comparisons) {
    comparisons.push_back({{"text", c.text},
                           {"order", c.order},
                           {"split", c.split},
                           {"indices", c.indices},
                           {"multiplicity", c.multiplicity}});
  }
  nlohmann::json out = {{"target", t.name},
                        {"formula", targets::to_text(t.formula.root())},
                        {"bindings", t.bindings},
                        {"comparison_order", t.analysis.order},
                        {"comparison_dimension", t.analysis.dimension_text()},
                        {"comparison_number", t.analysis.number_text()},
                        {"comparisons", comparisons},
                        {"fixed_positions", t.analysis.fixed_positions},
                        {"architectures_searched", d.search.architectures}};
  if (d.plan) out["plan"] = to_json(*d.plan);
  out["smallest_efficient"] =
      d.search.smallest ? to_json(*d.search.smallest) : nlohmann::json(nullptr);
  nlohmann::json depth = nlohmann::json::array();
  for (const theorems::Plan& p : d.search.per_depth)
    depth.push_back({{"L", p.architecture.layers()}, {"heads", p.architecture.heads}});
  out["fewest_heads_per_depth"] = depth;
  return out;
}

std::string plan_text(const theorems::Target& t, const theorems::Plan& p) {
  std::string out = fmt::format("plan for {} = {}\non {}\n", t.name,
                                targets::to_text(t.formula.root()), p.architecture.text());
  out += fmt::format("  layer 0: I(t) = {}  I(T+1) = {}\n", p.sets[0].token, p.sets[0].readout);
  for (long l = 1; l <= p.architecture.layers(); ++l) {
    for (const theorems::PlanStep& s : p.steps) {
      if (s.layer != l) continue;
      out += fmt::format("    head {} at the {}: {}: {}  [eps^-({}), {}]\n", s.head,
                         where_text(s.where), theorems::to_text(s.action), s.what,
                         symbolic::canonical(s.exponent), s.entry);
    }
    for (const theorems::Decoding& d : p.decodings) {
      if (d.layer != l) continue;
      out += fmt::format("    FFN at the {} decodes {} positions  [eps^-({}), {}]\n",
                         where_text(d.where), symbolic::canonical(d.size),
                         symbolic::canonical(d.exponent), d.entry);
    }
    const theorems::LayerSets& s = p.sets[static_cast<std::size_t>(l)];
    out += fmt::format("  layer {}: I(t) = {} (size {})  I(T+1) = {} (size {})\n", l, s.token,
                       s.token_size, s.readout, symbolic::canonical(s.readout_size));
  }
  for (const std::string& f : p.fallbacks) out += "  aggregation because " + f + "\n";
  out += fmt::format("M = {}: {}\n  dominant: {}\n  catalogue entries: {}\n",
                     p.rate().print(Landau::kBigO), theorems::to_text(p.verdict), p.dominant,
                     fmt::join(p.entries, ", "));
  return out;
}

}  // namespace infoflow::report
