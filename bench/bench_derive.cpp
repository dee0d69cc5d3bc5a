// bench_derive: the InfoFlow engine on every target of a target file and every architecture with
// L <= 3 layers of 1..8 heads (584 per target), as `infoflow derive` searches them. For scale,
// the same run times a check of the shipped catalogue. Median of 5 repetitions each.
//
// Usage: bench_derive TARGETS.toml CATALOGUE_DIR

#include <algorithm>
#include <chrono>
#include <iostream>
#include <vector>

#include <fmt/format.h>

#include "infoflow/targets/target_file.hpp"
#include "infoflow/theorems/check.hpp"
#include "infoflow/theorems/engine.hpp"

namespace th = infoflow::theorems;

namespace {
template <class F>
double median_seconds(F&& f) {
  std::vector<double> times;
  for (int i = 0; i < 5; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[2];
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: bench_derive TARGETS.toml CATALOGUE_DIR\n";
    return 2;
  }
  const th::Catalogue catalogue = th::Catalogue::load_directory(argv[2]);
  const std::vector<infoflow::targets::TargetSpec> specs = infoflow::targets::load_targets(argv[1]);
  long plans = 0;
  const double derive = median_seconds([&] {
    th::Engine engine(catalogue);  // a fresh engine: no cache carried between repetitions
    plans = 0;
    for (const auto& s : specs) {
      const th::Target t(s.name, s.formula, s.set, s.family, s.same_as_family);
      th::Architecture base;
      base.embedding = s.embedding;
      base.token_dim = s.token_dim;
      base.positional = s.positional;
      base.heads = {1};
      const th::Search r = engine.search(t, base);
      plans += r.architectures;
    }
  });
  const double check = median_seconds([&] { (void)th::check(catalogue); });
  std::cout << fmt::format(
      "derive: {} targets x 584 architectures = {} plans in {:.3f} s ({:.1f} us per plan), median of 5\n"
      "check of the shipped catalogue, same run: {:.3f} s; derive / check = {:.2f}\n",
      specs.size(), plans, derive, 1e6 * derive / static_cast<double>(plans), check, derive / check);
  return 0;
}
