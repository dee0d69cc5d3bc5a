// The targets of docs/theory.md, section 8.1, on inputs whose answer is known by hand.
#include <cmath>

#include <boost/test/unit_test.hpp>

#include "infoflow/core/error.hpp"
#include "infoflow/numeric/tasks.hpp"
#include "infoflow/targets/evaluator.hpp"

#include "common/input_error.hpp"

namespace nm = infoflow::numeric;
using Eigen::MatrixXd;

namespace {
std::unique_ptr<nm::Task> task(const std::string& name, nm::Index t, nm::Index d) {
  nm::TaskOptions o;
  o.name = name;
  o.tokens = t;
  o.token_dim = d;
  o.comparisons = 1;
  return nm::make_task(o);
}
MatrixXd columns(std::initializer_list<std::initializer_list<double>> cols) {
  MatrixXd x(static_cast<Eigen::Index>(cols.begin()->size()),
             static_cast<Eigen::Index>(cols.size()));
  Eigen::Index j = 0;
  for (const auto& c : cols) {
    Eigen::Index i = 0;
    for (const double v : c) x(i++, j) = v;
    ++j;
  }
  return x;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(tasks)

BOOST_AUTO_TEST_CASE(min_inner_product_over_distinct_pairs) {
  // <x1,x2> = -1, <x1,x3> = 1, <x2,x3> = 1; the diagonal (|x|^2 >= 1) must not count.
  BOOST_TEST(task("min_inner", 3, 2)->target(columns({{1, 0}, {-1, 2}, {1, 1}})) == -1.0);
}

BOOST_AUTO_TEST_CASE(triangle_centre_minimises_over_distinct_triples) {
  const MatrixXd x = columns({{1, 0}, {0, 1}, {1, 1}, {-2, -2}});
  // Triples: (2,2) -> 8, (-1,-1) -> 2, (0,-1) -> 1, (-1,0) -> 1.
  BOOST_TEST(task("triangle", 4, 2)->target(x) == 1.0);
  BOOST_TEST(task("triangle", 3, 2)->target(x.leftCols(3)) == 8.0);
  nm::TaskOptions plain;
  plain.name = "triangle";
  plain.tokens = 3;
  plain.norm = nm::NormKind::kPlain;
  BOOST_TEST(nm::make_task(plain)->target(x.leftCols(3)) == std::sqrt(8.0));
}

BOOST_AUTO_TEST_CASE(triangle_inputs_have_clamped_norms) {
  const auto t = task("triangle", 50, 2);
  MatrixXd x(2, 50 * 40);
  Eigen::VectorXd y(40);
  nm::draw_samples(*t, 5, 0, 40, x, y);
  const Eigen::VectorXd norms = x.colwise().norm();
  BOOST_TEST(norms.minCoeff() >= 0.2 - 1e-12);
  BOOST_TEST(norms.maxCoeff() <= 4.0 + 1e-12);
  BOOST_TEST(norms.maxCoeff() == 4.0, boost::test_tools::tolerance(1e-12));  // the clamp is hit
}

BOOST_AUTO_TEST_CASE(fixed_positions_sums_the_first_T0_tokens) {
  BOOST_TEST(task("fixed_positions", 4, 2)->target(columns({{1, 0}, {0, 1}, {1, 1}, {100, 100}})) ==
             8.0);
  BOOST_TEST(nm::to_string(task("fixed_positions", 4, 2)->recommended_positional()) == "learned");
}

BOOST_AUTO_TEST_CASE(pairwise_maximum_of_v_and_minus_v_is_the_absolute_form) {
  // With tokens v and -v, max over (s,t) of x(s)^T A x(t) is |v^T A v|; with v twice it is v^T A v.
  const auto t = task("intrinsic_dim", 2, 3);
  const double same = t->target(columns({{0.3, -1, 2}, {0.3, -1, 2}}));
  const double opposite = t->target(columns({{0.3, -1, 2}, {-0.3, 1, -2}}));
  BOOST_TEST(same != 0.0);
  BOOST_TEST(opposite == std::abs(same), boost::test_tools::tolerance(1e-12));
  // d_retrieval: max_t a^T x(t) over v, -v is |a^T v|.
  const auto r = task("d_retrieval", 2, 3);
  const double one = r->target(columns({{0.3, -1, 2}, {0.3, -1, 2}}));
  BOOST_TEST(r->target(columns({{0.3, -1, 2}, {-0.3, 1, -2}})) == std::abs(one),
             boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(kth_max_reads_the_token_of_the_kth_largest_score) {
  // Tokens c_t * e1: scores are c_t (a . e1) and values c_t (b . e1). With all c_t = 1 the value
  // is b . e1; so target / that = the selected c_t.
  nm::TaskOptions o;
  o.name = "kth_max";
  o.tokens = 4;
  o.token_dim = 2;
  auto at = [&](nm::Index k) {
    o.rank = k;
    const auto t = nm::make_task(o);
    const double unit = t->target(columns({{1, 0}, {1, 0}, {1, 0}, {1, 0}}));
    return t->target(columns({{3, 0}, {-1, 0}, {5, 0}, {2, 0}})) / unit;
  };
  const double first = at(1);
  // a . e1 > 0 selects by the largest c (5, then 3); a . e1 < 0 by the smallest (-1, then 2).
  BOOST_TEST_REQUIRE((std::abs(first - 5) < 1e-12 || std::abs(first + 1) < 1e-12));
  BOOST_TEST(at(2) == (first > 0 ? 3.0 : 2.0), boost::test_tools::tolerance(1e-12));
  BOOST_TEST(at(4) == (first > 0 ? -1.0 : 5.0), boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(samples_do_not_depend_on_how_batches_are_cut) {
  const auto t = task("intrinsic_dim", 5, 4);
  MatrixXd whole(4, 5 * 6);
  Eigen::VectorXd yw(6);
  nm::draw_samples(*t, 9, 0, 6, whole, yw);
  MatrixXd tail(4, 5 * 2);
  Eigen::VectorXd yt(2);
  nm::draw_samples(*t, 9, 4, 2, tail, yt);
  BOOST_TEST((tail.array() == whole.rightCols(10).array()).all());
  BOOST_TEST((yt.array() == yw.tail(2).array()).all());
}

BOOST_AUTO_TEST_CASE(bad_task_options_are_input_errors) {
  nm::TaskOptions o;
  o.name = "sorting";
  BOOST_CHECK_THROW((void)nm::make_task(o), infoflow::InputError);
  o.name = "kth_max";
  o.tokens = 3;
  o.rank = 4;
  BOOST_CHECK_THROW((void)nm::make_task(o), infoflow::InputError);
  o.name = "triangle";
  o.tokens = 2;
  BOOST_CHECK_THROW((void)nm::make_task(o), infoflow::InputError);
  o.name = "intrinsic_dim";
  o.tokens = 0;
  BOOST_CHECK_THROW((void)nm::make_task(o), infoflow::InputError);
}

BOOST_AUTO_TEST_CASE(builtin_tasks_describe_themselves_as_before) {
  // Descriptions enter checkpoint fingerprints: these are the hand-written tasks' own.
  auto described = [](const std::string& name, nm::Index d, nm::Index big_d, nm::Index k,
                      nm::Index t0, nm::NormKind norm) {
    nm::TaskOptions o;
    o.name = name;
    o.token_dim = d;
    o.comparisons = big_d;
    o.rank = k;
    o.positions = t0;
    o.norm = norm;
    return nm::make_task(o)->description();
  };
  const nm::NormKind sq = nm::NormKind::kSquared;
  BOOST_TEST(described("intrinsic_dim", 0, 2, 2, 3, sq) ==
             "sum_{i=1..2} max_{s,t} x(s)^T A_i x(t); A_i entries N(0, 1/d) from the task seed; "
             "x(t) ~ N(0, I_4) i.i.d.");
  BOOST_TEST(described("d_retrieval", 5, 3, 2, 3, sq) ==
             "sum_{i=1..3} max_t a_i^T x(t); a_i random unit vectors from the task seed; "
             "x(t) ~ N(0, I_5) i.i.d.");
  BOOST_TEST(described("min_inner", 0, 2, 2, 3, sq) ==
             "min_{s != t} <x(s), x(t)>; x(t) ~ N(0, I_4) i.i.d.");
  BOOST_TEST(described("kth_max", 3, 2, 3, 3, sq) ==
             "b^T x(t_k), t_k the position of the 3-th largest a^T x(t); a, b random unit "
             "vectors from the task seed; x(t) ~ N(0, I_3) i.i.d.");
  BOOST_TEST(described("fixed_positions", 2, 2, 2, 5, sq) ==
             "||x(1) + ... + x(5)||^2; x(t) ~ N(0, I_2) i.i.d.");
  BOOST_TEST(described("triangle", 0, 2, 2, 3, sq) ==
             "min_{t1<t2<t3} ||x(t1) + x(t2) + x(t3)||^2; x(t) ~ N(0, 2 I_2) i.i.d. with its "
             "norm clamped to [0.2, 4]");
  BOOST_TEST(described("triangle", 0, 2, 2, 3, nm::NormKind::kPlain) ==
             "min_{t1<t2<t3} ||x(t1) + x(t2) + x(t3)||; x(t) ~ N(0, 2 I_2) i.i.d. with its "
             "norm clamped to [0.2, 4]");
}

BOOST_AUTO_TEST_CASE(builtin_tasks_keep_their_defaults_and_limits) {
  const std::vector<std::string> names{"intrinsic_dim", "triangle",        "min_inner",
                                       "kth_max",       "fixed_positions", "d_retrieval"};
  BOOST_TEST(nm::task_names() == names);
  BOOST_TEST(task("triangle", 8, 0)->token_dim() == 2);
  BOOST_TEST(task("kth_max", 8, 0)->token_dim() == 4);
  BOOST_TEST(nm::to_string(task("triangle", 8, 0)->recommended_positional()) == "none");
  BOOST_TEST(nm::to_string(task("min_inner", 8, 0)->recommended_positional()) == "none");
  auto error_of = [](const nm::TaskOptions& o) {
    return infoflow::testing::input_error_of([&] { (void)nm::make_task(o); });
  };
  nm::TaskOptions o;
  o.name = "kth_max";
  o.rank = 9;
  BOOST_TEST(error_of(o) == "kth_max: k must be between 1 and T = 8 (got 9)");
  o = {};
  o.name = "triangle";
  o.tokens = 2;
  BOOST_TEST(error_of(o) == "triangle: T must be at least 3 (got 2)");
  o.name = "min_inner";
  o.tokens = 1;
  BOOST_TEST(error_of(o) == "min_inner: T must be at least 2 (got 1)");
  o = {};
  o.name = "fixed_positions";
  o.positions = 9;
  BOOST_TEST(error_of(o) == "fixed_positions: T0 must be between 1 and T = 8 (got 9)");
  o = {};
  o.name = "d_retrieval";
  o.comparisons = 0;
  BOOST_TEST(error_of(o) == "d_retrieval: D must be between 1 and 65536 (got 0)");
  o.name = "sorting";
  BOOST_TEST(error_of(o).find("unknown task 'sorting' (known: intrinsic_dim, triangle") == 0U);
}

BOOST_AUTO_TEST_CASE(a_formula_reading_fixed_positions_asks_for_a_positional_encoding) {
  auto task = [](const std::string& text) {
    return nm::make_formula_task(
        "f", infoflow::targets::Evaluator(infoflow::targets::Formula::parse(text),
                                          {{"T", 6}, {"T0", 3}}, 2, 1));
  };
  BOOST_TEST(nm::to_string(task("sqnorm(sum(p = 1..T0) x[p])")->recommended_positional()) ==
             "learned");
  BOOST_TEST(nm::to_string(task("sqnorm(x[2])")->recommended_positional()) == "learned");
  BOOST_TEST(nm::to_string(task("max(t) sqnorm(x[t])")->recommended_positional()) == "none");
}

BOOST_AUTO_TEST_SUITE_END()
