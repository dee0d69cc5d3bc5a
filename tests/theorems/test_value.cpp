// The algebra of the engine's value IR (theorems/value.hpp) that the constructor reads.
#include <boost/test/unit_test.hpp>

#include "infoflow/theorems/value.hpp"

namespace th = infoflow::theorems;
using K = infoflow::targets::Node::Kind;

BOOST_AUTO_TEST_SUITE(value)

BOOST_AUTO_TEST_CASE(additive_terms_take_signs_and_numeric_factors_off_and_drop_zero) {
  // 2 * #0 - (#1 + 3 * #2) + 0
  const th::Value v = th::operation(
      K::kAdd, {th::operation(K::kSub, {th::held(0, 2),
                                        th::operation(K::kAdd, {th::held(1), th::held(2, 3)})}),
                th::number(0)});
  const auto terms = th::additive_terms(v);
  BOOST_TEST_REQUIRE(terms.size() == 3U);
  BOOST_TEST(terms[0].first == 2.0);
  BOOST_TEST(th::same_value(terms[0].second, th::held(0)));
  BOOST_TEST(terms[1].first == -1.0);
  BOOST_TEST(th::same_value(terms[1].second, th::held(1)));
  BOOST_TEST(terms[2].first == -3.0);
  BOOST_TEST(th::same_value(terms[2].second, th::held(2)));
}

BOOST_AUTO_TEST_CASE(additive_terms_split_a_negated_sum_of_copies_and_keep_other_operations) {
  // -#sum(#0, 2 * #1) + #max(#0, #1) + #0 * 2: a maximum, and a number on the right, stay.
  const th::Value copies{th::Value::Combined{infoflow::targets::ReduceOp::kSum},
                         {th::held(0), th::held(1, 2)}};
  const th::Value maximum{th::Value::Combined{infoflow::targets::ReduceOp::kMax},
                          {th::held(0), th::held(1)}};
  const th::Value scaled = th::operation(K::kMul, {th::held(0), th::number(2)});
  const th::Value v = th::operation(
      K::kAdd, {th::operation(K::kAdd, {th::operation(K::kNeg, {copies}), maximum}), scaled});
  const auto terms = th::additive_terms(v);
  BOOST_TEST_REQUIRE(terms.size() == 4U);
  BOOST_TEST(terms[0].first == -1.0);
  BOOST_TEST(th::same_value(terms[0].second, th::held(0)));
  BOOST_TEST(terms[1].first == -2.0);
  BOOST_TEST(th::same_value(terms[1].second, th::held(1)));
  BOOST_TEST(terms[2].first == 1.0);
  BOOST_TEST(th::same_value(terms[2].second, maximum));
  BOOST_TEST(terms[3].first == 1.0);
  BOOST_TEST(th::same_value(terms[3].second, scaled));
}

BOOST_AUTO_TEST_SUITE_END()
