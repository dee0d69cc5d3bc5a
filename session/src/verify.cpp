#include "infoflow/session/verify.hpp"

#include "infoflow/experiments/cross_check.hpp"
#include "infoflow/experiments/results.hpp"

namespace infoflow::session {

std::vector<Verified> verify(const std::vector<experiments::ExperimentSpec>& specs,
                             const std::string& profile, const std::filesystem::path& results,
                             theorems::Engine& engine) {
  std::vector<Verified> out;
  for (const experiments::ExperimentSpec& s : specs) {
    const experiments::ResultStore store(results / (s.name + ".jsonl"));
    Verified v;
    const std::vector<experiments::RunRecord> records = store.read(&v.warnings);
    v.result = experiments::verify_in_context(s, profile, records, store.file(), engine);
    out.push_back(std::move(v));
  }
  return out;
}

nlohmann::json verification_json(const experiments::ExperimentResult& r) {
  nlohmann::json claims = nlohmann::json::array();
  for (const experiments::Claim& c : r.claims) {
    claims.push_back({{"group", c.group},
                      {"predicted", c.prediction},
                      {"measured", c.measured},
                      {"verdict", experiments::to_text(c.verdict)},
                      {"why", c.why},
                      {"need", experiments::to_text(c.need)},
                      {"cross_check", c.cross_check},
                      {"runs",
                       {{"planned", c.runs.planned},
                        {"converged", c.runs.converged},
                        {"budget_reached", c.runs.budget_reached},
                        {"diverged", c.runs.diverged}}}});
  }
  return {{"experiment", r.name},  {"title", r.title}, {"profile", r.profile},
          {"claim", r.claim_kind}, {"claims", claims}, {"notes", r.notes}};
}

}  // namespace infoflow::session
