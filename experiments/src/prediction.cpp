#include "prediction.hpp"

#include <limits>

#include "infoflow/numeric/tasks.hpp"
#include "infoflow/targets/formula.hpp"

namespace infoflow::experiments {

std::pair<std::string, targets::Bindings> formula_of(const RunConfig& run) {
  if (!run.formula.empty()) return {run.formula, run.bindings};
  const numeric::TaskFormula f = numeric::formula_of(run.task);
  return {f.text, f.bindings};
}

theorems::Plan predict(const RunConfig& run, theorems::Engine& engine) {
  const auto [text, bindings] = formula_of(run);
  const theorems::Target target(run.experiment, targets::Formula::parse(text), bindings,
                                "retrieval");
  return engine.plan(target, run.model);  // the run's shape, without T and the FFN widths
}

double exponent_at(const theorems::Plan& p, long tokens) {
  const GiNaC::ex value = p.exponent_at(tokens).evalf();
  return GiNaC::is_a<GiNaC::numeric>(value) ? GiNaC::ex_to<GiNaC::numeric>(value).to_double()
                                            : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace infoflow::experiments
