#ifndef INFOFLOW_REPORT_CATALOGUE_REPORT_HPP_
#define INFOFLOW_REPORT_CATALOGUE_REPORT_HPP_

/// \file
/// The catalogue and the check's findings as text, LaTeX (booktabs) and JSON. Everything here
/// prints through our deterministic printers, so the same input gives the same bytes.

#include <string>

#include <nlohmann/json.hpp>

#include "infoflow/theorems/catalogue.hpp"
#include "infoflow/theorems/check.hpp"

namespace infoflow::report {

/// Escapes LaTeX's special characters in plain text.
std::string latex_escape(const std::string& text);

/// The entry's bound in LaTeX math, in its author's written form: "\Omega\left(...\right)".
std::string bound_latex(const theorems::Entry& entry);

/// A booktabs table of the entries: id, source, provenance, kind, setting, hypotheses, bound.
std::string catalogue_table_latex(const theorems::Catalogue& catalogue);
/// A booktabs table of the findings: severity, kind, entries, condition, witness.
std::string findings_table_latex(const theorems::CheckReport& report);
/// A complete LaTeX document around one or more tables (booktabs, amsmath, longtable).
std::string latex_document(const std::string& body);

std::string entry_text(const theorems::Entry& entry, const theorems::Catalogue& catalogue);
std::string catalogue_list_text(const theorems::Catalogue& catalogue);
std::string findings_text(const theorems::CheckReport& report);

nlohmann::json to_json(const theorems::Entry& entry);
nlohmann::json to_json(const theorems::Catalogue& catalogue);
nlohmann::json to_json(const theorems::CheckReport& report);

}  // namespace infoflow::report

#endif  // INFOFLOW_REPORT_CATALOGUE_REPORT_HPP_
