#ifndef INFOFLOW_REPORT_DERIVATION_REPORT_HPP_
#define INFOFLOW_REPORT_DERIVATION_REPORT_HPP_

/// \file
/// What `infoflow derive` and `infoflow plan` print: a target's comparison structure, the
/// engine's plan, rate and verdict, and the smallest efficient architectures; as text, LaTeX
/// (a line and a booktabs table for a paper) and JSON.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "infoflow/report/catalogue_report.hpp"
#include "infoflow/theorems/engine.hpp"

namespace infoflow::report {

/// One target's derivation: its plan on one architecture (if asked) and the search.
struct Derivation {
  const theorems::Target* target = nullptr;
  std::optional<theorems::Plan> plan;
  theorems::Search search;
};

std::string derivation_text(const Derivation& d);
/// A target formula typeset in LaTeX math: "\max_{s \ne t} \langle x_{s}, x_{t} \rangle".
std::string formula_latex(const targets::Node& root);
/// A complete booktabs table (caption citing the InfoFlow paper): target and its formula
/// typeset, beta', beta_1, comparison number, the plan's architecture, rate and verdict,
/// smallest efficient architecture. Labels differ by content: a row `target:<name>` (with
/// `-h<heads>` of the plan asked for), an unnamed formula's `target:formula-<hash>` (hash of
/// the formula, its values and the architecture), the table `tab:derivations-<hash of its rows>`;
/// with a label prefix P, `P:target:<name>` and `P:tab:derivations`.
std::string derivations_latex(const std::vector<Derivation>& ds, const theorems::Catalogue& catalogue,
                              const LatexOptions& options = {});
/// The label of a derivation's row (see derivations_latex).
std::string derivation_label(const Derivation& d, const LatexOptions& options);
nlohmann::json to_json(const Derivation& d);
/// The compiled target: comparisons with their elimination, quantities with what they read.
nlohmann::json to_json(const theorems::Program& program);

/// Derived bounds as a catalogue file (`derive --format toml`, read back with `--add FILE`): a
/// [paper] for the tool, the targets' own task families, one [[entry]] of provenance `derived`
/// for each plan with a rate (the plan asked for, the smallest efficient one and each depth's).
std::string derived_catalogue_toml(const theorems::Engine& engine, const std::vector<Derivation>& ds);

/// The condition on an unset integer for one depth: the closed form if one holds, and the
/// largest efficient value per head vector.
std::string condition_text(const theorems::Condition& condition);
/// The conditions on a target's unset integer `name`, one depth a line, under a heading.
std::string conditions_text(const targets::TargetSpec& spec, const std::string& name,
                            const std::vector<theorems::Condition>& conditions);

/// The plan layer by layer: steps, information sets, decodings, the dominant cost.
std::string plan_text(const theorems::Target& target, const theorems::Plan& plan);
/// The plan as JSON (docs/commands.md, "JSON"): exact values (exponents, set sizes, the
/// comparison number) are strings of their canonical form ("29/17", "T/4 - 1", "T"), counts of
/// layers, heads and widths are integers, n is a list with one entry a layer, and a field
/// without a value is null, never absent. `kind` says what the rate bounds ("upper", or
/// "lower" with `upper_bound` the best upper plan); `at_T` gives the rate at `tokens` (the
/// target's T, where it sets one).
nlohmann::json to_json(const theorems::Plan& plan, std::optional<long> tokens = std::nullopt);

}  // namespace infoflow::report

#endif  // INFOFLOW_REPORT_DERIVATION_REPORT_HPP_
