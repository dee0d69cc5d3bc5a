// Fits recover known exponents, growth and gaps from synthetic data with noise.
#include <cmath>

#include <boost/test/unit_test.hpp>

#include "infoflow/core/random.hpp"
#include "infoflow/numeric/fit.hpp"

namespace nm = infoflow::numeric;

namespace {
/// y = c x^slope, times log-normal noise (sigma in decades), `seeds` per x.
std::vector<std::vector<double>> power_law(const std::vector<double>& xs, double c, double slope,
                                           double sigma, int seeds, std::uint64_t seed) {
  infoflow::Rng rng(seed);
  std::vector<std::vector<double>> ys;
  for (const double x : xs) {
    std::vector<double> g;
    for (int s = 0; s < seeds; ++s)
      g.push_back(c * std::pow(x, slope) * std::pow(10.0, sigma * rng.normal()));
    ys.push_back(g);
  }
  return ys;
}
const std::vector<double> kXs{8, 16, 32, 64, 128, 256};
}  // namespace

BOOST_AUTO_TEST_SUITE(fits)

BOOST_AUTO_TEST_CASE(recovers_a_known_exponent_inside_its_interval) {
  int covered = 0;
  for (std::uint64_t trial = 1; trial <= 20; ++trial) {
    const nm::PowerLawFit f =
        nm::fit_power_law(kXs, power_law(kXs, 3.0, -1.5, 0.1, 5, trial), trial, 1000);
    covered += f.slope_ci.contains(-1.5) ? 1 : 0;
    BOOST_TEST(std::abs(f.slope + 1.5) < 0.2);
    BOOST_TEST(std::abs(f.robust_slope + 1.5) < 0.25);
    BOOST_TEST(f.slope_ci.high - f.slope_ci.low < 0.4);
  }
  // A 95 % interval covers the truth in most of 20 trials (17 or more with probability > 0.9).
  BOOST_TEST(covered >= 16);
  // Without noise the fit is exact and the interval collapses.
  const nm::PowerLawFit exact = nm::fit_power_law(kXs, power_law(kXs, 2.0, 0.75, 0.0, 3, 1));
  BOOST_TEST(exact.slope == 0.75, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(exact.intercept == std::log10(2.0), boost::test_tools::tolerance(1e-12));
  BOOST_TEST(exact.slope_ci.high - exact.slope_ci.low < 1e-12);
}

BOOST_AUTO_TEST_CASE(more_seeds_narrow_the_interval) {
  const nm::PowerLawFit few = nm::fit_power_law(kXs, power_law(kXs, 1.0, -1.0, 0.3, 2, 7), 7, 1000);
  const nm::PowerLawFit many =
      nm::fit_power_law(kXs, power_law(kXs, 1.0, -1.0, 0.3, 32, 7), 7, 1000);
  BOOST_TEST(many.slope_ci.high - many.slope_ci.low < 0.6 * (few.slope_ci.high - few.slope_ci.low));
}

BOOST_AUTO_TEST_CASE(an_exponential_is_fitted_on_log_y_against_x_with_an_interval) {
  const std::vector<double> xs{4, 6, 8, 10};
  std::vector<std::vector<double>> ys;
  for (const double x : xs)
    ys.push_back(
        {std::pow(10.0, 0.1 * x), std::pow(10.0, 0.1 * x + 0.05), std::pow(10.0, 0.1 * x - 0.05)});
  const nm::ExponentialFit f = nm::fit_exponential(xs, ys);
  BOOST_TEST(f.slope == 0.1, boost::test_tools::tolerance(1e-12));
  BOOST_TEST(f.slope_ci.contains(0.1));
  BOOST_TEST(f.slope_ci.high - f.slope_ci.low < 0.05);
  BOOST_TEST(f.x_min == 4.0);
  BOOST_TEST(f.points == 4u);
  BOOST_CHECK_THROW((void)nm::fit_exponential({4, 4}, {{1.0}, {2.0}}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(one_point_per_x_fits_an_exact_power_law_to_its_exponent) {
  std::vector<double> xs;
  std::vector<double> ys;
  for (const double m : {100.0, 200.0, 400.0, 800.0}) {
    xs.push_back(m);
    ys.push_back(3.0 / (m * m));  // M^-2
  }
  const nm::PowerLawFit f = nm::fit_power_law_over_points(xs, ys, 1, 200);
  BOOST_TEST(f.slope == -2.0, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(f.slope_ci.low == -2.0, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(f.slope_ci.high == -2.0, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(f.points == 4u);
  // Off the line, the interval widens around the slope.
  ys[1] *= 3;
  const nm::PowerLawFit noisy = nm::fit_power_law_over_points(xs, ys, 1, 200);
  BOOST_TEST(noisy.slope_ci.low < noisy.slope);
  BOOST_TEST(noisy.slope < noisy.slope_ci.high);
  xs.resize(2);
  ys.resize(2);
  BOOST_CHECK_THROW((void)nm::fit_power_law_over_points(xs, ys), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(growth_is_classified_with_its_evidence) {
  BOOST_TEST(
      nm::to_text(nm::classify_growth(kXs, power_law(kXs, 0.01, 1.0, 0.1, 4, 3), "T").growth) ==
      "growing");
  BOOST_TEST(
      nm::to_text(nm::classify_growth(kXs, power_law(kXs, 0.01, 0.0, 0.1, 4, 3), "T").growth) ==
      "flat");
  BOOST_TEST(
      nm::to_text(nm::classify_growth(kXs, power_law(kXs, 0.01, -1.0, 0.1, 4, 3), "T").growth) ==
      "falling");
  // Two noisy points cannot tell flat from growing.
  const std::vector<double> two{8, 16};
  const nm::GrowthTest vague = nm::classify_growth(two, power_law(two, 0.01, 0.3, 0.5, 3, 5), "T");
  BOOST_TEST(nm::to_text(vague.growth) == "inconclusive");
  BOOST_TEST(vague.evidence.find("over T = 8..16") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(growth_is_one_question_flat_and_falling_are_one_answer) {
  const auto as_text = [](double low, double high) {
    return nm::to_text(nm::classify({low, high}, 0.25));
  };
  BOOST_TEST(as_text(0.3, 0.9) == "growing");
  BOOST_TEST(as_text(-0.1, 0.2) == "flat");
  BOOST_TEST(as_text(0.25, 0.25) == "flat");  // on the boundary
  BOOST_TEST(as_text(-2.0, -1.0) == "falling");
  // Across -0.25 only: decided, since flat and falling answer the same (until 2026-12-07 it was
  // inconclusive).
  BOOST_TEST(as_text(-0.30, 0.16) == "not growing (flat or falling)");
  BOOST_TEST(as_text(0.1, 0.4) == "inconclusive");
  BOOST_TEST(as_text(-0.4, 0.4) == "inconclusive");
  BOOST_TEST(as_text(std::nan(""), std::nan("")) == "inconclusive");
}

BOOST_AUTO_TEST_CASE(gap_between_configurations_in_decades) {
  infoflow::Rng rng(9);
  auto noisy = [&](double level) {
    std::vector<double> g;
    for (int s = 0; s < 4; ++s) g.push_back(level * std::pow(10.0, 0.1 * rng.normal()));
    return g;
  };
  const nm::Gap gap = nm::log_gap({noisy(1e-4), noisy(2e-4)}, {noisy(1e-2), noisy(3e-2)});
  BOOST_TEST(std::abs(gap.decades - std::log10(1e-2 / 2e-4)) < 0.2);
  BOOST_TEST(gap.ci.low > 1.3);
  BOOST_TEST(gap.ci.high < 2.1);
  const nm::Gap none = nm::log_gap({noisy(1e-3)}, {noisy(1e-3)});
  BOOST_TEST(none.ci.contains(0.0));
}

BOOST_AUTO_TEST_CASE(non_finite_measurements_are_dropped_and_too_little_data_refused) {
  const std::vector<double> xs{1, 2, 4};
  const nm::PowerLawFit f = nm::fit_power_law(xs, {{1.0, INFINITY}, {0.5, NAN}, {0.25, -1.0}});
  BOOST_TEST(f.slope == -1.0, boost::test_tools::tolerance(1e-12));
  BOOST_CHECK_THROW((void)nm::fit_power_law({2, 2}, {{1.0}, {2.0}}), std::invalid_argument);
  BOOST_CHECK_THROW((void)nm::fit_power_law({1, 2}, {{1.0}, {INFINITY}}), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(locates_a_transition_and_its_size) {
  // NMSE against heads h = 1..5: 1e-2 until h = 3, then 1e-4: the drop lies before level 3.
  infoflow::Rng rng(4);
  std::vector<std::vector<double>> levels;
  for (int h = 1; h <= 5; ++h) {
    std::vector<double> g;
    for (int s = 0; s < 4; ++s)
      g.push_back((h < 3 ? 1e-2 : 1e-4) * std::pow(10.0, 0.1 * rng.normal()));
    levels.push_back(g);
  }
  const nm::Transition t = nm::locate_transition(levels);
  BOOST_TEST(t.from == 1u);
  BOOST_TEST(t.at == 2u);
  BOOST_TEST(std::abs(t.decades - 2.0) < 0.25);
  BOOST_TEST(t.ci.low > 1.6);
  BOOST_TEST(t.ci.high < 2.4);
  // A level without data is skipped and indices stay those of the input: with level 1 empty,
  // the drop runs from level 0 to level 2 (the report once named the empty level as its start).
  levels[1] = {};
  const nm::Transition skipped = nm::locate_transition(levels);
  BOOST_TEST(skipped.from == 0u);
  BOOST_TEST(skipped.at == 2u);
  BOOST_CHECK_THROW((void)nm::locate_transition({{1.0}}), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
