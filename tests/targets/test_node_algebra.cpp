// The term algebra on formula trees (targets/node_algebra.hpp), and Formula::from_tree, which
// must build the formula a tree's text reads as.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "infoflow/targets/node_algebra.hpp"

namespace tg = infoflow::targets;

namespace {
tg::Node parsed(const std::string& text) {
  return tg::Formula::parse(text).root();
}
}  // namespace

BOOST_AUTO_TEST_SUITE(node_algebra)

BOOST_AUTO_TEST_CASE(one_expression_wherever_it_was_written) {
  // The same dot at columns 8 and 1.
  const tg::Node inside = parsed("max(t) dot(a, x[t])").args[0];
  BOOST_TEST(tg::same_expression(inside, parsed("max(t) dot(a, x[t])").args[0]));
  BOOST_TEST(tg::same_expression(inside.args[1], parsed("sqnorm(x[1])").args[0]) == false);
  BOOST_TEST(!tg::same_expression(parsed("max(s, t) dot(x[s], x[t])"),
                                  parsed("max(t, s) dot(x[s], x[t])")));
}

BOOST_AUTO_TEST_CASE(indices_become_positions_and_subexpressions_are_replaced) {
  const tg::Node sum = parsed("sum(p = 1..2) dot(a, x[p+1])");
  BOOST_TEST(tg::to_text(tg::substitute(sum.args[0], "p", 2)) == "dot(a, x[3])");
  BOOST_TEST(tg::to_text(tg::renamed(sum.args[0], "p", "q")) == "dot(a, x[q+1])");
  const tg::Node g = parsed("max(t) abs(2 * dot(a, x[t]) + dot(a, x[t]))").args[0];
  const tg::Node y = parsed("y");
  BOOST_TEST(tg::to_text(tg::replaced(g, parsed("max(t) dot(a, x[t])").args[0], y)) ==
             "abs(2 * y + y)");
}

BOOST_AUTO_TEST_CASE(a_map_keyed_by_expressions_finds_one_written_elsewhere) {
  std::map<tg::Node, int, tg::ExpressionOrder> by;
  by.emplace(parsed("max(t) dot(a, x[t])"), 1);
  by.emplace(parsed("min(t) dot(a, x[t])"), 2);
  by.emplace(parsed("max(t) dot(b, x[t])"), 3);
  by.emplace(parsed("max(s != t) dot(x[s], x[t])"), 4);
  by.emplace(parsed("max(s < t) dot(x[s], x[t])"), 5);
  tg::Node negative_zero;
  negative_zero.number = -0.0;
  by.emplace(negative_zero, 6);
  BOOST_TEST(by.size() == 6u);
  // The same reduction at another column, inside another formula.
  BOOST_TEST(by.at(parsed("2 * max(t) dot(a, x[t])").args[1]) == 1);
  BOOST_TEST(by.at(parsed("max(s != t) dot(x[s], x[t])")) == 4);
  BOOST_TEST(by.count(parsed("0")) == 0u);  // -0 is not 0, as printed
}

BOOST_AUTO_TEST_CASE(products_absolute_values_powers_and_ranges_are_found_in_the_tree) {
  BOOST_TEST(tg::has_product_abs_power_or_range(parsed("max(t) (2 * dot(a, x[t]))")));
  BOOST_TEST(tg::has_product_abs_power_or_range(parsed("max(t) abs(dot(a, x[t]))")));
  BOOST_TEST(tg::has_product_abs_power_or_range(parsed("max(t) dot(a, x[t])^2")));
  BOOST_TEST(tg::has_product_abs_power_or_range(parsed("max(t) max(i = 1..2) dot(a[i], x[t])")));
  BOOST_TEST(!tg::has_product_abs_power_or_range(parsed("max(s != t) dot(x[s], x[t])")));
  BOOST_TEST(!tg::has_product_abs_power_or_range(parsed("max(t) dot(x[t], x[T-1]) / 2")));
  BOOST_TEST(tg::contains(parsed("sum(t) sqnorm(x[t])"),
                          [](const tg::Node& n) { return n.kind == tg::Node::Kind::kCall; }));
}

BOOST_AUTO_TEST_CASE(copies_over_ranges_take_the_first_range_outermost) {
  const tg::Node body = parsed("sum(i = 1..2, j = 1..2) bilinear(A[i], x[j], x[3])").args[0];
  const std::vector<tg::Node> copies = tg::copies_over(body, {{"i", 1, 2}, {"j", 1, 2}});
  std::vector<std::string> texts;
  for (const tg::Node& c : copies) texts.push_back(tg::to_text(c));
  const std::vector<std::string> expected{
      "bilinear(A[1], x[1], x[3])", "bilinear(A[1], x[2], x[3])", "bilinear(A[2], x[1], x[3])",
      "bilinear(A[2], x[2], x[3])"};
  BOOST_TEST(texts == expected, boost::test_tools::per_element());
  BOOST_TEST(tg::copies_over(body, {{"i", 2, 1}}).empty());  // an empty range
}

BOOST_AUTO_TEST_CASE(free_indices_in_the_order_read) {
  // s and i are bound further out: the chain names s, x[s] reads it, A[i] reads i.
  const tg::Node root =
      parsed("sum(i = 1..2) max(s) (min(t != s) dot(A[i], x[t]) + dot(b, x[s]))");
  const tg::Node& inner = root.args[0].args[0];  // min(t != s) ... + dot(b, x[s])
  const tg::Node& reduction = inner.args[0];     // min(t != s) dot(A[i], x[t])
  BOOST_TEST(tg::free_indices(reduction).empty());
  BOOST_TEST(tg::free_indices(reduction, {.constraints = true}) == std::vector<std::string>{"s"},
             boost::test_tools::per_element());
  BOOST_TEST(tg::free_indices(reduction, {.parameters = true, .constraints = true}) ==
                 (std::vector<std::string>{"s", "i"}),
             boost::test_tools::per_element());
  BOOST_TEST(tg::free_indices(inner) == std::vector<std::string>{"s"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_subscript_reads_as_written) {
  const tg::Node sum = parsed("dot(a, x[T-1]) + dot(a, x[3]) + sum(t) dot(a, x[t+1])");
  BOOST_TEST(tg::subscript_text(sum.args[0].args[0].args[1]) == "T-1");
  BOOST_TEST(tg::subscript_text(sum.args[0].args[1].args[1]) == "3");
  BOOST_TEST(tg::subscript_text(sum.args[1].args[0].args[1]) == "t+1");
  BOOST_TEST(tg::subscript_text(sum.args[0].args[0].args[0]).empty());  // a, no subscript
}

BOOST_AUTO_TEST_CASE(what_a_term_reads) {
  const tg::Node n = parsed("max(s) (dot(a, x[s]) * max(t) dot(x[s], x[t]))");
  BOOST_TEST(tg::token_indices_read(n.args[0]) == (std::set<std::string>{"s"}));
  BOOST_TEST(tg::names_index(n.args[0], "s"));
  BOOST_TEST(tg::mentions_token(n.args[0]));
  BOOST_TEST(tg::subscripts_x(n, "t"));
  BOOST_TEST(!tg::mentions_token(parsed("2 * c").args[1]));
  BOOST_TEST(*tg::literal_number(parsed("-3 / 4")) == -0.75);
  BOOST_TEST(tg::product_parts(n.args[0]).size() == 2u);
  BOOST_TEST(tg::to_text(tg::sum_of({parsed("a"), parsed("b"), parsed("c")})) == "a + b + c");
}

BOOST_AUTO_TEST_CASE(a_tree_is_the_formula_its_text_reads_as) {
  // Every reduction of each formula, standing alone: from_tree() accepts what parse() accepts of
  // its text, as the same tree (chains bound first, an index bound further out bound by its
  // chain, x[T]).
  const std::vector<std::string> texts{
      "max(u, s != t) (dot(x[s], x[t]) + dot(a, x[u]))",
      "max(s) min(t != s) dot(x[s], x[t])",
      "max(s) min(t != s) (dot(x[s], x[t]) + dot(x[s], x[s]))",
      "max(t) dot(x[T-1], x[t]) + sqnorm(x[T])",
      "min(t1 < t2 < t3) sqnorm(x[t1] + x[t2] + x[t3])",
      "sum(i = 1..D) max(s, t) bilinear(A[i], x[s], x[t])",
      "kth(2, t by dot(a, x[t])) dot(b, x[t])",
      "max(s) max(t by dot(x[s], x[t])) dot(a, x[t])",
  };
  std::size_t compared = 0;
  for (const std::string& text : texts) {
    const std::function<void(const tg::Node&)> visit = [&](const tg::Node& n) {
      for (const tg::Node& a : n.args) visit(a);
      if (n.kind != tg::Node::Kind::kReduce) return;
      BOOST_TEST_CONTEXT(tg::to_text(n)) {
        bool parses = true;
        tg::Node reparsed;
        try {
          reparsed = tg::Formula::parse(tg::to_text(n)).root();
        } catch (const infoflow::InputError&) {
          parses = false;
        }
        bool built = true;
        tg::Node tree;
        try {
          tree = tg::Formula::from_tree(n).root();
        } catch (const infoflow::InputError&) {
          built = false;
        }
        BOOST_TEST(built == parses);
        if (built && parses) BOOST_TEST(tg::same_expression(tree, reparsed));
        ++compared;
      }
    };
    visit(parsed(text));
  }
  BOOST_TEST(compared >= 10u);
  // A negative number made in code is the negation the text reads.
  tg::Node product = parsed("2 * dot(a, x[1])");
  product.args[0].number = -2;
  BOOST_TEST(
      tg::same_expression(tg::Formula::from_tree(product).root(), parsed("-2 * dot(a, x[1])")));
}

BOOST_AUTO_TEST_SUITE_END()
