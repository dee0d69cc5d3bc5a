#include "infoflow/report/catalogue_report.hpp"

#include <cctype>
#include <sstream>

#include <fmt/format.h>

#include "infoflow/symbolic/expression.hpp"

namespace infoflow::report {
namespace {

using theorems::Catalogue;
using theorems::CheckReport;
using theorems::Entry;
using theorems::Finding;
using theorems::WrittenRelation;

std::string relations_text(const std::vector<WrittenRelation>& relations) {
  std::string out;
  for (const WrittenRelation& w : relations) {
    if (!out.empty()) out += ", ";
    out += symbolic::to_text(w.relation);
  }
  return out.empty() ? "-" : out;
}

std::string bound_text(const Entry& e) {
  return symbolic::to_text(theorems::landau_of(e.kind)) + "(" + symbolic::to_text(e.rate_written) +
         ")";
}

std::string witnesses_text(const Finding& f) {
  std::string out;
  for (const theorems::LabelledWitness& w : f.witnesses) {
    out += fmt::format("\n    {}: {}", w.label, w.point.to_text());
  }
  for (const std::string& m : f.missing_witnesses) out += "\n    no witness for " + m;
  return out;
}

}  // namespace

std::string bound_latex(const Entry& e) {
  const char* landau = e.kind == theorems::Kind::kUpper   ? "O"
                       : e.kind == theorems::Kind::kLower ? "\\Omega"
                                                          : "\\Theta";
  return std::string(landau) + "\\left(" + symbolic::to_latex(e.rate_written) + "\\right)";
}

std::string entry_statement_text(const Entry& e) {
  std::string statement;
  for (const WrittenRelation& h : e.hypotheses)
    statement += (statement.empty() ? "" : ", ") + symbolic::to_text(h.relation);
  const std::string provenance = theorems::to_text(e.provenance);
  const std::string source = e.source == provenance ? provenance : provenance + ", " + e.source;
  return fmt::format(
      "{} ({}): {} {}", e.id, source, statement.empty() ? "always" : "where " + statement,
      e.rate.print(e.kind == theorems::Kind::kLower ? symbolic::Landau::kOmega
                                                    : symbolic::Landau::kBigO));
}

std::string entry_statement_latex(const Entry& e) {
  std::string hypotheses;
  for (const WrittenRelation& h : e.hypotheses)
    hypotheses += (hypotheses.empty() ? "$" : ", $") + symbolic::to_latex(h.relation) + "$";
  const std::string provenance = theorems::to_text(e.provenance);
  const std::string source = e.source == provenance ? provenance : provenance + ", " + e.source;
  return fmt::format("{} ({}): ${}$ {}", latex_identifier(e.id), latex_escape(source),
                     bound_latex(e), hypotheses.empty() ? "always" : "where " + hypotheses);
}

std::string latex_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '_': out += "\\_"; break;
      case '&': out += "\\&"; break;
      case '%': out += "\\%"; break;
      case '#': out += "\\#"; break;
      case '$': out += "\\$"; break;
      case '{': out += "\\{"; break;
      case '}': out += "\\}"; break;
      case '~': out += "\\textasciitilde{}"; break;
      case '^': out += "\\textasciicircum{}"; break;
      case '\\': out += "\\textbackslash{}"; break;
      case '<': out += "\\textless{}"; break;
      case '>': out += "\\textgreater{}"; break;
      case '|': out += "\\textbar{}"; break;
      case '/': out += "/\\allowbreak{}"; break;  // paths break after a slash
      default: out += c;
    }
  }
  return out;
}

std::string latex_identifier(const std::string& id) {
  std::string out = "\\texttt{";
  for (const char c : id) {
    out += latex_escape(std::string(1, c));
    if (c == '.' || c == '_') out += "\\allowbreak{}";
  }
  return out + "}";
}

std::string latex_label(const std::string& prefix, const std::string& id) {
  std::string out = prefix + ":";
  for (const char c : id) {
    const bool safe = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == ':' ||
                      c == '-';
    out += safe ? c : '-';
  }
  return out;
}

std::string latex_preamble() {
  return "\\usepackage{amsmath}\n\\usepackage{booktabs}\n"
         "\\usepackage{longtable}\n\\usepackage{array}\n";
}

std::string source_latex(const Entry& e, const Catalogue& catalogue) {
  const theorems::Paper* paper = catalogue.find_paper(e.paper);
  const bool ours = e.provenance == theorems::Provenance::kFormalization ||
                    e.provenance == theorems::Provenance::kDerived;
  if (ours || paper == nullptr || paper->cite.empty()) {
    return latex_escape(e.source) + " (this tool, " + theorems::to_text(e.provenance) + ")";
  }
  // \cite[Theorem~2]{key}: "[1, Theorem 2]", the theorem's number with its paper.
  std::string locator = latex_escape(e.source);
  if (const std::size_t space = locator.find(' ');
      space != std::string::npos && locator.find(' ', space + 1) == std::string::npos) {
    locator[space] = '~';  // "Theorem~1": the number never starts a line
  }
  return "\\cite[" + locator + "]{" + paper->cite + "}";
}

namespace {

/// "$L = 1$, $h = s$" or "---": each relation its own math group, so lines break between them.
std::string relations_cell(const std::vector<WrittenRelation>& relations) {
  std::string out;
  for (const WrittenRelation& w : relations) {
    if (!out.empty()) out += ", ";
    out += "$" + symbolic::to_latex(w.relation) + "$";
  }
  return out.empty() ? "---" : out;
}

/// A p column of a fraction of \linewidth (its padding included), ragged right.
std::string column(double fraction) {
  return fmt::format(">{{\\raggedright\\arraybackslash}}p{{\\dimexpr {:.2f}\\linewidth-2\\tabcolsep\\relax}}",
                     fraction);
}

std::string number_latex(const GiNaC::numeric& value) {
  if (value.is_integer()) {
    std::ostringstream out;
    out << value;
    return out.str();
  }
  std::ostringstream num;
  std::ostringstream den;
  num << value.numer();
  den << value.denom();
  return "\\tfrac{" + num.str() + "}{" + den.str() + "}";
}

/// "$T = 9$, $k = 2$": one math group per value, so that a cell breaks between them.
std::string witness_latex(const symbolic::Witness& w) {
  std::string out;
  for (const auto& [info, value] : w.values) {
    if (!out.empty()) out += ", ";
    out += "$" + info->latex + " = " + number_latex(value) + "$";
  }
  return out.empty() ? "any point" : out;
}

/// The bound for a table cell. A bound wider than its column (measured by TeX itself, so at the
/// paper's own fonts and widths) is set as "O(eps^{-a} ...), where a = ...", whose second line
/// breaks at its operators.
std::string bound_cell_latex(const Entry& e) {
  const std::string full = "$" + bound_latex(e) + "$";
  if (e.rate.eps_exponent().is_zero()) return full;
  const std::string named = e.rate.print_named(theorems::landau_of(e.kind), symbolic::Format::kLatex, "a");
  const std::string a = symbolic::canonical(e.rate.eps_exponent(), symbolic::Format::kLatex);
  return "\\setbox0=\\hbox{" + full + "}\\ifdim\\wd0>\\linewidth $" + named +
         "$,\\newline where $a = " + a + "$\\else\\box0\\fi";
}

const char* kEntryCounter =
    "\\expandafter\\ifx\\csname c@infoflowentry\\endcsname\\relax\\newcounter{infoflowentry}\\fi\n"
    "\\setcounter{infoflowentry}{0}\n";

}  // namespace

std::string entry_latex(const Entry& e, const Catalogue& catalogue) {
  const theorems::Paper* paper = catalogue.find_paper(e.paper);
  std::string out = "% infoflow show " + e.id + " --format latex (needs: amsmath)\n";
  out += "\\expandafter\\ifx\\csname c@infoflowentry\\endcsname\\relax"
         "\\newcounter{infoflowentry}\\fi\n";
  out += fmt::format("\\par\\medskip\\noindent\\refstepcounter{{infoflowentry}}\\label{{{}}}"
                     "\\textbf{{{}}}\\par\\nopagebreak\n\\noindent ",
                     latex_label("entry", e.id), latex_identifier(e.id));
  out += fmt::format("{}{}, {} bound ({}). ", source_latex(e, catalogue),
                     paper != nullptr && e.is_claim() && !paper->cite.empty()
                         ? " (" + latex_escape(paper->title) + ")"
                         : "",
                     theorems::to_text(e.kind), theorems::to_text(e.provenance));
  out += "Task: " + latex_identifier(e.task) + ". ";
  out += e.setting.empty() ? std::string("In any setting")
                           : "In the setting " + relations_cell(e.setting);
  out += e.hypotheses.empty() ? std::string(", ") : ", under " + relations_cell(e.hypotheses) + ", ";
  out += "the parameter count satisfies\n\\[\n  " + latex_escape(e.quantity) + " = " +
         bound_latex(e) + ".\n\\]\n";
  if (!e.notes.empty()) out += "\\emph{Notes.} " + latex_escape(e.notes) + "\n";
  return out;
}

std::string catalogue_table_latex(const Catalogue& catalogue) {
  // Columns as fractions of \linewidth (summing to 1): the table fits any text width, the
  // cells break between relations and inside identifiers.
  std::string cited;
  for (const theorems::Paper& p : catalogue.papers()) {
    if (!p.cite.empty()) cited += (cited.empty() ? "" : ",") + p.cite;
  }
  std::string out = "% infoflow table --of catalogue (needs: " +
                    std::string("booktabs, longtable, array, amsmath)\n") + kEntryCounter;
  out += "{\\small\n\\begin{longtable}{" + column(0.05) + column(0.25) + column(0.15) +
         column(0.15) + column(0.13) + column(0.27) + "}\n";
  out += "\\caption{Approximation bounds on the parameter count $M$" +
         (cited.empty() ? std::string() : " from \\cite{" + cited + "}") +
         ". Provenance: \\emph{seed} and \\emph{predecessor} are stated in the papers, "
         "\\emph{formalization} and \\emph{derived} are this tool's, \\emph{conjecture} is "
         "unproved.}\\label{tab:infoflow-catalogue}\\\\\n\\toprule\n";
  const std::string header =
      "\\# & Entry and source & Provenance, task & Setting & Hypotheses & Bound \\\\\n\\midrule\n";
  out += header + "\\endfirsthead\n\\toprule\n" + header + "\\endhead\n";
  for (const Entry& e : catalogue.entries()) {
    out += fmt::format(
        "\\refstepcounter{{infoflowentry}}\\theinfoflowentry\\label{{{}}} & {}\\newline {} & {}, "
        "{} bound; {} & {} & {} & {} \\\\\n",
        latex_label("entry", e.id), latex_identifier(e.id), source_latex(e, catalogue),
        theorems::to_text(e.provenance), theorems::to_text(e.kind), latex_identifier(e.task),
        relations_cell(e.setting), relations_cell(e.hypotheses), bound_cell_latex(e));
  }
  out += "\\bottomrule\n\\end{longtable}\n}\n";
  return out;
}

std::string findings_table_latex(const CheckReport& report, const Catalogue& catalogue) {
  std::string out =
      "% infoflow check --format latex (needs: booktabs, longtable, array, amsmath)\n"
      "{\\small\n\\begin{longtable}{" +
      column(0.14) + column(0.24) + column(0.32) + column(0.30) + "}\n";
  out += "\\caption{Consistency check of the catalogue of approximation bounds: each finding "
         "with the regime where it holds and points that witness it.}"
         "\\label{tab:infoflow-findings}\\\\\n\\toprule\n";
  const std::string header = "Finding & Entries & Condition & Witnesses \\\\\n\\midrule\n";
  out += header + "\\endfirsthead\n\\toprule\n" + header + "\\endhead\n";
  for (const Finding& f : report.findings) {
    std::string entries;
    for (const std::string& id : f.entries) {
      if (!entries.empty()) entries += ",\\newline ";
      entries += latex_identifier(id);
      if (const Entry* e = catalogue.find(id); e != nullptr) {
        const theorems::Paper* paper = catalogue.find_paper(e->paper);
        if (paper != nullptr && !paper->cite.empty() && e->is_claim()) {
          entries += "~\\cite{" + paper->cite + "}";
        }
      }
    }
    const std::string condition = f.condition_latex.empty()
                                      ? latex_escape(f.condition.empty() ? "---" : f.condition)
                                      : "$" + f.condition_latex + "$";
    std::string witnesses;
    for (const theorems::LabelledWitness& w : f.witnesses) {
      if (!witnesses.empty()) witnesses += "\\newline ";
      witnesses += prose_latex(w.label) + ": " + witness_latex(w.point);
    }
    for (const std::string& m : f.missing_witnesses) {
      if (!witnesses.empty()) witnesses += "\\newline ";
      witnesses += prose_latex("no witness for " + m);
    }
    if (witnesses.empty()) {
      // Say why there is none: the solver's own words when it gave up.
      const std::string marker = "could not be decided: ";
      const std::size_t at = f.summary.find(marker);
      witnesses = at == std::string::npos
                      ? "none: the solver gave no point it could verify"
                      : "none: " + prose_latex(f.summary.substr(at + marker.size()));
    }
    // A checked certificate is cited beside the kind.
    const std::string certified =
        f.certificate.rfind("re-proved", 0) == 0 ? "$^{\\surd}$" : "";
    out += fmt::format("{}: {}{} & {} & {} & {} \\\\\n", theorems::to_text(f.severity),
                       latex_escape(theorems::to_text(f.kind)), certified, entries, condition,
                       witnesses);
  }
  out += "\\bottomrule\n\\end{longtable}\n}\n";
  return out;
}

std::string bibliography_latex(const std::string& body, const Catalogue& catalogue) {
  std::string items;
  for (const theorems::Paper& p : catalogue.papers()) {
    if (p.cite.empty() || body.find(p.cite) == std::string::npos) continue;
    items += fmt::format("\\bibitem{{{}}} {}. \\emph{{{}}}. {}{}.\n", p.cite,
                         latex_escape(p.authors), latex_escape(p.title),
                         latex_escape(p.reference),
                         p.year > 0 ? fmt::format(", {}", p.year) : std::string());
  }
  if (items.empty()) return {};
  return "\\begin{thebibliography}{9}\n" + items + "\\end{thebibliography}\n";
}

std::string latex_document(const std::string& body, const Catalogue& catalogue) {
  return "\\documentclass[10pt]{article}\n\\usepackage[margin=2.5cm]{geometry}\n" +
         latex_preamble() + "\\begin{document}\n" + body + bibliography_latex(body, catalogue) +
         "\\end{document}\n";
}

std::string entry_text(const Entry& e, const Catalogue& catalogue) {
  const theorems::Paper* paper = catalogue.find_paper(e.paper);
  std::string out =
      fmt::format("{}\n  paper:      {}{}\n  source:     {}\n  provenance: {}\n", e.id,
                  paper ? paper->title : e.paper,
                  paper && !paper->reference.empty() ? " (" + paper->reference + ")" : "", e.source,
                  theorems::to_text(e.provenance));
  out += fmt::format("  kind:       {} bound on {}\n  task:       {}\n", theorems::to_text(e.kind),
                     e.quantity, e.task);
  out += fmt::format("  setting:    {}\n  hypotheses: {}\n", relations_text(e.setting),
                     relations_text(e.hypotheses));
  out += fmt::format("  bound:      {}\n  normal form: {}\n", bound_text(e),
                     e.rate.print(theorems::landau_of(e.kind)));
  out += fmt::format("  LaTeX:      {}\n", bound_latex(e));
  if (!e.notes.empty()) out += "  notes:      " + e.notes + "\n";
  out += "  defined at: " + e.where.to_string() + "\n";
  return out;
}

std::string catalogue_list_text(const Catalogue& catalogue) {
  std::size_t width = 0;
  for (const Entry& e : catalogue.entries()) width = std::max(width, e.id.size());
  std::string out;
  for (const Entry& e : catalogue.entries()) {
    out += fmt::format("{:<{}}  {:<13} {:<6} {}\n", e.id, width, theorems::to_text(e.provenance),
                       theorems::to_text(e.kind), bound_text(e));
  }
  return out;
}

std::string findings_text(const CheckReport& report) {
  std::string out;
  for (const Finding& f : report.findings) {
    out += fmt::format("{}: {}: {}", theorems::to_text(f.severity), theorems::to_text(f.kind),
                       f.summary);
    if (!f.condition.empty()) out += "\n    condition: " + f.condition;
    out += witnesses_text(f);
    if (f.witnesses.empty() && f.missing_witnesses.empty()) {
      const std::string marker = "could not be decided: ";
      const std::size_t at = f.summary.find(marker);
      out += at == std::string::npos ? "\n    no witness: the solver gave no point it could verify"
                                     : "\n    no witness: " + f.summary.substr(at + marker.size());
    }
    for (const std::string& s : f.suggestions) out += "\n    fix: " + s;
    if (!f.certificate.empty()) out += "\n    certificate: " + f.certificate;
    out += "\n";
  }
  out += report.brief() + "\n";
  return out;
}

nlohmann::json to_json(const Entry& e) {
  nlohmann::json setting = nlohmann::json::array();
  for (const WrittenRelation& w : e.setting) setting.push_back(symbolic::to_text(w.relation));
  nlohmann::json hypotheses = nlohmann::json::array();
  for (const WrittenRelation& w : e.hypotheses) hypotheses.push_back(symbolic::to_text(w.relation));
  return {{"id", e.id},
          {"paper", e.paper},
          {"source", e.source},
          {"provenance", theorems::to_text(e.provenance)},
          {"kind", theorems::to_text(e.kind)},
          {"quantity", e.quantity},
          {"task", e.task},
          {"setting", setting},
          {"hypotheses", hypotheses},
          {"rate", symbolic::to_text(e.rate_written)},
          {"rate_latex", symbolic::to_latex(e.rate_written)},
          {"eps_exponent", symbolic::canonical(e.rate.eps_exponent())},
          {"log_exponent", symbolic::canonical(e.rate.log_exponent())},
          {"notes", e.notes},
          {"defined_at", e.where.to_string()}};
}

nlohmann::json to_json(const Catalogue& catalogue) {
  nlohmann::json entries = nlohmann::json::array();
  for (const Entry& e : catalogue.entries()) entries.push_back(to_json(e));
  return {{"entries", entries}};
}

nlohmann::json to_json(const CheckReport& report) {
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& f : report.findings) {
    nlohmann::json witnesses = nlohmann::json::array();
    for (const theorems::LabelledWitness& w : f.witnesses) {
      nlohmann::json point = nlohmann::json::object();
      for (const auto& [info, value] : w.point.values) {
        std::ostringstream v;
        v << value;
        point[info->name] = v.str();
      }
      witnesses.push_back({{"label", w.label}, {"point", point}});
    }
    findings.push_back({{"severity", theorems::to_text(f.severity)},
                        {"kind", theorems::to_text(f.kind)},
                        {"entries", f.entries},
                        {"summary", f.summary},
                        {"condition", f.condition},
                        {"gap", f.gap},
                        {"witnesses", witnesses},
                        {"missing_witnesses", f.missing_witnesses},
                        {"suggestions", f.suggestions}});
    if (!f.certificate.empty()) findings.back()["certificate"] = f.certificate;
  }
  return {{"findings", findings},
          {"entries", report.entries},
          {"pairs_examined", report.pairs_examined},
          {"comparisons", report.comparisons},
          {"comparisons_decided", report.comparisons_decided},
          {"errors", report.count(theorems::Severity::kError)},
          {"warnings", report.count(theorems::Severity::kWarning)},
          {"notes", report.count(theorems::Severity::kInfo)}};
}

}  // namespace infoflow::report
