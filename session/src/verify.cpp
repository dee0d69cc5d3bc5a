#include "infoflow/session/verify.hpp"

#include <cmath>

#include "infoflow/experiments/constructed.hpp"
#include "infoflow/experiments/cross_check.hpp"
#include "infoflow/experiments/results.hpp"
#include "infoflow/session/sweep.hpp"

namespace infoflow::session {

std::vector<Verified> verify(const std::vector<experiments::ExperimentSpec>& specs,
                             const std::string& profile, const std::filesystem::path& results,
                             theorems::Engine& engine, bool constructions) {
  std::vector<Verified> out;
  for (const experiments::ExperimentSpec& s : specs) {
    const experiments::ResultStore store(results / (s.name + ".jsonl"));
    Verified v;
    const std::vector<experiments::RunRecord> records = store.read(&v.warnings);
    v.result = experiments::verify_in_context(s, profile, records, store.file(), engine);
    if (constructions) experiments::add_constructions(v.result, engine);
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
                      {"constructed", c.constructed},
                      {"evidence", c.evidence},
                      {"runs",
                       {{"planned", c.runs.planned},
                        {"converged", c.runs.converged},
                        {"budget_reached", c.runs.budget_reached},
                        {"diverged", c.runs.diverged}}}});
  }
  nlohmann::json constructed = nlohmann::json::array();
  for (const experiments::ConstructedCell& c : r.constructed) {
    constructed.push_back(
        {{"labels", c.labels},
         {"built", c.built},
         {"failure", c.failure},
         {"nmse", c.built ? nlohmann::json(c.nmse) : nlohmann::json(nullptr)},
         {"parameters", c.parameters},
         {"ffn_width", c.ffn_width},
         {"trained_median",
          std::isfinite(c.trained_median) ? nlohmann::json(c.trained_median) : nlohmann::json(nullptr)},
         {"trained_parameters", c.trained_parameters},
         {"seeds", c.seeds}});
  }
  return {{"experiment", r.name},  {"title", r.title},   {"profile", r.profile},
          {"claim", r.claim_kind}, {"claims", claims},   {"constructed", constructed},
          {"notes", r.notes}};
}

experiments::BudgetSummary spend_budget(const std::vector<experiments::ExperimentSpec>& specs,
                                        const std::string& profile,
                                        const std::filesystem::path& results,
                                        theorems::Engine& engine, double seconds, long workers) {
  check_workers(workers);
  experiments::BudgetOptions o;
  o.seconds = seconds;
  o.sweep.workers = workers;
  return experiments::spend_budget(specs, profile, results, engine, o);
}

nlohmann::json budget_json(const experiments::BudgetSummary& s, double budget) {
  nlohmann::json left = nlohmann::json::array();
  for (const experiments::Request& q : s.left) {
    left.push_back({{"experiment", q.experiment},
                    {"group", q.group},
                    {"need", experiments::to_text(q.need)},
                    {"text", q.text},
                    {"estimated_seconds", !q.runs.empty() && std::isfinite(q.seconds)
                                              ? nlohmann::json(q.seconds)
                                              : nlohmann::json()}});
  }
  return {{"budget", budget}, {"seconds", s.seconds}, {"spent", s.spent}, {"left", left}};
}

}  // namespace infoflow::session
