// The engine's pipeline (theorems/src/engine/pipeline.cpp): the listing `infoflow passes` prints
// is the registry's, and the registry is what runs: the compile stage's passes and the choice
// between the engine's two readings.
#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
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
                            (pass.on_readings != nullptr) + (pass.on_architecture != nullptr);
      BOOST_TEST(functions == 1);
      BOOST_TEST((pass.stage == th::detail::Stage::kTarget) == (pass.on_target != nullptr));
      BOOST_TEST((pass.stage == th::detail::Stage::kReduction) == (pass.on_reduction != nullptr));
      BOOST_TEST((pass.stage == th::detail::Stage::kReadings) == (pass.on_readings != nullptr));
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

BOOST_AUTO_TEST_CASE(the_second_reading_is_compiled_and_chosen_by_registered_passes) {
  // max(s, t) (dot(a, x[s]) * dot(b, x[t])) on one layer of 4 heads (n = 4): the first reading's
  // rank-one query-key product needs a partner retrieval before the readout's, two layers; the
  // second reading's product at its vertices is four retrievals, one layer. Efficient only
  // through the two passes: without "second reading" there is no second program, without
  // "reading choice" it is never planned.
  const th::Catalogue catalogue = th::Catalogue::load_directory(INFOFLOW_CATALOGUE_DIR);
  th::Engine engine(catalogue);
  const tg::Formula product = tg::Formula::parse("max(s, t) (dot(a, x[s]) * dot(b, x[t]))");
  const tg::Bindings none;
  th::Architecture four;
  four.heads = {4};
  four.embedding = 16;
  four.token_dim = 4;
  const auto planned = [&](std::span<const Pass* const> passes) {
    const th::detail::Readings readings =
        th::detail::compile_readings(passes, product, none, four.token_dim);
    th::detail::Planning state(passes, engine, readings.first, four, th::kPlacementNodeCap,
                               readings.second);
    th::detail::plan_with(state);
    return std::make_pair(state.plan, readings.second);
  };
  const auto [chosen, second] = planned(th::detail::passes());
  BOOST_TEST_REQUIRE(second != nullptr);
  BOOST_TEST(th::to_text(chosen.verdict) == "efficient");
  BOOST_TEST(chosen.program == second);
  BOOST_TEST(chosen.steps.size() == 4u);
  BOOST_TEST(chosen.dominant.find("with E1's second reading") != std::string::npos);
  // The registry is also what Engine::plan runs.
  const th::Target target("t", product, none, "retrieval", false, four.token_dim);
  BOOST_TEST(th::to_text(engine.plan(target, four).verdict) == "efficient");

  const auto [unchosen, kept] = planned(without("reading choice"));
  BOOST_TEST(kept != nullptr);
  BOOST_TEST(th::to_text(unchosen.verdict) == "exponential in T");
  const auto [first, absent] = planned(without("second reading"));
  BOOST_TEST(absent == nullptr);
  BOOST_TEST(th::to_text(first.verdict) == "exponential in T");
  BOOST_TEST(first.dominant.find("second reading") == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
