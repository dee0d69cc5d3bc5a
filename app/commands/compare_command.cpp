// compare: two ad-hoc rates, in both regimes.

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "infoflow/symbolic/compare.hpp"

#include "commands/certify_options.hpp"
#include "commands/commands.hpp"

namespace infoflow::app {

namespace {

std::string written(const symbolic::WrittenBound& b) {
  return b.landau ? b.rate.print(*b.landau) : b.rate.print();
}

/// A `depends` answer has a point where the first grows faster and one where it does not; the
/// side without one, and why ("" when both have one, or the answer is not `depends`).
std::string missing_side(const symbolic::RateComparison& c) {
  if (c.growth != symbolic::Growth::kDepends) return "";
  const symbolic::SignDecision& s = c.gap_sign;
  const std::string why = "the solver decided that there is one but gave no exact point";
  if (!s.positive_at) return "for faster: " + why;
  if (!s.negative_at && !s.zero_at) return "for not faster: " + why;
  return "";
}

}  // namespace

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
    const symbolic::WrittenBound a =
        symbolic::parse_bound(*first, SourceLocation{"first rate", 1, 1});
    const symbolic::WrittenBound b =
        symbolic::parse_bound(*second, SourceLocation{"second rate", 1, 1});
    symbolic::Domain domain;
    for (std::size_t i = 0; i < assumptions->size(); ++i) {
      const SourceLocation where{"--assume #" + std::to_string(i + 1), 1, 1};
      for (const symbolic::Relation& r : symbolic::parse_relations((*assumptions)[i], where)) {
        domain.require(r, (*assumptions)[i]);
      }
    }
    symbolic::SignOracle oracle;
    symbolic::Journal journal;
    if (certify->wanted()) oracle.set_journal(&journal);
    if (oracle.satisfiable(domain).status == symbolic::Satisfiability::kUnsatisfiable) {
      throw InputError("the assumptions contradict each other: " + domain.to_text());
    }
    journal.context.topic = "first against second as eps -> 0";
    const symbolic::RateComparison eps =
        symbolic::compare_as_eps_to_zero(a.rate, b.rate, domain, oracle);
    journal.context = {"first against second as T -> infinity", {}, {}, {}, {}};
    const symbolic::RateComparison T =
        symbolic::compare_as_T_to_infinity(a.rate, b.rate, domain, oracle);
    std::optional<certify::Summary> certificates;
    if (certify->wanted()) certificates = certify->run(journal, ctx.exit_code);
    if (*format == "json") {
      const auto describe = [](const symbolic::RateComparison& c) {
        nlohmann::json j = {{"growth", symbolic::to_text(c.growth)},
                            {"decided_by", c.decided_by},
                            {"gap", symbolic::canonical(c.gap)},
                            {"note", c.note}};
        if (c.growth == symbolic::Growth::kDepends) j["faster_when"] = c.faster_when.text;
        if (c.gap_sign.positive_at) j["faster_at"] = c.gap_sign.positive_at->to_text();
        if (c.gap_sign.negative_at) j["slower_at"] = c.gap_sign.negative_at->to_text();
        if (c.gap_sign.zero_at) j["equal_at"] = c.gap_sign.zero_at->to_text();
        if (const std::string missing = missing_side(c); !missing.empty()) j["no_witness"] = missing;
        return j;
      };
      nlohmann::json j{{"first", written(a)},
                       {"second", written(b)},
                       {"eps_to_zero", describe(eps)},
                       {"T_to_infinity", describe(T)}};
      if (certificates) j["certificates"] = certificates->brief();
      emit(j.dump(2) + "\n", *output);
      return;
    }
    std::string out = fmt::format("first:  {}\nsecond: {}\n", written(a), written(b));
    out += "as eps -> 0:      first grows " + eps.summary() + "\n";
    const auto point = [&](const char* label, const std::optional<symbolic::Witness>& w) {
      if (w) out += fmt::format("    {}: {}\n", label, w->to_text());
    };
    point("faster at", eps.gap_sign.positive_at);
    point("slower at", eps.gap_sign.negative_at);
    point("equal at", eps.gap_sign.zero_at);
    if (const std::string missing = missing_side(eps); !missing.empty()) {
      out += "    no witness " + missing + "\n";
    }
    out += "as T -> infinity: first grows " + T.summary() + "\n";
    if (certificates) out += certificate_text(*certificates);
    emit(out, *output);
  });
}

}  // namespace infoflow::app
