// A formula's values, bit for bit. tests/data/formula_values.txt holds, per formula, its
// integers and d, the values on 30 sequences of N(0, 1) tokens as the tree-walking evaluator
// computed them before formulas were compiled: the shipped formula experiments (head_capacity,
// engine_*) are keyed on these values. The formulas cover every compiled shape, with and
// without the hand-written tasks' options, and shapes left to the general path.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include <boost/test/unit_test.hpp>

#include "infoflow/core/random.hpp"
#include "infoflow/numeric/build.hpp"
#include "infoflow/targets/evaluator.hpp"

namespace tg = infoflow::targets;

namespace {

constexpr long kSequences = 30;

/// The sequences the values were recorded on: d x (kSequences * T), seed 5.
Eigen::MatrixXd sequences(long d, long t) {
  infoflow::Rng rng(5);
  Eigen::MatrixXd x(d, kSequences * t);
  for (long j = 0; j < x.cols(); ++j)
    for (long i = 0; i < d; ++i) x(i, j) = rng.normal();
  return x;
}

/// "D=3 T=16 d=4" -> bindings and d.
std::pair<tg::Bindings, long> settings(const std::string& text) {
  std::istringstream in(text);
  tg::Bindings b;
  long d = 4;
  for (std::string item; in >> item;) {
    const std::size_t eq = item.find('=');
    const long v = std::stol(item.substr(eq + 1));
    if (item.substr(0, eq) == "d")
      d = v;
    else
      b[item.substr(0, eq)] = v;
  }
  return {b, d};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(formula_values)

// Each line: formula | settings | value_1 ... value_30 (hexadecimal).
BOOST_AUTO_TEST_CASE(formulas_give_the_recorded_values_bit_for_bit) {
  std::ifstream in(INFOFLOW_TEST_DATA_DIR "/formula_values.txt");
  BOOST_TEST_REQUIRE(in.good());
  // The bits hold in the default numeric build; another one (Debug, ASan, -march) fuses floating
  // operations differently (docs/training.md): there, 1e-12 relative.
  const bool bitwise = infoflow::numeric::default_numeric_build();
  if (!bitwise) BOOST_TEST_MESSAGE("not the default numeric build: values to 1e-12 relative");
  const auto same = [bitwise](double want, double got) {
    return bitwise ? std::memcmp(&want, &got, sizeof want) == 0
                   : std::abs(want - got) <= 1e-12 * std::max(1.0, std::abs(want));
  };
  int cases = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::size_t bar1 = line.find('|');
    const std::size_t bar2 = line.find('|', bar1 + 1);
    const std::string text = line.substr(0, bar1 - 1);
    const auto [bindings, d] = settings(line.substr(bar1 + 1, bar2 - bar1 - 1));
    const long t = bindings.at("T");
    const tg::Evaluator f(tg::Formula::parse(text), bindings, d, 3);
    const Eigen::MatrixXd x = sequences(d, t);
    Eigen::VectorXd batch(kSequences);
    f(x, batch);
    std::istringstream recorded(line.substr(bar2 + 1));
    int one_by_one = 0;
    int batched = 0;
    for (long i = 0; i < kSequences; ++i) {
      std::string word;
      recorded >> word;
      const double want = std::strtod(word.c_str(), nullptr);
      const double got = f(x.middleCols(i * t, t));
      if (!same(want, got)) ++one_by_one;
      if (!same(want, batch(i))) ++batched;
    }
    BOOST_TEST_INFO(line.substr(0, bar2));
    BOOST_TEST(one_by_one == 0);
    BOOST_TEST(batched == 0);
    ++cases;
  }
  BOOST_TEST(cases >= 40);
}

BOOST_AUTO_TEST_SUITE_END()
