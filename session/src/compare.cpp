#include "infoflow/session/compare.hpp"

#include <fmt/format.h>

#include "infoflow/core/error.hpp"

namespace infoflow::session {

namespace {

std::string written(const symbolic::WrittenBound& b,
                    symbolic::Format format = symbolic::Format::kText) {
  return b.landau ? b.rate.print(*b.landau, format) : b.rate.print(format);
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

nlohmann::json regime_json(const symbolic::RateComparison& c) {
  nlohmann::json j = {{"growth", symbolic::to_text(c.growth)},
                      {"decided_by", c.decided_by},
                      {"gap", symbolic::canonical(c.gap)},
                      {"gap_latex", symbolic::canonical(c.gap, symbolic::Format::kLatex)},
                      {"note", c.note},
                      {"summary", c.summary()}};
  if (c.growth == symbolic::Growth::kDepends) {
    j["faster_when"] = c.faster_when.text;
    j["faster_when_latex"] = c.faster_when.latex;
  }
  if (c.gap_sign.positive_at) j["faster_at"] = c.gap_sign.positive_at->to_text();
  if (c.gap_sign.negative_at) j["slower_at"] = c.gap_sign.negative_at->to_text();
  if (c.gap_sign.zero_at) j["equal_at"] = c.gap_sign.zero_at->to_text();
  if (const std::string missing = missing_side(c); !missing.empty()) j["no_witness"] = missing;
  return j;
}

}  // namespace

Comparison compare(std::string_view first, std::string_view second,
                   const std::vector<std::string>& assumptions, symbolic::SignOracle& oracle,
                   symbolic::Journal* journal) {
  Comparison out{symbolic::parse_bound(first, SourceLocation{"first rate", 1, 1}),
                 symbolic::parse_bound(second, SourceLocation{"second rate", 1, 1}),
                 {},
                 {}};
  symbolic::Domain domain;
  for (std::size_t i = 0; i < assumptions.size(); ++i) {
    const SourceLocation where{"--assume #" + std::to_string(i + 1), 1, 1};
    for (const symbolic::Relation& r : symbolic::parse_relations(assumptions[i], where)) {
      domain.require(r, assumptions[i]);
    }
  }
  if (journal != nullptr) oracle.set_journal(journal);
  if (oracle.satisfiable(domain).status == symbolic::Satisfiability::kUnsatisfiable) {
    throw InputError("the assumptions contradict each other: " + domain.to_text());
  }
  if (journal != nullptr) journal->context.topic = "first against second as eps -> 0";
  out.eps_to_zero =
      symbolic::compare_as_eps_to_zero(out.first.rate, out.second.rate, domain, oracle);
  if (journal != nullptr)
    journal->context = {"first against second as T -> infinity", {}, {}, {}, {}};
  out.T_to_infinity =
      symbolic::compare_as_T_to_infinity(out.first.rate, out.second.rate, domain, oracle);
  return out;
}

std::string comparison_text(const Comparison& c) {
  std::string out = fmt::format("first:  {}\nsecond: {}\n", written(c.first), written(c.second));
  out += "as eps -> 0:      first grows " + c.eps_to_zero.summary() + "\n";
  const auto point = [&](const char* label, const std::optional<symbolic::Witness>& w) {
    if (w) out += fmt::format("    {}: {}\n", label, w->to_text());
  };
  point("faster at", c.eps_to_zero.gap_sign.positive_at);
  point("slower at", c.eps_to_zero.gap_sign.negative_at);
  point("equal at", c.eps_to_zero.gap_sign.zero_at);
  if (const std::string missing = missing_side(c.eps_to_zero); !missing.empty()) {
    out += "    no witness " + missing + "\n";
  }
  out += "as T -> infinity: first grows " + c.T_to_infinity.summary() + "\n";
  return out;
}

nlohmann::json comparison_json(const Comparison& c) {
  return {{"first", written(c.first)},
          {"second", written(c.second)},
          {"first_latex", written(c.first, symbolic::Format::kLatex)},
          {"second_latex", written(c.second, symbolic::Format::kLatex)},
          {"eps_to_zero", regime_json(c.eps_to_zero)},
          {"T_to_infinity", regime_json(c.T_to_infinity)}};
}

}  // namespace infoflow::session
