// certify, and the --certify option of check and compare: certificates re-proved by Coq.

#include <fmt/format.h>

#include "infoflow/certify.hpp"
#include "infoflow/report/catalogue_report.hpp"
#include "infoflow/theorems/check.hpp"
#include "infoflow/theorems/engine.hpp"

#include "commands/certify_options.hpp"
#include "commands/commands.hpp"

namespace infoflow::app {

void CertifyFlags::add_to(CLI::App& cmd) {
  cmd.add_option("--certify", directory,
                 "write a Coq certificate for every decided question into this directory, "
                 "re-prove them with coqc and re-decide them with cvc5");
  cmd.add_flag("--no-coq", no_coq, "with --certify: write the certificates, do not run coqc");
  cmd.add_flag("--no-cvc5", no_cvc5, "with --certify: no cvc5 cross-check");
}

certify::Summary CertifyFlags::run(const symbolic::Journal& journal, int& exit_code) const {
  certify::Options options;
  options.directory = directory;
  options.run_coq = !no_coq;
  options.run_cvc5 = !no_cvc5;
  const certify::Summary summary = certify::certify(journal, options);
  if (summary.count(certify::ProofStatus::kFalse) > 0) {
    std::cerr << "infoflow: internal error: a decided statement is false (a defect of the tool):\n"
              << summary.problems();
    exit_code = static_cast<int>(ExitCode::kInternal);
  }
  return summary;
}

std::string certificate_text(const certify::Summary& summary) {
  std::string out = "certificates: " + summary.brief() + "\n";
  const std::string problems = summary.problems();
  if (!problems.empty()) out += problems;
  return out;
}

void add_certify(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand(
      "certify", "re-prove every decided question of `check` with Coq (and cvc5): writes the "
                 "certificates into DIR, runs coqc, reports per fact");
  auto directory = std::make_shared<std::string>();
  auto target_files = std::make_shared<std::vector<std::string>>();
  auto no_cvc5 = std::make_shared<bool>(false);
  auto all = std::make_shared<bool>(false);
  cmd->add_option("dir", *directory, "where the certificates go")->required();
  cmd->add_option("--targets", *target_files, "as for check");
  cmd->add_flag("--no-cvc5", *no_cvc5, "no cvc5 cross-check");
  cmd->add_flag("--facts", *all, "list every fact with its state");
  cmd->callback([&ctx, directory, target_files, no_cvc5, all] {
    theorems::Catalogue catalogue = ctx.load();
    theorems::add_derived_bounds(catalogue, *target_files);
    symbolic::Journal journal;
    theorems::CheckOptions options;
    options.journal = &journal;
    theorems::CheckReport result = theorems::check(catalogue, options);
    CertifyFlags flags;
    flags.directory = *directory;
    flags.no_cvc5 = *no_cvc5;
    const certify::Summary summary = flags.run(journal, ctx.exit_code);
    certify::annotate(result, summary);
    std::string out;
    for (std::size_t i = 0; i < result.findings.size(); ++i) {
      const theorems::Finding& f = result.findings[i];
      out += fmt::format("finding {} ({} {}): {}\n", i + 1, theorems::to_text(f.kind),
                         fmt::join(f.entries, ", "),
                         f.certificate.empty() ? "no decided question" : f.certificate);
    }
    if (*all) {
      for (const certify::Fact& f : summary.facts) {
        out += fmt::format("  fact {} [{}] {}: {} (Z3 {}, cvc5 {})\n", f.index, f.file,
                           f.statement.empty() ? f.detail : f.statement, certify::to_text(f.status),
                           f.z3, f.cvc5.empty() ? "-" : f.cvc5);
      }
    }
    out += certificate_text(summary);
    out += "check: " + result.brief() + "\n";
    emit(out, "");
  });
}

}  // namespace infoflow::app
