#include "infoflow/report/catalogue_report.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
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
  const std::string provenance = e.provenance_text();
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
  const std::string provenance = e.provenance_text();
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

std::string short_hash(const std::string& content) {
  std::uint32_t h = 2166136261u;  // FNV-1a, 32 bits
  for (const char c : content) {
    h ^= static_cast<unsigned char>(c);
    h *= 16777619u;
  }
  return fmt::format("{:08x}", h);
}

void check_label_prefix(const std::string& prefix) {
  const bool usable = !prefix.empty() && std::all_of(prefix.begin(), prefix.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == ':' || c == '-';
  });
  if (!usable) {
    throw InputError("--label-prefix '" + prefix +
                     "': use letters, digits, '.', ':' and '-' (what \\label keys keep safe)");
  }
}

std::string LatexOptions::label(const std::string& kind, const std::string& id) const {
  return latex_label(label_prefix.empty() ? kind : label_prefix + ":" + kind, id);
}

std::string table_latex(const LatexTable& t, const LatexOptions& options) {
  // Each p column a fraction of \linewidth (its padding included), ragged right; \hspace{0pt}
  // lets TeX hyphenate a cell's first word, which a narrow header cell may need.
  std::string columns;
  for (const double fraction : t.widths) {
    columns += fmt::format(
        ">{{\\raggedright\\arraybackslash\\hspace{{0pt}}}}p{{\\dimexpr {:.2f}\\linewidth-2\\tabcolsep\\relax}}",
        fraction);
  }
  const std::string header = "\\toprule\n" + t.header + " \\\\\n\\midrule\n";
  const std::string caption =
      t.legend.empty() ? "\\caption{" + t.caption + "}"
                       : "\\caption[" + t.caption + "]{" + t.caption + " " + t.legend + "}";
  std::string out = t.comment + "\n";
  if (options.columns != 2) {
    out += "{\\small\n\\begin{longtable}{" + columns + "}\n" + caption + "\\label{" + t.label +
           "}\\\\\n" + header + "\\endfirsthead\n" + header + "\\endhead\n";
    for (const std::string& row : t.rows) out += row + " \\\\\n";
    return out + "\\bottomrule\n\\end{longtable}\n}\n";
  }
  // A float does not break across pages: a long table becomes several, the later ones headed
  // by a reference to the first.
  const std::size_t per_float = std::max<std::size_t>(t.rows_per_float, 1);
  for (std::size_t first = 0; first == 0 || first < t.rows.size(); first += per_float) {
    out += "\\begin{table*}[tbp]\n\\small\n";
    out += first == 0 ? caption + "\\label{" + t.label + "}\n"
                      : "\\noindent Table~\\ref{" + t.label + "}, continued.\\par\\smallskip\n";
    out += "\\begin{tabular}{" + columns + "}\n" + header;
    for (std::size_t i = first; i < std::min(first + per_float, t.rows.size()); ++i)
      out += t.rows[i] + " \\\\\n";
    out += "\\bottomrule\n\\end{tabular}\n\\end{table*}\n";
  }
  return out;
}

std::string latex_preamble() {
  return "\\usepackage{amsmath}\n\\usepackage{booktabs}\n"
         "\\usepackage{longtable}\n\\usepackage{array}\n";
}

std::string source_latex(const Entry& e, const Catalogue& catalogue) {
  const theorems::Paper* paper = catalogue.find_paper(e.paper);
  const bool tools = e.provenance == theorems::Provenance::kFormalization ||
                     e.provenance == theorems::Provenance::kDerived;
  if (tools) return latex_escape(e.source) + " (this tool, " + theorems::to_text(e.provenance) + ")";
  if (paper == nullptr || paper->cite.empty()) {
    // A paper without a BibTeX key: named by its title.
    return latex_escape(e.source) + (paper == nullptr ? "" : ", " + latex_escape(paper->title));
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

/// An entry's number and label, shared by the catalogue table's row and `show`'s paragraph:
/// \infoflowlabel{N}{KEY} numbers the place N and labels it KEY, unless KEY was labelled
/// already in this document (then it does nothing: the first place keeps the label, and \ref
/// prints N, the table's number, wherever the label is).
const char* kEntryLabel =
    "\\expandafter\\ifx\\csname c@infoflowentry\\endcsname\\relax\\newcounter{infoflowentry}\\fi\n"
    "\\providecommand\\infoflowlabel[2]{\\expandafter\\ifx\\csname infoflow@#2\\endcsname\\relax"
    "\\expandafter\\gdef\\csname infoflow@#2\\endcsname{}\\setcounter{infoflowentry}{#1}"
    "\\addtocounter{infoflowentry}{-1}\\refstepcounter{infoflowentry}\\label{#2}\\fi}\n";

/// The entry's number in the catalogue table: its place in the catalogue, from 1.
std::size_t entry_number(const Entry& e, const Catalogue& catalogue) {
  const std::vector<Entry>& all = catalogue.entries();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].id == e.id) return i + 1;
  }
  return 0;
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

/// The symbols the check renames apart per entry ("c@ID", in LaTeX c^{(\mathrm{ID})}, see
/// SymbolRegistry::renamed) under short names: the entry's number in the catalogue table, "c_4"
/// and c^{(4)}, with a legend naming the entries.
class ShortNames {
 public:
  ShortNames(const CheckReport& report, const Catalogue& catalogue) {
    std::string written;  // every text of the findings
    for (const Finding& f : report.findings) {
      written += f.summary + "\n" + f.condition + "\n" + f.gap + "\n";
      for (const theorems::LabelledWitness& w : f.witnesses) written += w.point.to_text() + "\n";
      for (const std::string& m : f.missing_witnesses) written += m + "\n";
      for (const std::string& s : f.suggestions) written += s + "\n";
    }
    const std::vector<Entry>& entries = catalogue.entries();
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (written.find("@" + entries[i].id) != std::string::npos)
        tags_.push_back({entries[i].id, i + 1});
    }
    // The longest first, so that an id which begins another is not replaced inside it.
    sorted_ = tags_;
    std::stable_sort(sorted_.begin(), sorted_.end(),
                     [](const Tag& a, const Tag& b) { return a.id.size() > b.id.size(); });
  }

  [[nodiscard]] std::string text(std::string s) const {
    for (const Tag& t : sorted_) replace_all(s, "@" + t.id, "_" + std::to_string(t.number));
    return s;
  }
  [[nodiscard]] std::string latex(std::string s) const {
    for (const Tag& t : sorted_) {
      std::string id;
      for (const char c : t.id) id += c == '_' ? std::string("\\_") : std::string(1, c);
      replace_all(s, "^{(\\mathrm{" + id + "})}", "^{(" + std::to_string(t.number) + ")}");
    }
    return s;
  }
  [[nodiscard]] std::string legend_text() const {
    if (tags_.empty()) return {};
    std::string list;
    for (const Tag& t : tags_) list += fmt::format("{}{}: {}", list.empty() ? "" : "; ", t.number, t.id);
    return "symbols renamed apart: X_N is entry N's own X (" + list + ")\n";
  }
  [[nodiscard]] std::string legend_latex() const {
    if (tags_.empty()) return {};
    std::string list;
    for (const Tag& t : tags_)
      list += fmt::format("{}({}) {}", list.empty() ? "" : "; ", t.number, latex_identifier(t.id));
    return "A superscript $(N)$ marks a symbol of entry~$N$ of the catalogue alone (each entry's "
           "unknown constants are its own): " + list + ".";
  }

 private:
  struct Tag {
    std::string id;
    std::size_t number = 0;
  };
  std::vector<Tag> tags_;    // in catalogue order, for the legend
  std::vector<Tag> sorted_;  // longest id first, for the replacements
};

}  // namespace

std::string entry_latex(const Entry& e, const Catalogue& catalogue, const LatexOptions& options) {
  const theorems::Paper* paper = catalogue.find_paper(e.paper);
  std::string out = "% infoflow show " + e.id + " --format latex (needs: amsmath)\n" + kEntryLabel;
  const std::size_t number = entry_number(e, catalogue);
  out += fmt::format("\\par\\medskip\\noindent\\infoflowlabel{{{}}}{{{}}}"
                     "\\textbf{{Entry~{}}}\\quad {}\\par\\nopagebreak\n\\noindent ",
                     number, options.label("entry", e.id), number, latex_identifier(e.id));
  out += fmt::format("{}{}, {} bound ({}). ", source_latex(e, catalogue),
                     paper != nullptr && e.is_claim() && !paper->cite.empty()
                         ? " (" + latex_escape(paper->title) + ")"
                         : "",
                     theorems::to_text(e.kind), latex_escape(e.provenance_text()));
  out += "Task: " + latex_identifier(e.task) + ". ";
  out += e.setting.empty() ? std::string("In any setting")
                           : "In the setting " + relations_cell(e.setting);
  out += e.hypotheses.empty() ? std::string(", ") : ", under " + relations_cell(e.hypotheses) + ", ";
  out += "the parameter count satisfies\n\\[\n  " + latex_escape(e.quantity) + " = " +
         bound_latex(e) + ".\n\\]\n";
  if (!e.notes.empty()) out += "\\emph{Notes.} " + latex_escape(e.notes) + "\n";
  return out;
}

std::string catalogue_table_latex(const Catalogue& catalogue, const LatexOptions& options) {
  // Columns as fractions of \linewidth (summing to 1): the table fits any text width, the
  // cells break between relations and inside identifiers.
  std::string cited;
  for (const theorems::Paper& p : catalogue.papers()) {
    if (!p.cite.empty()) cited += (cited.empty() ? "" : ",") + p.cite;
  }
  LatexTable t;
  t.comment = "% infoflow table --of catalogue (needs: booktabs, longtable, array, amsmath)\n" +
              std::string(kEntryLabel);
  t.comment.pop_back();  // table_latex ends the comment's line
  t.widths = {0.05, 0.25, 0.15, 0.15, 0.13, 0.27};
  t.caption = "Approximation bounds on the parameter count $M$" +
              (cited.empty() ? std::string() : " from \\cite{" + cited + "}") +
              ". Provenance: \\emph{seed} and \\emph{predecessor} are stated in the papers, "
              "\\emph{formalization} and \\emph{derived} are this tool's, \\emph{conjecture} is "
              "unproved, \\emph{ours} is the catalogue author's own result (or as its author labels it).";
  t.label = options.label("tab", "infoflow-catalogue");
  t.header = "\\# & Entry and source & Provenance, task & Setting & Hypotheses & Bound";
  t.rows_per_float = 12;
  const std::vector<Entry>& entries = catalogue.entries();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    t.rows.push_back(fmt::format("{}\\infoflowlabel{{{}}}{{{}}} & {}\\newline {} & {}, {} bound; {} "
                                 "& {} & {} & {}",
                                 i + 1, i + 1, options.label("entry", e.id), latex_identifier(e.id),
                                 source_latex(e, catalogue), latex_escape(e.provenance_text()),
                                 theorems::to_text(e.kind), latex_identifier(e.task),
                                 relations_cell(e.setting), relations_cell(e.hypotheses),
                                 bound_cell_latex(e)));
  }
  return table_latex(t, options);
}

std::string findings_table_latex(const CheckReport& report, const Catalogue& catalogue,
                                 const LatexOptions& options) {
  const ShortNames names(report, catalogue);
  LatexTable t;
  t.comment = "% infoflow check --format latex (needs: booktabs, longtable, array, amsmath)";
  t.widths = {0.14, 0.24, 0.32, 0.30};
  t.caption = "Consistency check of the catalogue of approximation bounds: each finding "
              "with the regime where it holds and points that witness it.";
  t.legend = names.legend_latex();
  t.label = options.label("tab", "infoflow-findings");
  t.header = "Finding & Entries & Condition & Witnesses";
  t.rows_per_float = 6;
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
    const std::string condition =
        f.condition_latex.empty()
            ? prose_latex(names.text(f.condition.empty() ? "---" : f.condition))
            : "$" + names.latex(f.condition_latex) + "$";
    std::string witnesses;
    for (const theorems::LabelledWitness& w : f.witnesses) {
      if (!witnesses.empty()) witnesses += "\\newline ";
      witnesses += prose_latex(w.label) + ": " + names.latex(witness_latex(w.point));
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
                      : "none: " + prose_latex(names.text(f.summary.substr(at + marker.size())));
    }
    // A checked certificate is cited beside the kind.
    const std::string certified =
        f.certificate.rfind("re-proved", 0) == 0 ? "$^{\\surd}$" : "";
    t.rows.push_back(fmt::format("{}: {}{} & {} & {} & {}", theorems::to_text(f.severity),
                                 latex_escape(theorems::to_text(f.kind)), certified, entries,
                                 condition, witnesses));
  }
  return table_latex(t, options);
}

std::string bibliography_latex(const std::string& body, const Catalogue& catalogue) {
  std::string items;
  for (const theorems::Paper& p : catalogue.papers()) {
    if (p.cite.empty() || body.find(p.cite) == std::string::npos) continue;
    // "Authors. \emph{Title}. Reference, year." with the parts a paper leaves out left out.
    std::string where = latex_escape(p.reference);
    if (p.year > 0) where += (where.empty() ? "" : ", ") + std::to_string(p.year);
    items += "\\bibitem{" + p.cite + "} " + (p.authors.empty() ? "" : latex_escape(p.authors) + ". ") +
             "\\emph{" + latex_escape(p.title) + "}." + (where.empty() ? "" : " " + where + ".") +
             "\n";
  }
  if (items.empty()) return {};
  return "\\begin{thebibliography}{9}\n" + items + "\\end{thebibliography}\n";
}

std::string latex_document(const std::string& body, const Catalogue& catalogue,
                           const LatexOptions& options) {
  return std::string(options.columns == 2 ? "\\documentclass[10pt,twocolumn]{article}"
                                          : "\\documentclass[10pt]{article}") +
         "\n\\usepackage[margin=2.5cm]{geometry}\n" +
         latex_preamble() + "\\begin{document}\n" + body + bibliography_latex(body, catalogue) +
         "\\end{document}\n";
}

std::string entry_text(const Entry& e, const Catalogue& catalogue) {
  const theorems::Paper* paper = catalogue.find_paper(e.paper);
  std::string out =
      fmt::format("{}\n  paper:      {}{}\n  source:     {}\n  provenance: {}\n", e.id,
                  paper ? paper->title : e.paper,
                  paper && !paper->reference.empty() ? " (" + paper->reference + ")" : "", e.source,
                  e.provenance_text());
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
    out += fmt::format("{:<{}}  {:<13} {:<6} {}\n", e.id, width, e.provenance_text(),
                       theorems::to_text(e.kind), bound_text(e));
  }
  return out;
}

std::string findings_text(const CheckReport& report, const Catalogue& catalogue) {
  const ShortNames names(report, catalogue);
  std::string out;
  for (const Finding& f : report.findings) {
    std::string text = fmt::format("{}: {}: {}", theorems::to_text(f.severity),
                                   theorems::to_text(f.kind), f.summary);
    if (!f.condition.empty()) text += "\n    condition: " + f.condition;
    for (const theorems::LabelledWitness& w : f.witnesses) {
      const std::string point = w.point.to_text();
      text += fmt::format("\n    {}: {}", w.label,
                          point.empty() ? "any point (the setting fixes every symbol)" : point);
    }
    for (const std::string& m : f.missing_witnesses) text += "\n    no witness for " + m;
    if (f.witnesses.empty() && f.missing_witnesses.empty()) {
      const std::string marker = "could not be decided: ";
      const std::size_t at = f.summary.find(marker);
      text += at == std::string::npos ? "\n    no witness: the solver gave no point it could verify"
                                      : "\n    no witness: " + f.summary.substr(at + marker.size());
    }
    for (const std::string& s : f.suggestions) text += "\n    fix: " + s;
    if (!f.certificate.empty()) text += "\n    certificate: " + f.certificate;
    out += names.text(text) + "\n";
  }
  out += names.legend_text();
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
          {"provenance_label", e.provenance_label},
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
