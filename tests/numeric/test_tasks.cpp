// The targets of THEORY.md section 5 on inputs whose answer is known by hand.
#include <cmath>

#include <boost/test/unit_test.hpp>

#include "infoflow/core/error.hpp"
#include "infoflow/numeric/tasks.hpp"
#include "infoflow/targets/evaluator.hpp"

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

BOOST_AUTO_TEST_CASE(every_builtin_task_is_its_compiled_formula_bit_for_bit) {
  // Summed as the hand-written tasks sum (Summation::kBlocked), each task's formula gives its
  // targets exactly, over T, d and the task's options.
  for (const std::string& name : nm::task_names()) {
    for (const nm::Index t : {3, 8, 16, 64}) {
      for (const nm::Index d : {0, 1, 2, 3, 4, 5, 8}) {
        for (int variant = 0; variant < 2; ++variant) {
          if (name == "triangle" && t == 64) continue;
          nm::TaskOptions o;
          o.name = name;
          o.tokens = t;
          o.token_dim = d;
          o.comparisons = variant == 0 ? 2 : 4;
          o.rank = variant == 0 ? 1 : 3;
          o.positions = variant == 0 ? 1 : 3;
          o.norm = variant == 0 ? nm::NormKind::kSquared : nm::NormKind::kPlain;
          o.seed = 11 + static_cast<std::uint64_t>(variant);
          const auto native = nm::make_task(o);
          const nm::TaskFormula f = nm::formula_of(o);
          const auto formula = nm::make_formula_task(
              name,
              infoflow::targets::Evaluator(infoflow::targets::Formula::parse(f.text), f.bindings,
                                           f.token_dim, o.seed,
                                           infoflow::targets::Summation::kBlocked),
              f.inputs);
          const nm::Index n = 200;
          MatrixXd x(native->token_dim(), t * n);
          Eigen::VectorXd y_native(n);
          Eigen::VectorXd y_formula(n);
          nm::draw_samples(*native, 3, 0, n, x, y_native);
          MatrixXd x_formula(native->token_dim(), t * n);
          nm::draw_samples(*formula, 3, 0, n, x_formula, y_formula);
          BOOST_TEST_CONTEXT(name << " T = " << t << " d = " << d << " variant " << variant) {
            BOOST_TEST((x_formula.array() == x.array()).all());  // same input distribution
            BOOST_TEST((y_formula.array() == y_native.array()).all());
          }
        }
      }
    }
  }
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
