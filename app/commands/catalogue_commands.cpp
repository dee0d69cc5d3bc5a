// symbols, list, show, table: reading the catalogue.

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "infoflow/report/catalogue_report.hpp"
#include "infoflow/session/check.hpp"
#include "infoflow/symbolic/symbols.hpp"
#include "infoflow/theorems/check.hpp"
#include "infoflow/theorems/engine.hpp"

#include "commands/certify_options.hpp"
#include "commands/commands.hpp"

namespace infoflow::app {

void LatexArguments::add_to(CLI::App* cmd) {
  cmd->add_flag("--standalone", standalone,
                "with LaTeX: a complete document (its bibliography from the catalogue's papers)");
  cmd->add_option("--label-prefix", options.label_prefix,
                  "with LaTeX: put P: before every label, e.g. P:entry:ID (default: labels that "
                  "differ by content)");
  cmd->add_option("--columns", options.columns,
                  "with LaTeX: 1 (longtable) or 2 (table* floats, for a two-column paper)")
      ->check(CLI::IsMember({1, 2}))
      ->capture_default_str();
}

void LatexArguments::check(bool latex) const {
  if (!latex) {
    if (standalone) throw InputError("--standalone needs --format latex");
    if (!options.label_prefix.empty()) throw InputError("--label-prefix needs --format latex");
    if (options.columns != 1) throw InputError("--columns needs --format latex");
  }
  if (!options.label_prefix.empty()) report::check_label_prefix(options.label_prefix);
}

std::string LatexArguments::finish(const std::string& body,
                                   const theorems::Catalogue& catalogue) const {
  return standalone ? report::latex_document(body, catalogue, options) : body;
}

void add_symbols(CLI::App& app, Context&) {
  CLI::App* cmd = app.add_subcommand("symbols", "the symbols formulas may use, with their domains");
  cmd->callback([] {
    std::string out;
    for (const symbolic::SymbolInfo* s : symbolic::SymbolRegistry::standard().all()) {
      if (s->name.find('@') != std::string::npos) continue;
      std::ostringstream lower;
      lower << s->lower;
      std::string domain = (s->integer ? "integer " : "real ") +
                           std::string(s->lower_strict ? "> " : ">= ") + lower.str();
      if (s->upper) {
        std::ostringstream upper;
        upper << *s->upper;
        domain += ", < " + upper.str();
      }
      out += fmt::format("{:<6} {:<18} {}\n", s->name, domain, s->meaning);
    }
    out += "implicit facts (every decision and witness respects them):\n";
    for (const symbolic::ImplicitFact& f : symbolic::SymbolRegistry::standard().implicit_facts()) {
      out += "  " + f.why + "\n";
    }
    emit(out, "");
  });
}

void add_list(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand("list", "the catalogue's entries, one a line");
  auto format = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  add_format_option(cmd, *format, {"text", "json"});
  add_output_option(cmd, *output);
  cmd->callback([&ctx, format, output] {
    const theorems::Catalogue catalogue = ctx.load();
    emit(*format == "json" ? report::to_json(catalogue).dump(2) + "\n"
                           : report::catalogue_list_text(catalogue),
         *output);
  });
}

void add_show(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand("show", "one entry, whole");
  auto id = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  auto latex = std::make_shared<LatexArguments>();
  cmd->add_option("id", *id, "entry id (see `infoflow list`)")->required();
  add_format_option(cmd, *format, {"text", "latex", "json"});
  add_output_option(cmd, *output);
  latex->add_to(cmd);
  cmd->callback([&ctx, id, format, output, latex] {
    latex->check(*format == "latex");
    const theorems::Catalogue catalogue = ctx.load();
    const theorems::Entry* entry = catalogue.find(*id);
    if (entry == nullptr) throw InputError("no entry '" + *id + "' (see `infoflow list`)");
    if (*format == "json") {
      emit(report::to_json(*entry).dump(2) + "\n", *output);
    } else if (*format == "latex") {
      emit(latex->finish(report::entry_latex(*entry, catalogue, latex->options), catalogue),
           *output);
    } else {
      emit(report::entry_text(*entry, catalogue), *output);
    }
  });
}

void add_table(CLI::App& app, Context& ctx) {
  CLI::App* cmd =
      app.add_subcommand("table", "booktabs LaTeX tables of the catalogue and of the check");
  auto what = std::make_shared<std::string>("catalogue");
  auto output = std::make_shared<std::string>();
  auto latex = std::make_shared<LatexArguments>();
  cmd->add_option("--of", *what, "catalogue, findings or both")
      ->check(CLI::IsMember({"catalogue", "findings", "both"}));
  add_output_option(cmd, *output);
  latex->add_to(cmd);
  cmd->callback([&ctx, what, output, latex] {
    latex->check(true);
    const theorems::Catalogue catalogue = ctx.load();
    std::string body;
    if (*what != "findings") body += report::catalogue_table_latex(catalogue, latex->options);
    if (*what != "catalogue")
      body += report::findings_table_latex(theorems::check(catalogue), catalogue, latex->options);
    emit(latex->finish(body, catalogue), *output);
  });
}

void add_check(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand(
      "check", "consistency of the catalogue: contradictions, separations, implications, vacuity");
  auto format = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  auto timeout = std::make_shared<long>(2000);
  add_format_option(cmd, *format, {"text", "latex", "json"});
  add_output_option(cmd, *output);
  cmd->add_option("--timeout-ms", *timeout, "per solver query")->capture_default_str();
  auto target_files = std::make_shared<std::vector<std::string>>();
  cmd->add_option("--targets", *target_files,
                  "a target file: the bounds the InfoFlow engine derives for its targets' "
                  "architectures join the catalogue (repeatable)");
  auto certify = std::make_shared<CertifyFlags>();
  certify->add_to(*cmd);
  auto latex = std::make_shared<LatexArguments>();
  latex->add_to(cmd);
  cmd->callback([&ctx, format, output, timeout, target_files, certify, latex] {
    latex->check(*format == "latex");
    theorems::CheckOptions options = session::check_options(*timeout);
    theorems::Catalogue catalogue = ctx.load();
    theorems::add_derived_bounds(catalogue, *target_files);
    symbolic::Journal journal;
    if (certify->wanted()) options.journal = &journal;
    theorems::CheckReport result = theorems::check(catalogue, options);
    int certify_exit = 0;
    std::optional<certify::Summary> certificates;
    if (certify->wanted()) {
      certificates = certify->run(journal, certify_exit);
      certify::annotate(result, *certificates);
    }
    if (*format == "json") {
      nlohmann::json j = report::to_json(result);
      if (certificates) j["certificates"] = certificates->brief();
      emit(j.dump(2) + "\n", *output);
    } else if (*format == "latex") {
      emit(latex->finish(report::findings_table_latex(result, catalogue, latex->options), catalogue),
           *output);
    } else {
      emit(report::findings_text(result, catalogue) +
               (certificates ? certificate_text(*certificates) : std::string()),
           *output);
    }
    if (result.count(theorems::Severity::kError) > 0)
      ctx.exit_code = static_cast<int>(ExitCode::kFindings);
    if (certify_exit != 0) ctx.exit_code = certify_exit;
  });
}

}  // namespace infoflow::app
