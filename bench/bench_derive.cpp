// bench_derive: the InfoFlow engine on every target of a target file and of the engine's table of
// targets (tests/data/engine_targets.toml), each on every architecture with L <= 4 layers of
// 1..8 heads (4,680 per target), as `infoflow derive` searches them. For scale, the same run
// times a check of the shipped catalogue. Median of 5 repetitions each.
//
// Usage: bench_derive TARGETS.toml TABLE.toml CATALOGUE_DIR

#include <algorithm>
#include <chrono>
#include <iostream>
#include <vector>

#include <fmt/format.h>
#include <toml++/toml.h>

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
  if (argc != 4) {
    std::cerr << "usage: bench_derive TARGETS.toml TABLE.toml CATALOGUE_DIR\n";
    return 2;
  }
  const th::Catalogue catalogue = th::Catalogue::load_directory(argv[3]);
  std::vector<std::pair<th::Target, th::Architecture>> targets;
  for (const auto& s : infoflow::targets::load_targets(argv[1])) {
    th::Architecture base;
    base.embedding = s.embedding;
    base.token_dim = s.token_dim;
    base.positional = infoflow::core::encoding_for(s.positional);
    base.heads = {1};
    targets.emplace_back(th::to_target(s), base);
  }
  const toml::table table = toml::parse_file(argv[2]);
  for (const toml::node& node : *table["case"].as_array()) {
    const toml::table& row = *node.as_table();
    infoflow::targets::Bindings set;
    if (const toml::table* values = row["set"].as_table()) {
      for (const auto& [k, v] : *values) set[std::string(k.str())] = v.value_or(0L);
    }
    th::Architecture base;
    base.head_dim = 4;
    base.positional = infoflow::core::encoding_for(row["pe"].value_or(false));
    base.heads = {1};
    targets.emplace_back(th::Target("row", infoflow::targets::Formula::parse(
                                               row["formula"].value_or(std::string())),
                                    set, "retrieval"),
                         base);
  }
  long plans = 0;
  const double derive = median_seconds([&] {
    th::Engine engine(catalogue);  // a fresh engine: no cache carried between repetitions
    plans = 0;
    for (const auto& [t, base] : targets) plans += engine.search(t, base, 4, 8).architectures;
  });
  const double check = median_seconds([&] { (void)th::check(catalogue); });
  std::cout << fmt::format(
      "derive: {} targets x 4680 architectures (L <= 4, h <= 8) = {} plans decided in {:.3f} s "
      "({:.2f} us per architecture), median of 5\n"
      "check of the shipped catalogue, same run: {:.3f} s; derive / check = {:.2f}\n",
      targets.size(), plans, derive, 1e6 * derive / static_cast<double>(plans), check,
      derive / check);
  return 0;
}
