// A paper's reported values as data, and their comparison with our runs.
#include <cmath>
#include <filesystem>
#include <optional>

#include <boost/test/unit_test.hpp>

#include "common/temp_dir.hpp"
#include "infoflow/core/error.hpp"
#include "infoflow/experiments/reported.hpp"
#include "infoflow/report/verification_text.hpp"

namespace ex = infoflow::experiments;
namespace rp = infoflow::report;

BOOST_AUTO_TEST_SUITE(reported_values)

BOOST_AUTO_TEST_CASE(the_shipped_intrinsic_dimension_table_loads_with_its_provenance) {
  const ex::ReportedValues v = ex::ReportedValues::load(
      std::filesystem::path(INFOFLOW_TARGETS_FILE).parent_path().parent_path() / "experiments" /
      "reported" / "intrinsic_dim.toml");
  BOOST_TEST(v.provenance == "secondary source");
  BOOST_TEST(v.values.size() == 15u);
  BOOST_TEST(v.values.front().nmse == 5.89e-5);
  BOOST_TEST(v.values.front().where.at("heads") == "D,D");
  BOOST_TEST(v.values.front().where.at("T") == "64");
}

BOOST_AUTO_TEST_CASE(ours_beside_the_paper_min_over_seeds_and_only_where_the_runs_match) {
  const infoflow::testing::TempDir temp;
  const ex::ReportedValues v = ex::ReportedValues::load(temp.write(
      "r.toml",
      "[source]\nprovenance = \"secondary source\"\n[[value]]\nD = 2\nT = 64\nheads = "
      "\"D,D\"\nnmse = 1e-4\n[[value]]\nD = 2\nT = 8\nheads = \"D,D\"\nnmse = 1e-3\n"));
  ex::ExperimentResult r;
  using Status = std::optional<infoflow::numeric::RunStatus>;
  const std::vector<std::pair<Status, double>> runs{
      {infoflow::numeric::RunStatus::kConverged, 4e-4},
      {infoflow::numeric::RunStatus::kBudgetReached, 2e-4},
      {std::nullopt, 0},  // missing
      {infoflow::numeric::RunStatus::kDiverged, 0}};
  for (const auto& [status, nmse] : runs) {
    ex::RunRow row;
    row.labels = {{"D", "2"}, {"heads", "(2,2)"}, {"heads_pattern", "D,D"}};
    row.tokens = 64;
    row.status = status;
    row.best_nmse = nmse;
    r.rows.push_back(row);
  }
  const std::vector<ex::PaperComparison> c = ex::compare_with_reported(r, v);
  BOOST_TEST_REQUIRE(c.size() == 1u);  // no run at T = 8
  BOOST_TEST(c[0].seeds == 2);
  BOOST_TEST(c[0].converged == 1);
  BOOST_TEST(c[0].ours_min == 2e-4);
  BOOST_TEST(std::abs(c[0].ours_median - 3e-4) < 1e-12);
  BOOST_TEST(rp::ratio_text(c[0]) == "2");
}

BOOST_AUTO_TEST_CASE(a_value_without_nmse_or_a_file_without_provenance_is_refused) {
  const infoflow::testing::TempDir temp;
  BOOST_CHECK_THROW(ex::ReportedValues::load(temp.write(
                        "a.toml", "[source]\nprovenance = \"x\"\n[[value]]\nD = 2\n")),
                    infoflow::InputError);
  BOOST_CHECK_THROW(ex::ReportedValues::load(temp.write(
                        "b.toml", "[source]\npaper = \"x\"\n[[value]]\nD = 2\nnmse = 1e-3\n")),
                    infoflow::InputError);
  BOOST_CHECK_THROW(ex::ReportedValues::load(temp.write(
                        "c.toml", "[source]\nprovenance = \"x\"\n[[value]]\nnmse = -1\n")),
                    infoflow::InputError);
}

BOOST_AUTO_TEST_SUITE_END()
