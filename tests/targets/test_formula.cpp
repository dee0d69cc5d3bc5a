// The target language: parsing, printing back, and every kind of bad input with its column.
#include <string>

#include <boost/test/unit_test.hpp>

#include "infoflow/targets/formula.hpp"

namespace tg = infoflow::targets;

namespace {
/// The column and message of the error a text raises, "" if it parses.
std::string error_of(const std::string& text) {
  try {
    (void)tg::Formula::parse(text, infoflow::SourceLocation{"f", 1, 1});
  } catch (const infoflow::InputError& e) {
    return std::to_string(e.where().column) + ": " + e.message();
  }
  return "";
}
}  // namespace

BOOST_AUTO_TEST_SUITE(formula)

BOOST_AUTO_TEST_CASE(the_seed_targets_parse_and_print_back) {
  const std::vector<std::string> texts{
      "sum(i = 1..D) max(s, t) bilinear(A[i], x[s], x[t])",
      "min(t1 < t2 < t3) sqnorm(x[t1] + x[t2] + x[t3])",
      "min(s != t) dot(x[s], x[t])",
      "kth(2, t by dot(a, x[t])) dot(b, x[t])",
      "sqnorm(x[1] + x[2] + x[3])",
      "sum(i = 1..D) max(t) dot(a[i], x[t])",
      "kth(k, t) dot(a, x[t])",
      "max(t by dot(a, x[t])) dot(b, x[t])",
      "exp(-2 * norm(x[1])) + 3 / (1 + max(t) dot(w, x[t]))^2",
      "(max(t) dot(w, x[t]))^2 - 2 * min(t) dot(w, x[t])",
  };
  for (const std::string& t : texts) {
    const tg::Formula f = tg::Formula::parse(t);
    BOOST_TEST(tg::to_text(f.root()) == t);
  }
}

BOOST_AUTO_TEST_CASE(parameters_get_their_kind_from_their_use) {
  const tg::Formula f =
      tg::Formula::parse("sum(i = 1..D) max(s, t) bilinear(A[i], x[s], x[t]) + c * dot(b, x[1])");
  BOOST_TEST_REQUIRE(f.parameters().size() == 3u);
  BOOST_TEST(f.parameters()[0].name == "A");
  BOOST_TEST((f.parameters()[0].kind == tg::ValueKind::kMatrix));
  BOOST_TEST(f.parameters()[0].indexed);
  BOOST_TEST(f.parameters()[0].family_size.name == "D");
  BOOST_TEST((f.parameters()[1].kind == tg::ValueKind::kScalar));
  BOOST_TEST((f.parameters()[2].kind == tg::ValueKind::kVector));
  BOOST_TEST(f.free_integers() == std::vector<std::string>{"D"});
  BOOST_TEST(f.highest_position() == 1);
}

BOOST_AUTO_TEST_CASE(syntax_errors_name_their_column) {
  BOOST_TEST(error_of("max(s, t) dot(x[s], x[t]") == "25: expected ')'");
  BOOST_TEST(error_of("dot(x[1], x[2]) +") == "18: expected an operand");
  BOOST_TEST(error_of("max(s, t dot(x[s], x[t])") == "10: expected ')'");
  BOOST_TEST(error_of("sum(i = 1.D) max(t) dot(a[i], x[t])") == "10: expected '..' in the range");
  BOOST_TEST(error_of("dot(x[1], x[2])) ") == "16: unexpected text after the formula");
  BOOST_TEST(error_of("") == "1: expected an expression");
  // Issue 46: a rank written as an expression got "expected ','" and no word of what a rank is.
  BOOST_TEST(error_of("kth(T - 1, t) dot(a, x[t])") ==
             "7: expected ',' after kth's rank, which is an integer or the name of one (kth(2, t), "
             "kth(k, t), kth(T, t)), not an expression");
}

BOOST_AUTO_TEST_CASE(semantic_errors_name_their_column) {
  BOOST_TEST(error_of("max(s) dot(x[s], x[t])") == "18: index 't' is not bound by any reduction");
  BOOST_TEST(error_of("max(s, t) dot(x[s], x[s])") == "8: index 't' is bound but not used");
  BOOST_TEST(error_of("max(t) dott(x[t], a)") ==
             "8: unknown function 'dott' (known: dot, bilinear, norm, sqnorm, exp, log, sqrt, abs, "
             "tanh, sin, cos, relu)");
  BOOST_TEST(error_of("max(t) dot(x[t])") == "8: dot() takes 2 arguments, not 1");
  BOOST_TEST(error_of("max(t) sqnorm(x[t], x[t])") == "8: sqnorm() takes 1 argument, not 2");
  BOOST_TEST(error_of("max(t) x[t]") == "8: max() needs a number, not a vector");
  BOOST_TEST(error_of("dot(x[1], 2)") == "11: dot() needs a vector, not a number");
  BOOST_TEST(error_of("max(t) dot(2 * a, x[t])").find(
                 "not a number (a parameter is a vector only where it is the argument itself") !=
             std::string::npos);
  BOOST_TEST(error_of("x[1] * x[2]") ==
             "1: '*' multiplies numbers, or a number and a vector; use dot(u, v) for vectors");
  BOOST_TEST(error_of("max(t) dot(a[t], x[t])") ==
             "12: index 't' runs over tokens; a parameter family needs a range, e.g. t = 1..D");
  BOOST_TEST(error_of("max(t) max(t) dot(x[t], x[t])") == "12: index 't' is already bound");
  BOOST_TEST(error_of("dot(a, x[1]) + a") ==
             "16: parameter 'a' is used as a number here but as a vector before");
  BOOST_TEST(error_of("dot(x[0], x[1])") == "7: positions count from 1");
  BOOST_TEST(error_of("sqnorm(x)") == "8: x needs a subscript: x[t] or x[1]");
}

BOOST_AUTO_TEST_CASE(literals_print_back_as_the_same_number) {
  // Printed with six decimals they read back as another formula: 0.0000001 became 0.
  for (const std::string t :
       {"0.0000001 * max(t) dot(a, x[t])", "1.23456789 + sum(t) sqnorm(x[t])",
        "123456789.125 * min(s != t) dot(x[s], x[t])", "2.5 * sum(t) dot(a, x[t])"}) {
    BOOST_TEST(tg::to_text(tg::Formula::parse(t).root()) == t);
  }
  BOOST_TEST(tg::number_text(3.0) == "3");
  BOOST_TEST(tg::number_text(0.1) == "0.1");
}

BOOST_AUTO_TEST_CASE(positions_offsets_and_outer_constraints) {
  for (const std::string t : {"sqnorm(x[1] - x[T])", "dot(x[T-1], x[T])",
                              "max(t) dot(x[t], x[t+1])", "max(t) dot(x[t-2], a)",
                              "max(s) min(t != s) dot(x[s], x[t])",
                              "sum(i = 1..3) max(t) dot(a[i], x[t])"}) {
    BOOST_TEST(tg::to_text(tg::Formula::parse(t).root()) == t);
  }
  BOOST_TEST(tg::Formula::parse("sqnorm(x[1] - x[T])").reads_positions());
  BOOST_TEST(tg::Formula::parse("max(t) dot(x[t], x[t+1])").reads_positions());
  BOOST_TEST(tg::Formula::parse("max(s < t) dot(x[s], x[t])").reads_positions());
  BOOST_TEST(tg::Formula::parse("sqnorm(sum(p = 1..T0) x[p])").reads_positions());
  BOOST_TEST(!tg::Formula::parse("max(s != t) dot(x[s], x[t])").reads_positions());
  BOOST_TEST(!tg::Formula::parse("sum(i = 1..D) max(t) dot(a[i], x[t])").reads_positions());
  // The chain's s refers to the outer index: only t is bound by the inner reduction.
  const tg::Formula f = tg::Formula::parse("max(s) min(t != s) dot(x[s], x[t])");
  const tg::Node& inner = f.root().args[0];
  BOOST_TEST_REQUIRE(inner.binders.size() == 1u);
  BOOST_TEST(inner.binders[0].name == "t");
  BOOST_TEST_REQUIRE(inner.constraints.size() == 1u);
}

BOOST_AUTO_TEST_CASE(names_that_are_not_indices_are_refused_with_their_column) {
  BOOST_TEST(error_of("max(T) dot(a, x[T])") ==
             "5: 'T' is a named quantity (sequence length, precision or a range bound), not an "
             "index; pick another index name");
  BOOST_TEST(error_of("sum(i = 1..D) max(D) dot(a[i], x[D])") ==
             "19: 'D' is a named quantity (sequence length, precision or a range bound), not an "
             "index; pick another index name");
  // Nor numbers: T / D would otherwise be a random parameter named T, drawn from N(0, 1).
  BOOST_TEST(error_of("sum(t) dot(a, x[t]) / T") ==
             "23: 'T' is a named quantity (sequence length, precision, a range bound or a rank), "
             "not a number of the formula: a value that depends on it is not supported");
  BOOST_TEST(error_of("sum(i = 1..D) max(t) dot(a[i], x[t]) * D") ==
             "40: 'D' is a named quantity (sequence length, precision, a range bound or a rank), "
             "not a number of the formula: a value that depends on it is not supported");
  BOOST_TEST(error_of("kth(k, t) dot(a, x[t]) * k").find("26: 'k' is a named quantity") == 0u);
  BOOST_TEST(error_of("max(t) relu(dot(a, x[t]) - eps)").find("28: 'eps' is a named quantity") ==
             0u);
  BOOST_TEST(error_of("dot(x[3+1], a)") ==
             "8: an offset goes with an index or T (x[t+1], x[T-1]); write the position itself");
  BOOST_TEST(error_of("dot(x[T+1], a)") == "5: x[T+1] is beyond the last token");
  BOOST_TEST(error_of("max(i = 1..2) max(t) dot(a[i+1], x[t])") ==
             "26: a parameter family is subscripted by its index alone, e.g. a[i]");
  BOOST_TEST(error_of("dot(x[t+], a)") == "9: expected an integer offset, e.g. x[t+1]");
  BOOST_TEST(error_of("sum(i = 1..99999999999999999999) max(t) dot(a[i], x[t])") ==
             "12: the integer 99999999999999999999 is out of range");
}

BOOST_AUTO_TEST_CASE(a_literal_past_a_double_s_range_is_refused_with_its_column) {
  // std::stod threw out_of_range: exit 3 for derive, plan, construct, train and the files.
  const std::string zeros(400, '0');
  const std::string range = " is out of range (a number is 0, or between 4.9e-324 and 1.8e308 in size)";
  BOOST_TEST(error_of("1" + zeros + " * max(t) dot(a, x[t])") ==
             "1: the number 100000000000...000000 (401 characters)" + range);
  BOOST_TEST(error_of("max(t) dot(a, x[t]) * 0." + zeros + "1") ==
             "23: the number 0.0000000000...000001 (403 characters)" + range);
  BOOST_TEST(error_of("max(t) dot(a, x[t])^1" + std::string(309, '0')) ==
             "21: the number 100000000000...000000 (310 characters)" + range);
  BOOST_TEST(error_of("max(t) dot(x[1" + zeros + "], a)") ==
             "14: the integer 100000000000...000000 (401 characters) is out of range");
  // Within the range: 1e308, a number below the normal ones, and 0 written long.
  BOOST_TEST(error_of("max(t) dot(a, x[t]) * 1" + std::string(308, '0')) == "");
  BOOST_TEST(error_of("max(t) dot(a, x[t]) * 0." + std::string(320, '0') + "1") == "");
  BOOST_TEST(error_of("max(t) dot(a, x[t]) * 0." + zeros) == "");
}

BOOST_AUTO_TEST_CASE(errors_carry_the_file_and_line) {
  try {
    (void)tg::Formula::parse("max(t) dot(x[t], y[t]) +",
                             infoflow::SourceLocation{"targets.toml", 7, 11});
    BOOST_FAIL("no error");
  } catch (const infoflow::InputError& e) {
    BOOST_TEST(std::string(e.what()).find("targets.toml:7:") == 0);
  }
}

BOOST_AUTO_TEST_CASE(nesting_and_length_are_bounded_not_the_stack) {
  const auto nested = [](int n, const std::string& open, const std::string& close) {
    std::string s;
    for (int i = 0; i < n; ++i) s += open;
    s += "dot(x[1], x[2])";
    for (int i = 0; i < n; ++i) s += close;
    return s;
  };
  BOOST_TEST(error_of(nested(90, "(", ")")).empty());
  BOOST_TEST(error_of(nested(100, "(", ")")) == "101: nested more than 100 levels deep");
  BOOST_TEST(error_of(nested(1000, "-", "")) == "101: nested more than 100 levels deep");
  BOOST_TEST(error_of(nested(1000, "2^", "")) == "201: nested more than 100 levels deep");
  BOOST_TEST(error_of(nested(3000, "(", ")")) ==
             "1: the formula has 6015 characters; at most 4096 are accepted");
}

BOOST_AUTO_TEST_SUITE_END()
