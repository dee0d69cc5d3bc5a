// The canonical forms (theorems/canonical_forms.hpp): each rewrite, formula in, formula out,
// worked by hand.
#include <string>

#include <boost/test/unit_test.hpp>

#include "infoflow/theorems/canonical_forms.hpp"

namespace th = infoflow::theorems;
namespace tg = infoflow::targets;

namespace {

std::string canonical(const std::string& text) {
  return tg::to_text(th::canonical_form(tg::Formula::parse(text).root()).root);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(canonical_forms)

BOOST_AUTO_TEST_CASE(like_terms_add_up_and_vanish) {
  BOOST_TEST(canonical("max(t) dot(a, x[t]) - max(t) dot(a, x[t]) + min(t) dot(b, x[t])") ==
             "min(t) dot(b, x[t])");
  BOOST_TEST(canonical("(max(t) dot(a, x[t]) + max(s) dot(a, x[s])) / 2") == "max(t) dot(a, x[t])");
  BOOST_TEST(canonical("max(t) dot(a, x[t]) + 0 * dot(x[1], x[2])") == "max(t) dot(a, x[t])");
  BOOST_TEST(canonical("max(t) (dot(a, x[t]) + 0)") == "max(t) dot(a, x[t])");
  // Nothing to add up: the formula as written.
  BOOST_TEST(canonical("2 * (max(t) dot(a, x[t]) + 1)") == "2 * (max(t) dot(a, x[t]) + 1)");
}

BOOST_AUTO_TEST_CASE(duality_and_positive_scaling) {
  BOOST_TEST(canonical("-min(t) (-dot(a, x[t]))") == "max(t) dot(a, x[t])");
  BOOST_TEST(canonical("max(t) (-dot(a, x[t]))") == "-min(t) dot(a, x[t])");
  BOOST_TEST(canonical("max(t) (2 * dot(a, x[t]))") == "2 * max(t) dot(a, x[t])");
  BOOST_TEST(canonical("kth(2, t) (3 * dot(a, x[t]))") == "3 * kth(2, t) dot(a, x[t])");
  BOOST_TEST(canonical("min(t by -dot(a, x[t])) dot(b, x[t])") == "max(t by dot(a, x[t])) dot(b, x[t])");
  // A parameter's sign is a draw: c max(t) y would be wrong for c < 0.
  BOOST_TEST(canonical("max(t) (c * dot(a, x[t]))") == "max(t) (c * dot(a, x[t]))");
  BOOST_TEST(canonical("sum(t) (c * dot(a, x[t]))") == "sum(t) (c * dot(a, x[t]))");
}

BOOST_AUTO_TEST_CASE(symmetric_bodies_under_an_order_read_unordered) {
  BOOST_TEST(canonical("max(s < t) dot(x[s], x[t])") == "max(s != t) dot(x[s], x[t])");
  BOOST_TEST(canonical("max(s < t) (dot(a, x[s]) + dot(b, x[t]))") ==
             "max(s < t) (dot(a, x[s]) + dot(b, x[t]))");
  // Each unordered pair is twice under s != t: the 2nd largest is the largest, the 2nd largest
  // of s < t the 3rd of s != t.
  BOOST_TEST(canonical("kth(2, s != t) dot(x[s], x[t])") == "max(s != t) dot(x[s], x[t])");
  BOOST_TEST(canonical("kth(2, s < t) dot(x[s], x[t])") == "kth(3, s != t) dot(x[s], x[t])");
  BOOST_TEST(canonical("kth(1, t) dot(a, x[t])") == "max(t) dot(a, x[t])");
}

BOOST_AUTO_TEST_CASE(double_sums_factor) {
  // sum over s != t of <x_s, x_t> = |sum x|^2 - sum |x|^2.
  BOOST_TEST(canonical("sum(s != t) dot(x[s], x[t])") == "sqnorm(sum(s) x[s]) - sum(t) sqnorm(x[t])");
  BOOST_TEST(canonical("sum(s < t) dot(x[s], x[t])") ==
             "0.5 * (sqnorm(sum(s) x[s]) - sum(t) sqnorm(x[t]))");
  BOOST_TEST(canonical("sum(s, t) (dot(a, x[s]) * dot(b, x[t]))") ==
             "sum(s) dot(a, x[s]) * sum(t) dot(b, x[t])");
  // A term in s alone would need a factor T, which the language cannot write.
  BOOST_TEST(canonical("sum(s, t) (dot(a, x[s]) + dot(x[s], x[t]))") ==
             "sum(s, t) (dot(a, x[s]) + dot(x[s], x[t]))");
}

BOOST_AUTO_TEST_CASE(keys_ignore_index_names_and_operand_order) {
  const auto key = [](const std::string& text) {
    return th::structure_key(tg::Formula::parse(text).root());
  };
  BOOST_TEST(key("max(s) dot(a, x[s]) + sqnorm(x[1])") == key("sqnorm(x[1]) + max(u) dot(x[u], a)"));
  BOOST_TEST(key("max(t) dot(a, x[t])") != key("min(t) dot(a, x[t])"));
}

BOOST_AUTO_TEST_SUITE_END()
