// Every kept fuzz input (tests/data/fuzz/KIND/: the reproducers of issue #10 and the findings of
// scripts/fuzz.sh) is accepted or refused as bad input, never a crash or an internal error.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <boost/test/unit_test.hpp>

#include "inputs.hpp"

namespace {

void replay(const std::string& kind) {
  const auto& kinds = infoflow::fuzz::kinds();
  const auto it = std::find_if(kinds.begin(), kinds.end(),
                               [&](const auto& k) { return k.first == kind; });
  BOOST_TEST_REQUIRE((it != kinds.end()));
  const std::filesystem::path dir = std::filesystem::path(INFOFLOW_TEST_DATA_DIR) / "fuzz" / kind;
  std::size_t count = 0;
  for (const auto& file : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(file.path(), std::ios::binary);
    std::stringstream data;
    data << in.rdbuf();
    BOOST_TEST_INFO("input " << file.path().filename());
    BOOST_TEST(infoflow::fuzz::failure(it->second, data.str()) == "");
    ++count;
  }
  BOOST_TEST(count > 0u);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(fuzz_inputs)

BOOST_AUTO_TEST_CASE(rates) { replay("rate"); }
BOOST_AUTO_TEST_CASE(formulas) { replay("formula"); }
BOOST_AUTO_TEST_CASE(catalogue_files) { replay("catalogue"); }
BOOST_AUTO_TEST_CASE(target_files) { replay("targets"); }
BOOST_AUTO_TEST_CASE(experiment_specs) { replay("experiment"); }
BOOST_AUTO_TEST_CASE(results_files) { replay("results"); }

BOOST_AUTO_TEST_SUITE_END()
