// libFuzzer target for one input kind, INFOFLOW_FUZZ_KIND (see inputs.hpp): a finding aborts,
// so that libFuzzer keeps the input. A short input of a timed kind that is slow here is kept in
// the folder $INFOFLOW_FUZZ_SLOW as slow-HASH, for fuzz_replay to time on the release build;
// fuzzing goes on.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <string>

#include "inputs.hpp"

namespace {

void keep_if_slow(std::string_view data, double seconds) {
  namespace fz = infoflow::fuzz;
  const char* folder = std::getenv("INFOFLOW_FUZZ_SLOW");
  if (folder == nullptr || !fz::timed(fz::INFOFLOW_FUZZ_KIND) || data.size() > fz::kSlowLength ||
      seconds <= fz::kSlowCandidate) {
    return;
  }
  char name[32];
  std::snprintf(name, sizeof name, "slow-%016zx", std::hash<std::string_view>{}(data));
  std::ofstream(std::string(folder) + "/" + name, std::ios::binary)
      .write(data.data(), static_cast<std::streamsize>(data.size()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::clock_t start = std::clock();
  const std::string what = infoflow::fuzz::failure(infoflow::fuzz::INFOFLOW_FUZZ_KIND, input);
  if (!what.empty()) {
    std::fprintf(stderr, "%s\n", what.c_str());
    std::abort();
  }
  keep_if_slow(input, infoflow::fuzz::seconds_since(start));
  return 0;
}
