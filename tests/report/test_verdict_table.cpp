// The verdict table the main job prints when it ends: every claim in a row, aligned, within the
// width asked, and the reason of each undecided claim beneath it.
#include <sstream>
#include <stdexcept>

#include <boost/test/unit_test.hpp>

#include "infoflow/report/verdict_table.hpp"

namespace rp = infoflow::report;
namespace ex = infoflow::experiments;

namespace {

ex::ExperimentResult two_claims() {
  ex::ExperimentResult r;
  r.name = "kth_max";
  r.claim_kind = "growth_in_T";
  r.profile = "quick";
  ex::Claim decided;
  decided.group = "k = 1";
  decided.prediction = "O(1) (efficient): NMSE does not grow in T";
  decided.measured = "flat: slope 0.05 [-0.10, 0.20]; median NMSE at T = 4 1.0e-03";
  decided.verdict = ex::Agreement::kAgrees;
  decided.why = "the NMSE does not grow in T: consistent with the upper bound";
  ex::Claim open;
  open.group = "k = 2, a group with a name long enough to need more than one line of its column";
  open.prediction = "Omega(eps^-(T-k-1)/(n+1)) (not efficient): NMSE grows in T";
  open.measured = std::string(400, 'x');  // one word, longer than three lines of the column
  open.verdict = ex::Agreement::kInconclusive;
  open.why =
      "not converged at this budget: 17 of 18 runs of this line did not pass the plateau "
      "test, and a high NMSE counts only from converged runs";
  open.cross_check = "the full profile's results say agrees";
  r.claims = {decided, open};
  return r;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(verdict_table)

BOOST_AUTO_TEST_CASE(every_line_fits_the_width_and_columns_align) {
  for (const std::size_t width : {std::size_t{60}, std::size_t{100}, std::size_t{140}}) {
    const std::string text = rp::verdict_table({two_claims()}, width);
    const std::vector<std::string> lines = lines_of(text);
    for (const std::string& l : lines) BOOST_TEST(l.size() <= width, width << ": " << l);
    // The header's columns start where the first claim's cells do.
    const std::string& header = lines.at(0);
    const std::string& first = lines.at(3);  // header, rule, experiment, claim
    BOOST_TEST(first.rfind("agrees", 0) == 0u, first);
    BOOST_TEST(header.find("claim") == first.find("k = 1"));
    BOOST_TEST(header.find("predicted") == first.find("O(1)"));
    BOOST_TEST(header.find("measured") == first.find("flat: slope"));
  }
}

BOOST_AUTO_TEST_CASE(claims_that_do_not_agree_carry_their_reason_agreeing_ones_do_not) {
  const std::string text = rp::verdict_table({two_claims()});
  BOOST_TEST(text.find("kth_max (growth_in_T, profile quick)") != std::string::npos);
  // The measurement's statistic, not its medians; the reason in full, wrapped.
  BOOST_TEST(text.find("median NMSE at T = 4") == std::string::npos);
  BOOST_TEST(text.find("why: not converged at this budget") != std::string::npos);
  BOOST_TEST(text.find("converged runs") != std::string::npos);  // the reason's last words
  BOOST_TEST(text.find("consistent with the upper bound") == std::string::npos);
  BOOST_TEST(text.find("BUT: the full profile's results say agrees") != std::string::npos);
  // A cell past three lines is cut, and says so.
  BOOST_TEST(text.find("xxx...") != std::string::npos);
  BOOST_TEST(text.find(std::string(400, 'x')) == std::string::npos);
  // A disagreement says which bound it speaks to.
  ex::ExperimentResult r = two_claims();
  r.claims[0].verdict = ex::Agreement::kDisagrees;
  r.claims[0].why = "the NMSE grows in T: the upper bound is not reached by training";
  const std::string disagreeing = rp::verdict_table({r});
  BOOST_TEST(disagreeing.find("why: the NMSE grows in T: the upper bound is not reached") !=
                 std::string::npos,
             disagreeing);
}

BOOST_AUTO_TEST_CASE(a_width_too_narrow_is_refused) {
  BOOST_CHECK_THROW((void)rp::verdict_table({two_claims()}, rp::kMinTableWidth - 1),
                    std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
