#ifndef INFOFLOW_REPORT_CATALOGUE_REPORT_HPP_
#define INFOFLOW_REPORT_CATALOGUE_REPORT_HPP_

/// \file
/// The catalogue and the check's findings as text, LaTeX (booktabs) and JSON. Everything here
/// prints through our deterministic printers, so the same input gives the same bytes.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "infoflow/theorems/catalogue.hpp"
#include "infoflow/theorems/check.hpp"

namespace infoflow::report {

/// Escapes LaTeX's special characters in plain text (text mode: `<`, `>` and `|` too, which
/// OT1 fonts would set as other glyphs).
std::string latex_escape(const std::string& text);
/// Plain text the tool wrote (a claim, a witness label) as LaTeX: escaped, with the rates it
/// prints ("O(eps^(-1))", "M^(-2.00)", "<=", "~") set in math mode.
std::string prose_latex(const std::string& text);
/// An identifier (entry id, task, target name) in typewriter type, breakable after `.` and `_`.
std::string latex_identifier(const std::string& id);
/// A `\label`/`\ref` key derived from an id: "<prefix>:<id>", characters outside
/// [A-Za-z0-9.:-] replaced by '-' (underscores included: safe under babel and hyperref).
std::string latex_label(const std::string& prefix, const std::string& id);
/// Eight hexadecimal digits of a stable hash (FNV-1a) of `content`: labels that differ by
/// content, the same on every machine and run.
std::string short_hash(const std::string& content);

/// How a LaTeX output is laid out and labelled, for several outputs in one paper.
struct LatexOptions {
  /// Put before every label the output defines ("P:entry:ID", "P:tab:derivations"); empty: the
  /// defaults, which differ by content. Characters: letters, digits, '.', ':' and '-'.
  std::string label_prefix;
  /// 1: longtable, which breaks across pages; 2: table* floats spanning both columns of a
  /// \documentclass[twocolumn] paper (longtable refuses two-column mode), a long table cut into
  /// several floats.
  int columns = 1;

  /// The label "<kind>:<id>", after the prefix if there is one.
  [[nodiscard]] std::string label(const std::string& kind, const std::string& id) const;
};
/// Throws InputError unless `prefix` is usable in \label keys (see LatexOptions).
void check_label_prefix(const std::string& prefix);

/// A booktabs table of p columns (fractions of \linewidth summing to 1, ragged right, words
/// hyphenated where a column is narrower than one), captioned and labelled above its rows: a
/// longtable, or table* floats of at most `rows_per_float` rows each (LatexOptions::columns).
struct LatexTable {
  std::string comment;  ///< the first line, "% infoflow table ... (needs: ...)"
  std::vector<double> widths;
  std::string caption;
  std::string legend;  ///< read with the caption, left out of a list of tables
  std::string label;
  std::string header;             ///< "A & B & C", no row end
  std::vector<std::string> rows;  ///< likewise
  std::size_t rows_per_float = 10;
};
std::string table_latex(const LatexTable& table, const LatexOptions& options);

/// The packages every LaTeX fragment of infoflow needs, as one \usepackage line per package.
std::string latex_preamble();

/// The entry's bound in LaTeX math, in its author's written form: "\Omega\left(...\right)".
std::string bound_latex(const theorems::Entry& entry);
/// Where the entry comes from, with its paper: "\cite[Theorem~2]{yu2026infoflow}", or "this
/// tool (formalization)" for our own rules and derived bounds.
std::string source_latex(const theorems::Entry& entry, const theorems::Catalogue& catalogue);

/// The entry as a confrontation names it: id, provenance and source, where its hypotheses
/// hold, and its rate: "head_count.depth_conjecture (conjecture): where L*h < D Omega(...)".
std::string entry_statement_text(const theorems::Entry& entry);
/// The same, typeset: the id in typewriter type, hypotheses and bound in math mode.
std::string entry_statement_latex(const theorems::Entry& entry);

/// One entry as a paragraph for a paper: "Entry N" (its number in the catalogue table), source
/// with citation, kind, setting, hypotheses and the bound in display math, labelled
/// `entry:<id>` (`show --format latex`). The table's row and this paragraph share the label and
/// the number: whichever comes first in a document defines it, so `\ref` prints the table's
/// number either way.
std::string entry_latex(const theorems::Entry& entry, const theorems::Catalogue& catalogue,
                        const LatexOptions& options = {});
/// A booktabs table of the entries (number, id and source, provenance and task, setting,
/// hypotheses, bound), fitting \linewidth; each row labelled `entry:<id>`, the table
/// `tab:infoflow-catalogue`.
std::string catalogue_table_latex(const theorems::Catalogue& catalogue,
                                  const LatexOptions& options = {});
/// A booktabs table of the findings: severity and kind, entries, condition, witnesses; the
/// unknown constants of the entries as short symbols with their legend below.
std::string findings_table_latex(const theorems::CheckReport& report,
                                 const theorems::Catalogue& catalogue,
                                 const LatexOptions& options = {});
/// A complete LaTeX document around one or more fragments, with a bibliography of the
/// catalogue's papers that the body cites; two-column with `options.columns` 2.
std::string latex_document(const std::string& body, const theorems::Catalogue& catalogue,
                           const LatexOptions& options = {});
/// The bibliography (thebibliography) of the catalogue's papers cited in `body`; empty if none.
std::string bibliography_latex(const std::string& body, const theorems::Catalogue& catalogue);

std::string entry_text(const theorems::Entry& entry, const theorems::Catalogue& catalogue);
std::string catalogue_list_text(const theorems::Catalogue& catalogue);
/// The findings one a paragraph, the unknown constants renamed apart as short names ("c_4": the
/// constant c of entry 4) with their legend, and the check's brief.
std::string findings_text(const theorems::CheckReport& report, const theorems::Catalogue& catalogue);

nlohmann::json to_json(const theorems::Entry& entry);
nlohmann::json to_json(const theorems::Catalogue& catalogue);
nlohmann::json to_json(const theorems::CheckReport& report);

}  // namespace infoflow::report

#endif  // INFOFLOW_REPORT_CATALOGUE_REPORT_HPP_
