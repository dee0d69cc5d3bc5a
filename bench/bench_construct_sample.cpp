// bench_construct_sample: the engine tests' generated targets through derive and construct, a
// larger sample than the suite's 40 (issue 46 item 3). Each target is planned on (1), (2),
// (1,1), (2,2) and (3,3) in turn; on the first that derive calls efficient it is built at
// n = 4, E = 16, W = 256, and where that fails for a width the failure names it is built again
// wider (n as named, W doubled to 1,024, E doubled to 256), as the suite does. Prints how many
// were built and how, the NMSE's spread, and each refusal by cause. Exit 1 if a refusal names
// the engine (its plan asked what the architecture lacks): derive and construct disagree.
//
// Usage: bench_construct_sample CATALOGUE_DIR [TARGETS=200] [SEED=46]

#include <algorithm>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "infoflow/construct/construction.hpp"
#include "infoflow/core/error.hpp"
#include "infoflow/targets/target_file.hpp"
#include "infoflow/theorems/engine.hpp"

#include "../tests/theorems/target_generator.hpp"

namespace cn = infoflow::construct;
namespace th = infoflow::theorems;
namespace tg = infoflow::targets;
namespace gen = infoflow::test_targets;

namespace {

struct Attempt {
  th::Plan plan;
  cn::Construction construction;
};

Attempt attempt(th::Engine& engine, const tg::TargetSpec& spec, const std::vector<long>& heads,
                long embedding, long head_dim, const cn::ConstructOptions& options) {
  Attempt out{engine.plan(th::to_target(spec), th::architecture_for(spec, embedding, head_dim, heads)), {}};
  if (out.plan.verdict == th::Verdict::kEfficient) out.construction = cn::construct(spec, out.plan, options);
  return out;
}

bool by_content(const cn::Construction& c) {
  return std::any_of(c.steps.begin(), c.steps.end(),
                     [](const std::string& s) { return s.find("by content") != std::string::npos; });
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::cerr << "usage: bench_construct_sample CATALOGUE_DIR [TARGETS=200] [SEED=46]\n";
    return 2;
  }
  const long count = argc > 2 ? std::stol(argv[2]) : 200;
  const long seed = argc > 3 ? std::stol(argv[3]) : 46;
  const th::Catalogue catalogue = th::Catalogue::load_directory(argv[1]);
  th::Engine engine(catalogue);
  gen::Generator generator(static_cast<std::uint64_t>(seed));
  const std::vector<std::vector<long>> architectures{{1}, {2}, {1, 1}, {2, 2}, {3, 3}};
  long efficient = 0;
  long built = 0;
  long wider = 0;
  long content = 0;
  long engine_refusals = 0;
  std::vector<double> errors;
  std::map<std::string, std::vector<std::string>> refused;  // the shortfall's word -> "target: reason"
  for (long i = 0; i < count; ++i) {
    const gen::Target target = generator.target();
    tg::TargetSpec spec;
    spec.name = "generated";
    spec.formula = tg::Formula::parse(gen::text_of(target));
    spec.set["T"] = 8;
    spec.token_dim = 4;
    spec.positional = gen::reads_positions(target);
    for (const std::vector<long>& heads : architectures) {
      cn::ConstructOptions options;
      options.samples = 512;
      options.calibration = 256;
      Attempt a;
      try {
        a = attempt(engine, spec, heads, 16, 4, options);
      } catch (const infoflow::InputError&) {
        break;  // outside the framework, or no index tuple at T = 8
      }
      if (a.plan.verdict != th::Verdict::kEfficient) continue;
      ++efficient;
      const bool first = a.construction.built;
      long head_dim = 4;
      long embedding = 16;
      while (!a.construction.built) {
        const cn::Construction& c = a.construction;
        const cn::Shortfall why = c.status.shortfall;
        if (why == cn::Shortfall::kHeadWidth && c.head_dim_needed > head_dim) {
          head_dim = c.head_dim_needed;
        } else if (why == cn::Shortfall::kFfnWidth && options.ffn_width < 1024) {
          options.ffn_width *= 2;
        } else if (why == cn::Shortfall::kEmbedding && embedding < 256) {
          embedding *= 2;
        } else {
          break;
        }
        a = attempt(engine, spec, heads, embedding, head_dim, options);
      }
      const std::string text = gen::text_of(target);
      if (!a.construction.built) {
        refused[cn::to_text(a.construction.status.shortfall)].push_back(text + ": " + a.construction.failure);
        if (a.construction.status.shortfall == cn::Shortfall::kEngine) ++engine_refusals;
      } else {
        (first ? built : wider) += 1;
        if (by_content(a.construction)) ++content;
        errors.push_back(a.construction.nmse);
      }
      break;
    }
  }
  std::sort(errors.begin(), errors.end());
  const auto quantile = [&](double q) {
    return errors.empty() ? 0.0 : errors[static_cast<std::size_t>(q * static_cast<double>(errors.size() - 1))];
  };
  fmt::print("{} generated targets (seed {}): {} efficient on one of (1), (2), (1,1), (2,2), (3,3)\n",
             count, seed, efficient);
  fmt::print("built at n = 4, E = 16, W = 256: {}; wider (n, W, E as their failures name): {}; "
             "masked by content among them: {}\n",
             built, wider, content);
  fmt::print("NMSE of the built: median {:.3g}, 90 % {:.3g}, largest {:.3g}\n", quantile(0.5),
             quantile(0.9), errors.empty() ? 0.0 : errors.back());
  for (const auto& [cause, list] : refused) {
    fmt::print("refused ({}): {}\n", cause, list.size());
    for (const std::string& r : list) fmt::print("  {}\n", r);
  }
  return engine_refusals > 0 ? 1 : 0;
}
