// compare: two ad-hoc rates, in both regimes.

#include <nlohmann/json.hpp>

#include "infoflow/session/compare.hpp"

#include "commands/certify_options.hpp"
#include "commands/commands.hpp"

namespace infoflow::app {

void add_compare(CLI::App& app, Context& ctx) {
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "compare two rates as eps -> 0 and as T -> infinity, e.g. compare 'eps^(-T/(n+1))' "
      "'Omega(eps^(-T/(n+2)))'; a rate may be bare or in O(...), Omega(...), Theta(...), as the "
      "tool prints it");
  auto first = std::make_shared<std::string>();
  auto second = std::make_shared<std::string>();
  auto assumptions = std::make_shared<std::vector<std::string>>();
  auto format = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  cmd->add_option("first", *first, "a rate")->required();
  cmd->add_option("second", *second, "a rate")->required();
  cmd->add_option("--assume", *assumptions, "a relation on the parameters, e.g. 'k >= 2'");
  add_format_option(cmd, *format, {"text", "json"});
  add_output_option(cmd, *output);
  auto certify = std::make_shared<CertifyFlags>();
  certify->add_to(*cmd);
  cmd->callback([&ctx, first, second, assumptions, format, output, certify] {
    symbolic::SignOracle oracle;
    symbolic::Journal journal;
    const session::Comparison c = session::compare(*first, *second, *assumptions, oracle,
                                                   certify->wanted() ? &journal : nullptr);
    std::optional<certify::Summary> certificates;
    if (certify->wanted()) certificates = certify->run(journal, ctx.exit_code);
    if (*format == "json") {
      nlohmann::json j = session::comparison_json(c);
      if (certificates) j["certificates"] = certificates->brief();
      emit(j.dump(2) + "\n", *output);
      return;
    }
    emit(session::comparison_text(c) + (certificates ? certificate_text(*certificates) : ""),
         *output);
  });
}

}  // namespace infoflow::app
