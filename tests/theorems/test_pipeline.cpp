// The engine's pipeline (theorems/src/engine/pipeline.cpp): the listing `infoflow passes` prints
// is the registry's, and the registry is what runs.
#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "infoflow/theorems/engine.hpp"

#include "engine/pipeline.hpp"

namespace th = infoflow::theorems;
namespace tg = infoflow::targets;
using th::detail::Pass;

namespace {

/// The listing's numbered lines ("  7. E3  idle constraints ..."), in order.
std::vector<std::string> numbered_lines(const std::string& listing) {
  std::vector<std::string> out;
  std::istringstream in(listing);
  for (std::string line; std::getline(in, line);) {
    const std::size_t start = line.find_first_not_of(' ');
    const std::size_t dot = line.find(". ");
    if (start != std::string::npos && dot != std::string::npos && dot > start &&
        std::all_of(line.begin() + static_cast<long>(start), line.begin() + static_cast<long>(dot),
                    [](char c) { return c >= '0' && c <= '9'; }))
      out.push_back(line);
  }
  return out;
}

/// The registry without the pass named `name` (which must be in it).
std::vector<const Pass*> without(std::string_view name) {
  std::vector<const Pass*> out;
  for (const Pass* pass : th::detail::passes()) {
    if (pass->name != name) out.push_back(pass);
  }
  BOOST_TEST_REQUIRE(out.size() + 1 == th::detail::passes().size());
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(pipeline)

BOOST_AUTO_TEST_CASE(listing_names_every_pass_once_in_the_registry_order) {
  const std::span<const Pass* const> passes = th::detail::passes();
  const std::vector<std::string> lines = numbered_lines(th::passes_text());
  BOOST_TEST_REQUIRE(lines.size() == passes.size());
  std::set<std::string> names;
  for (std::size_t i = 0; i < passes.size(); ++i) {
    const Pass& pass = *passes[i];
    BOOST_TEST_CONTEXT("pass " << i + 1 << " (" << pass.name << ")") {
      BOOST_TEST(names.insert(pass.name).second);  // a name says one pass
      const std::string& line = lines[i];
      BOOST_TEST(line.substr(0, line.find(". ")).find(std::to_string(i + 1)) != std::string::npos);
      BOOST_TEST(line.find(std::string(" ") + pass.rule + " ") != std::string::npos);
      BOOST_TEST(line.find(std::string(" ") + pass.name + " ") != std::string::npos);
      // The function its stage runs, and no other.
      const int functions = (pass.on_target != nullptr) + (pass.on_reduction != nullptr) +
                            (pass.on_architecture != nullptr);
      BOOST_TEST(functions == 1);
      BOOST_TEST((pass.stage == th::detail::Stage::kTarget) == (pass.on_target != nullptr));
      BOOST_TEST((pass.stage == th::detail::Stage::kReduction) == (pass.on_reduction != nullptr));
    }
  }
}

BOOST_AUTO_TEST_CASE(removing_a_pass_changes_the_answer) {
  // sum(t) dot(a, x[t]) is T times the mean of a linear value: one uniform average (R6). Without
  // R6's pass the walk hands the sum to the elimination, which makes it a retrieval of the
  // largest term: a wrong answer, which shows the registry is what runs.
  const tg::Formula sum = tg::Formula::parse("sum(t) dot(a, x[t])");
  const th::Program full = th::detail::compile_with(th::detail::passes(), sum, {}, 0, false);
  BOOST_TEST_REQUIRE(full.quantities.size() == 1u);
  BOOST_TEST(th::to_text(full.quantities[0].mode) == "uniform aggregation");
  BOOST_TEST(full.elimination_text() == "t -> g1 (uniform averages)");
  const std::vector<const Pass*> no_mean = without("uniform averages");
  const th::Program without_r6 = th::detail::compile_with(no_mean, sum, {}, 0, false);
  BOOST_TEST_REQUIRE(without_r6.quantities.size() == 1u);
  BOOST_TEST(th::to_text(without_r6.quantities[0].mode) == "max-position retrieval");
  // The registry is also what th::compile runs.
  BOOST_TEST(th::compile(sum, {}).elimination_text() == full.elimination_text());
}

BOOST_AUTO_TEST_SUITE_END()
