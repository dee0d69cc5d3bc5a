// fuzz_replay KIND FILE...: each input run through its kind as the fuzzer runs it, and timed.
// Built in the release build, it decides the slow-input findings (inputs.hpp, kSlowSeconds):
// scripts/fuzz.sh hands it the candidates the fuzzers kept. A line per input, then the counts;
// exit 0 (findings are reported, not failed), 2 for bad arguments.
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>

#include "infoflow/numeric/build.hpp"
#include "inputs.hpp"

int main(int argc, char** argv) {
  namespace fz = infoflow::fuzz;
  const auto& kinds = fz::kinds();
  const auto kind = argc < 2 ? kinds.end()
                             : std::find_if(kinds.begin(), kinds.end(),
                                            [&](const auto& k) { return k.first == argv[1]; });
  if (kind == kinds.end()) {
    std::fprintf(stderr, "usage: fuzz_replay KIND FILE... (KIND: rate, formula, catalogue, "
                         "targets, experiment or results)\n");
    return 2;
  }
  long slow = 0;
  long failures = 0;
  for (int i = 2; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "fuzz_replay: cannot read %s\n", argv[i]);
      return 2;
    }
    std::stringstream text;
    text << in.rdbuf();
    const std::string data = text.str();
    const std::clock_t start = std::clock();
    const std::string what = fz::failure(kind->second, data);
    const double seconds = fz::seconds_since(start);
    const bool too_slow =
        fz::timed(kind->second) && data.size() <= fz::kSlowLength && seconds > fz::kSlowSeconds;
    slow += too_slow ? 1 : 0;
    failures += what.empty() ? 0 : 1;
    std::printf("%s: %zu characters, %.2f s of processor time", argv[i], data.size(), seconds);
    if (too_slow) {
      std::printf("; finding: slow (at most %zu characters, over %.0f s)", fz::kSlowLength,
                  fz::kSlowSeconds);
    }
    std::printf("%s\n", what.empty() ? "" : ("; finding: " + what).c_str());
  }
  std::printf("%s: %d inputs, %ld slow, %ld failing (%s build)\n", kind->first.c_str(),
              argc - 2, slow, failures, infoflow::numeric::build_type().c_str());
  return 0;
}
