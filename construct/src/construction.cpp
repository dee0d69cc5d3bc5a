// The lowering of an engine plan into weights (docs/constructions.md): each step of the plan a
// head's role at one token class, each value a linear form over the residual stream, each
// nonlinear function of held values a job of the FFN after the layer (or of the readout MLP).
// The passes that do it are in registry.cpp; this file runs them and reports.
#include "infoflow/construct/construction.hpp"

#include <chrono>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "infoflow/core/error.hpp"

#include "passes.hpp"

namespace infoflow::construct {

void ConstructOptions::validate() const {
  if (!(beta > 0) || !std::isfinite(beta)) throw InputError("--beta must be a positive number");
  if (ffn_width < 4 || ffn_width > 1 << 20)
    throw InputError("--ffn-width must be between 4 and 1048576");
  if (encoder_width != 0 && (encoder_width < 4 || encoder_width > 1 << 20))
    throw InputError("--encoder-width must be 0 (the FFN width) or between 4 and 1048576");
  if (readout_width != 0 && (readout_width < 4 || readout_width > 1 << 20))
    throw InputError("--readout-width must be 0 (the FFN width) or between 4 and 1048576");
  if (mask_features < 2 || mask_features > 4096)
    throw InputError("--mask-features must be between 2 and 4096");
  if (samples < 16 || samples > 1 << 22)
    throw InputError("--samples must be between 16 and 4194304");
  if (calibration < 16 || calibration > 1 << 20)
    throw InputError("the calibration sequences must be between 16 and 1048576");
}

std::string to_text(Shortfall s) {
  switch (s) {
    case Shortfall::kNone:
      return "";
    case Shortfall::kPlan:
      return "plan";
    case Shortfall::kEngine:
      return "engine";
    case Shortfall::kConstructor:
      return "constructor";
    case Shortfall::kHeadWidth:
    case Shortfall::kFfnWidth:
      return "width";
    case Shortfall::kEmbedding:
      return "embedding";
  }
  return "";
}

namespace {

/// Runs the registry's passes in order, the per-layer ones in turn for each layer; on a
/// Failure, names the step or else the pass in the status.
void run_passes(detail::Lowering& st, Construction& out) {
  const std::vector<detail::Pass>& passes = detail::registered_passes();
  std::string running;
  try {
    for (std::size_t i = 0; i < passes.size();) {
      if (!passes[i].per_layer) {
        running = passes[i].name;
        passes[i].run(st);
        ++i;
        continue;
      }
      std::size_t end = i;
      while (end < passes.size() && passes[end].per_layer) ++end;
      for (long layer = 1; layer <= st.plan.architecture.layers(); ++layer) {
        st.current_layer = layer;
        for (std::size_t p = i; p < end; ++p) {
          running = fmt::format("{} (layer {})", passes[p].name, layer);
          passes[p].run(st);
        }
      }
      i = end;
    }
    out.built = true;
  } catch (const detail::Failure& f) {
    out.failure = f.what();
    out.status = Status{f.shortfall, f.step.empty() ? running : f.step};
    out.head_dim_needed = f.head_dim_needed;
  }
}

}  // namespace

Construction construct(const targets::TargetSpec& spec, const theorems::Plan& plan,
                       const ConstructOptions& options) {
  options.validate();
  if (!plan.program) throw std::invalid_argument("construct(): a plan without its program");
  detail::Lowering st(spec, plan, options);
  Construction out;
  out.config = detail::asked_config(st);  // a refusal names the architecture asked for, too
  const auto start = std::chrono::steady_clock::now();
  out.plan_text = fmt::format("{}: {}", plan.architecture.text(), theorems::to_text(plan.verdict));
  run_passes(st, out);
  if (st.network) {
    out.config = st.network->config();
    out.parameters.assign(st.network->model().parameters().begin(),
                          st.network->model().parameters().end());
    out.counts = st.network->model().layout().count();
    out.layout = st.network->layout();
  }
  out.nmse = st.nmse;
  out.target_variance = st.target_variance;
  out.knots = st.fewest_knots;
  out.fitted = st.fitted;
  out.ffn_units = st.widest_units;
  out.steps = st.described;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace infoflow::construct
