// The compiler's readings (theorems/src/engine/readings/) and R1's score tests, formula in,
// formula out, each worked by hand.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "infoflow/targets/node_algebra.hpp"

#include "engine/readings/reading.hpp"
#include "engine/score_tests.hpp"

namespace th = infoflow::theorems;
namespace tg = infoflow::targets;
using th::detail::Reader;

namespace {

/// `formula` with the reading `name` applied once, at the first node (outermost, then left to
/// right) it applies to; "" if it applies nowhere.
std::string read_once(const std::string& name, const std::string& formula,
                      bool second_reading = false) {
  const th::detail::Reading* reading = th::detail::find_reading(name);
  BOOST_TEST_REQUIRE(reading != nullptr);
  const tg::Bindings bindings;
  Reader reader(bindings, 0, second_reading);
  tg::Node root = tg::Formula::parse(formula).root();
  const std::function<bool(tg::Node&)> apply = [&](tg::Node& n) {
    if (std::optional<tg::Node> rewritten = reading->rewrite(n, n, reader)) {
      n = std::move(*rewritten);
      return true;
    }
    for (tg::Node& a : n.args) {
      if (apply(a)) return true;
    }
    return false;
  };
  return apply(root) ? tg::to_text(root) : "";
}

/// `formula` as the reader leaves it: every reading, in the registry's order.
std::string read(const std::string& formula, bool second_reading = false) {
  const tg::Bindings bindings;
  Reader reader(bindings, 0, second_reading);
  return tg::to_text(reader.read(tg::Formula::parse(formula).root()));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(readings)

BOOST_AUTO_TEST_CASE(the_registry_lists_each_reading_with_its_rule) {
  std::vector<std::string> order;
  for (const th::detail::ReadingStep& s : th::detail::reading_steps())
    order.push_back(std::string(s.reading->rule) + " " + s.reading->name);
  const std::vector<std::string> expected{
      "E1 nested extrema", "E1 idle selection",   "E1 square",
      "E0 sum of copies",  "E0 range outside",    "E1 terms outside",
      "R5 anchored",       "R1 monotone outside", "E1 nested extrema"};
  BOOST_TEST(order == expected, boost::test_tools::per_element());
  BOOST_TEST(th::detail::find_reading("idle constraints") == &th::detail::kIdleConstraints);
  BOOST_TEST(th::detail::find_reading("no such reading") == nullptr);
}

BOOST_AUTO_TEST_CASE(e1_nested_extrema_are_one_reduction) {
  BOOST_TEST(read_once("nested extrema", "max(s) max(t) (dot(x[s], x[t]) + dot(a, x[t]))") ==
             "max(s, t) (dot(x[s], x[t]) + dot(a, x[t]))");
  // The inner constraint comes along; a minimum inside a maximum is no such pair.
  BOOST_TEST(read_once("nested extrema", "max(s) max(t < s) dot(x[s], x[t])") ==
             "max(t < s) dot(x[s], x[t])");
  BOOST_TEST(read_once("nested extrema", "max(s) min(t) dot(x[s], x[t])").empty());
}

BOOST_AUTO_TEST_CASE(e1_terms_that_read_no_index_leave_the_extremum) {
  BOOST_TEST(read_once("terms outside", "max(s) min(t) (dot(a, x[s]) + dot(b, x[t]))") ==
             "max(s) (dot(a, x[s]) + min(t) dot(b, x[t]))");
  // A sum's terms stay: they would leave it times its count of tuples.
  BOOST_TEST(read_once("terms outside", "max(s) sum(t) (dot(a, x[s]) + dot(b, x[t]))").empty());
  // Read to the end: the minimum, which reads no s, then leaves max(s) too.
  BOOST_TEST(read("max(s) min(t) (dot(a, x[s]) + dot(b, x[t]))") ==
             "min(t) dot(b, x[t]) + max(s) dot(a, x[s])");
}

BOOST_AUTO_TEST_CASE(e1_an_idle_selection_is_its_body) {
  BOOST_TEST(read_once("idle selection", "max(s) max(t by bilinear(A, x[s], x[t])) dot(a, x[s])") ==
             "max(s) dot(a, x[s])");
  BOOST_TEST(read_once("idle selection", "max(t by dot(a, x[t])) dot(b, x[t])").empty());
}

BOOST_AUTO_TEST_CASE(e1_a_product_of_a_term_with_itself_is_its_square) {
  BOOST_TEST(read_once("square", "max(t) (dot(a, x[t]) * dot(a, x[t]))") ==
             "max(t) dot(a, x[t])^2");
  BOOST_TEST(read_once("square", "max(t) (dot(a, x[t]) * dot(b, x[t]))").empty());
}

BOOST_AUTO_TEST_CASE(e0_a_range_sum_in_a_score_is_the_sum_of_its_copies) {
  BOOST_TEST(read_once("sum of copies", "max(t) sum(i = 1..2) dot(a[i], x[t])") ==
             "max(t) (dot(a[1], x[t]) + dot(a[2], x[t]))");
  // A bound with no value leaves the sum as it is.
  BOOST_TEST(read_once("sum of copies", "max(t) sum(i = 1..D) dot(a[i], x[t])").empty());
}

BOOST_AUTO_TEST_CASE(e0_a_range_goes_outside_in_the_second_reading_only) {
  BOOST_TEST(read_once("range outside", "max(t) max(i = 1..2) dot(a[i], x[t])") ==
             "max(i = 1..2) max(t) dot(a[i], x[t])");
  BOOST_TEST(read("max(t) max(i = 1..2) dot(a[i], x[t])") ==
             "max(t) max(i = 1..2) dot(a[i], x[t])");
  BOOST_TEST(read("max(t) max(i = 1..2) dot(a[i], x[t])", true) ==
             "max(i = 1..2) max(t) dot(a[i], x[t])");
}

BOOST_AUTO_TEST_CASE(r5_offsets_are_anchored_where_the_values_agree) {
  // x[t-1] at t is x[t] at t + 1; the boundary terms are 0 either way.
  BOOST_TEST(read_once("anchored", "max(t) dot(x[t-1], x[t+1])") == "max(t) dot(x[t], x[t+2])");
  // The boundary terms differ: sqnorm(x[2]) at t = 1, against sqnorm(x[T]) anchored at x[t].
  BOOST_TEST(read_once("anchored", "max(t) sqnorm(x[t-1] - x[t+1])").empty());
}

BOOST_AUTO_TEST_CASE(r1_a_monotone_function_leaves_the_extremum) {
  BOOST_TEST(read_once("monotone outside", "max(t) exp(dot(a, x[t]))") ==
             "exp(max(t) dot(a, x[t]))");
  // Decreasing: the opposite extremum.
  BOOST_TEST(read_once("monotone outside", "max(t) -dot(a, x[t])") == "-min(t) dot(a, x[t])");
  // An even power is one of |E|.
  BOOST_TEST(read_once("monotone outside", "max(t) dot(a, x[t])^4") ==
             "(max(t) abs(dot(a, x[t])))^4");
  // A selection's key is peeled, its value kept.
  BOOST_TEST(read_once("monotone outside", "max(t by tanh(dot(a, x[t]))) dot(b, x[t])") ==
             "max(t by dot(a, x[t])) dot(b, x[t])");
}

BOOST_AUTO_TEST_CASE(e3_constraints_that_never_bind_go) {
  BOOST_TEST(read_once("idle constraints", "max(s != t) (dot(a, x[s]) - dot(a, x[t]))") ==
             "max(s, t) (dot(a, x[s]) - dot(a, x[t]))");
  // On two tokens the diagonal often wins: the constraint binds.
  BOOST_TEST(read_once("idle constraints", "min(s != t) dot(x[s], x[t])").empty());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(score_tests)

BOOST_AUTO_TEST_CASE(linear_scores_are_a_token_or_its_dot_with_a_parameter) {
  const auto linear = [](const std::string& f) {
    const tg::Formula formula = tg::Formula::parse(f);
    return th::detail::linear_in_tokens(formula.root().args[0], "t");  // the reduction's body
  };
  BOOST_TEST(linear("max(t) dot(a, x[t])"));
  BOOST_TEST(linear("max(t) dot(x[t], a)"));
  // A member of a family is a parameter, whatever the family's name ends with (a test on the
  // printed text, which looked for "x[", once said that ax[1] reads a token).
  const tg::Formula family = tg::Formula::parse("max(t) sum(i = 1..2) dot(ax[i], x[t])");
  BOOST_TEST(
      th::detail::linear_in_tokens(tg::substitute(family.root().args[0].args[0], "i", 1), "t"));
  BOOST_TEST(!linear("max(t) sqnorm(x[t])"));
  BOOST_TEST(!linear("max(t) dot(x[t], x[t])"));
  BOOST_TEST(!linear("max(t) dot(a, x[t+1])"));
}

BOOST_AUTO_TEST_CASE(query_key_products_are_bilinear_in_the_two_tokens) {
  const auto product = [](const std::string& f) {
    const tg::Formula formula = tg::Formula::parse(f);
    return th::detail::query_key_product(formula.root().args[0], "s", "t");  // the body
  };
  BOOST_TEST(product("max(s, t) dot(x[s], x[t])"));
  BOOST_TEST(product("max(s, t) bilinear(A, x[t], x[s])"));
  BOOST_TEST(product("max(s, t) (dot(a, x[s]) * dot(b, x[t]))"));
  BOOST_TEST(!product("max(s, t) (dot(a, x[s]) * dot(b, x[t]) * dot(c, x[t]))"));
  BOOST_TEST(!product("max(s, t) sqnorm(x[s] - x[t])"));
  BOOST_TEST(!product("max(s, t) (dot(a, x[s]) * -dot(b, x[t]))"));
}

BOOST_AUTO_TEST_SUITE_END()
