// Times `check` on the shipped catalogue and on a generated one, and writes the generated
// catalogue's rate pairs for the SymPy peer (bench/sympy_peer.py). Usage:
//   bench_check [--entries 1000] [--families 250] [--seed 1] [--pairs FILE] [--repeat 5]
//               [--keep DIR]
// The seed is printed; the same seed gives the same catalogue.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "infoflow/symbolic/expression.hpp"
#include "infoflow/theorems/catalogue.hpp"
#include "infoflow/theorems/check.hpp"

namespace {

namespace fs = std::filesystem;
using infoflow::theorems::Catalogue;

/// splitmix64: a specified generator, so the catalogue is the same on every machine.
struct SplitMix {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
};

/// Entries shaped like the real ones: exponents rational in T, n, k, d, E, gamma.
std::string generated_catalogue(int entries, int families, std::uint64_t seed, std::string& tasks) {
  SplitMix rng{seed};
  tasks = "[[task]]\nid = \"root\"\n";
  for (int f = 0; f < families; ++f) tasks += fmt::format("[[task]]\nid = \"f{}\"\nparent = \"root\"\n", f);
  const std::vector<std::string> rates = {
      "eps^(-({a}*T - {b})/(n + {c}))", "eps^(-(T - k - {b})/(n + {a}))", "eps^({a} - T0*d/E)",
      "eps^(-{a}*T/E)", "eps^(-gamma - {a})", "eps^(-{a})*log(1/eps)^{b}",
      "eps^(-((T/{a} - s - D + 1)/((n+1)*s + 1) - 1))"};
  const std::vector<std::string> settings = {
      "depth = \"L == 1\"", "depth = \"L == 2\"\nheads = \"h == 1\"", "heads = \"h == D\"",
      "heads = \"h == s\"\nhypotheses = [\"s < D\"]", "constraints = [\"n >= T*d\"]",
      "hypotheses = [\"k >= 2\", \"T >= k + 2\"]", "hypotheses = [\"1 <= T0 <= T + 1\"]"};
  std::string out = "[paper]\nid = \"generated\"\ntitle = \"generated\"\n";
  for (int i = 0; i < entries; ++i) {
    std::string rate = rates[static_cast<std::size_t>(rng.below(static_cast<int>(rates.size())))];
    for (const char* key : {"{a}", "{b}", "{c}"}) {
      const auto at = rate.find(key);
      if (at != std::string::npos) rate.replace(at, 3, std::to_string(1 + rng.below(4)));
    }
    out += fmt::format(
        "[[entry]]\nid = \"g{}\"\nsource = \"generated\"\nprovenance = \"seed\"\nkind = \"{}\"\n"
        "quantity = \"M\"\ntask = \"f{}\"\n{}\nrate = \"{}\"\n",
        i, rng.below(2) == 0 ? "upper" : "lower", rng.below(families),
        settings[static_cast<std::size_t>(rng.below(static_cast<int>(settings.size())))], rate);
  }
  return out;
}

double seconds_of_check(const Catalogue& c, infoflow::theorems::CheckReport* report) {
  const auto start = std::chrono::steady_clock::now();
  *report = infoflow::theorems::check(c);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  int entries = 1000;
  int families = 250;
  std::uint64_t seed = 1;
  int repeat = 5;
  std::string pairs_file;
  std::string keep;  // a directory to leave the generated catalogue in (for `infoflow certify`)
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    const std::string value = argv[i + 1];
    if (key == "--entries") entries = std::stoi(value);
    else if (key == "--families") families = std::stoi(value);
    else if (key == "--seed") seed = std::stoull(value);
    else if (key == "--repeat") repeat = std::stoi(value);
    else if (key == "--pairs") pairs_file = value;
    else if (key == "--keep") keep = value;
    else {
      std::cerr << "bench_check: unknown option " << key << "\n";
      return 2;
    }
  }
  const Catalogue shipped = Catalogue::load_directory(infoflow::theorems::default_catalogue_directory());
  std::vector<double> times;
  infoflow::theorems::CheckReport report;
  for (int r = 0; r < repeat; ++r) times.push_back(seconds_of_check(shipped, &report));
  std::sort(times.begin(), times.end());
  fmt::print("shipped catalogue: median {:.3f} s over {} runs; {}\n", times[times.size() / 2],
             repeat, report.brief());

  std::string tmpl = (fs::temp_directory_path() / "infoflow-bench-XXXXXX").string();
  const fs::path dir = ::mkdtemp(tmpl.data());
  std::string tasks;
  const std::string body = generated_catalogue(entries, families, seed, tasks);
  std::ofstream(dir / "tasks.toml") << tasks;
  std::ofstream(dir / "generated.toml") << body;
  const Catalogue generated = Catalogue::load_directory(dir);
  const double t = seconds_of_check(generated, &report);
  fmt::print("generated catalogue (seed {}, {} entries, {} families): {:.2f} s; {}\n", seed,
             entries, families, t, report.brief());
  if (!pairs_file.empty()) {
    // The pairs the checker compared: same quantity, same family, one upper and one lower.
    std::ofstream out(pairs_file);
    std::size_t count = 0;
    const auto& all = generated.entries();
    for (std::size_t i = 0; i < all.size(); ++i) {
      for (std::size_t j = i + 1; j < all.size(); ++j) {
        if (all[i].task != all[j].task || all[i].kind == all[j].kind) continue;
        out << infoflow::symbolic::to_text(all[i].rate_written) << "\t"
            << infoflow::symbolic::to_text(all[j].rate_written) << "\n";
        ++count;
      }
    }
    fmt::print("wrote {} upper/lower pairs to {}\n", count, pairs_file);
  }
  if (!keep.empty()) {
    fs::create_directories(keep);
    fs::copy(dir, keep, fs::copy_options::overwrite_existing | fs::copy_options::recursive);
    fmt::print("kept the generated catalogue in {}\n", keep);
  }
  fs::remove_all(dir);
  return 0;
}
