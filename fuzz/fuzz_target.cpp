// libFuzzer target for one input kind, INFOFLOW_FUZZ_KIND (see inputs.hpp): a finding aborts,
// so that libFuzzer keeps the input.
#include <cstdio>
#include <cstdlib>

#include "inputs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string what =
      infoflow::fuzz::failure(infoflow::fuzz::INFOFLOW_FUZZ_KIND,
                              std::string_view(reinterpret_cast<const char*>(data), size));
  if (!what.empty()) {
    std::fprintf(stderr, "%s\n", what.c_str());
    std::abort();
  }
  return 0;
}
