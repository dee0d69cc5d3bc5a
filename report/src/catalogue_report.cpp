#include "infoflow/report/catalogue_report.hpp"

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

std::string relations_latex(const std::vector<WrittenRelation>& relations) {
  std::string out;
  for (const WrittenRelation& w : relations) {
    if (!out.empty()) out += ",\\ ";
    out += symbolic::to_latex(w.relation);
  }
  return out.empty() ? "---" : "$" + out + "$";
}

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
  return out;
}

}  // namespace

std::string bound_latex(const Entry& e) {
  const char* landau = e.kind == theorems::Kind::kUpper   ? "O"
                       : e.kind == theorems::Kind::kLower ? "\\Omega"
                                                          : "\\Theta";
  return std::string(landau) + "\\left(" + symbolic::to_latex(e.rate_written) + "\\right)";
}

std::string latex_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '_':
        out += "\\_";
        break;
      case '&':
        out += "\\&";
        break;
      case '%':
        out += "\\%";
        break;
      case '#':
        out += "\\#";
        break;
      case '$':
        out += "\\$";
        break;
      case '{':
        out += "\\{";
        break;
      case '}':
        out += "\\}";
        break;
      case '~':
        out += "\\textasciitilde{}";
        break;
      case '^':
        out += "\\textasciicircum{}";
        break;
      case '\\':
        out += "\\textbackslash{}";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string catalogue_table_latex(const Catalogue& catalogue) {
  std::string out =
      "\\begin{longtable}{@{}llllp{3.6cm}p{2.6cm}l@{}}\n"
      "\\caption{Catalogue of approximation bounds (M: parameter count).}\\\\\n\\toprule\n"
      "Entry & Source & Provenance & Task & Setting & Hypotheses & Bound \\\\\n\\midrule\n"
      "\\endhead\n";
  for (const Entry& e : catalogue.entries()) {
    out += fmt::format("\\texttt{{{}}} & {} & {} & {} & {} & {} & {} \\\\\n", latex_escape(e.id),
                       latex_escape(e.source), theorems::to_text(e.provenance),
                       latex_escape(e.task), relations_latex(e.setting),
                       relations_latex(e.hypotheses), "$" + bound_latex(e) + "$");
  }
  out += "\\bottomrule\n\\end{longtable}\n";
  return out;
}

std::string findings_table_latex(const CheckReport& report) {
  std::string out =
      "\\begin{longtable}{@{}llp{4.4cm}p{4.2cm}p{4.2cm}@{}}\n"
      "\\caption{Consistency check of the catalogue.}\\\\\n\\toprule\n"
      "Severity & Kind & Entries & Condition & Witness \\\\\n\\midrule\n\\endhead\n";
  for (const Finding& f : report.findings) {
    std::string entries;
    for (const std::string& id : f.entries) {
      entries += (entries.empty() ? "" : ", ") + std::string("\\texttt{") + latex_escape(id) + "}";
    }
    const std::string condition = f.condition_latex.empty()
                                      ? latex_escape(f.condition.empty() ? "---" : f.condition)
                                      : "$" + f.condition_latex + "$";
    const std::string witness =
        f.witnesses.empty() ? "---" : latex_escape(f.witnesses.front().point.to_text());
    // A checked certificate is cited beside the kind.
    const std::string certified =
        f.certificate.rfind("re-proved", 0) == 0 ? "$^{\\surd}$" : "";
    out += fmt::format("{} & {}{} & {} & {} & {} \\\\\n", theorems::to_text(f.severity),
                       theorems::to_text(f.kind), certified, entries, condition, witness);
  }
  out += "\\bottomrule\n\\end{longtable}\n";
  return out;
}

std::string latex_document(const std::string& body) {
  return "\\documentclass[10pt]{article}\n\\usepackage[margin=1.5cm,landscape]{geometry}\n"
         "\\usepackage{amsmath}\n\\usepackage{booktabs}\n\\usepackage{longtable}\n"
         "\\begin{document}\n" +
         body + "\\end{document}\n";
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
