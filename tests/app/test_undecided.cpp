// A target the framework cannot decide is "undecided" in every output, never "none" or "no
// efficient architecture" (docs/infoflow_engine.md, "Search"); one it decides keeps its answer.
#include <string>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "common/cli.hpp"

using infoflow::testing::contains;
using infoflow::testing::run;
using infoflow::testing::Run;

BOOST_AUTO_TEST_SUITE(undecided)

BOOST_AUTO_TEST_CASE(a_target_outside_the_framework_is_undecided_in_text_latex_and_json) {
  const std::string target = "derive 'max(t) (dot(a,x[t]) / dot(b,x[t]))' --heads 1,1";
  const Run text = run(target);
  BOOST_TEST(text.code == 0);
  BOOST_TEST(contains(text.out, "outside the framework: 'dot(a, x[t]) / dot(b, x[t])' divides by"));
  BOOST_TEST(contains(text.out, "smallest efficient architecture: undecided ("));
  BOOST_TEST(!contains(text.out, "no efficient architecture"));
  const Run latex = run(target + " --format latex");
  BOOST_TEST(contains(latex.out, "undecided (outside the framework)"));
  BOOST_TEST(!contains(latex.out, "& none \\\\"));
  const nlohmann::json j = nlohmann::json::parse(run(target + " --format json").out);
  BOOST_TEST(j["smallest_efficient"].is_null());
  BOOST_TEST(j["undecided"].get<std::string>().find("divides by") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_pair_sum_is_read_in_canonical_form_and_decided) {
  const Run r = run("derive 'sum(s != t) dot(x[s],x[t])' --heads 1,1");
  BOOST_TEST(r.code == 0);
  BOOST_TEST(contains(r.out, "read as sqnorm(sum(s) x[s]) - sum(t) sqnorm(x[t])"));
  BOOST_TEST(contains(r.out, "smallest efficient architecture (of 4680 with L <= 4, h <= 8; smallest: fewest heads in the widest layer, then fewest layers, then fewest heads in all): L=1 h=(1)"));  // two means, sqnorm(x[t]) the encoder's
  const nlohmann::json j = nlohmann::json::parse(run("derive 'sum(s != t) dot(x[s],x[t])' --heads 1,1 --format json").out);
  BOOST_TEST(j["undecided"].is_null());
  BOOST_TEST(j["read_as"].get<std::string>() == "sqnorm(sum(s) x[s]) - sum(t) sqnorm(x[t])");
}

BOOST_AUTO_TEST_CASE(a_symmetric_body_under_an_order_gets_no_positional_encoding) {
  const Run r = run("derive 'kth(2, s < t) dot(x[s],x[t])' --heads 1,1");
  BOOST_TEST(contains(r.out, "pe=off"));
  BOOST_TEST(contains(r.out, "(Theorem 2 ranks single tokens)"));
  BOOST_TEST(!contains(r.out, "permutations"));
}

BOOST_AUTO_TEST_SUITE_END()
