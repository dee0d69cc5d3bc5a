// The training data of the built-in tasks, bit for bit. tests/data/task_values.txt holds, per
// task and options, a hash of the inputs and the targets (hexadecimal, exact) of 40 sequences as
// the hand-written task classes computed them before the tasks became formulas; finished and
// running experiments are keyed on these values, so they must never change.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include <boost/test/unit_test.hpp>

#include "infoflow/numeric/build.hpp"
#include "infoflow/numeric/tasks.hpp"

namespace nm = infoflow::numeric;

namespace {

constexpr nm::Index kSequences = 40;
constexpr std::uint64_t kSampleSeed = 7;

/// FNV-1a over the bytes of the inputs.
std::uint64_t hash_of(const Eigen::MatrixXd& x) {
  std::uint64_t h = 1469598103934665603ULL;
  const auto* bytes = reinterpret_cast<const unsigned char*>(x.data());
  for (std::size_t i = 0; i < static_cast<std::size_t>(x.size()) * sizeof(double); ++i) {
    h ^= bytes[i];
    h *= 1099511628211ULL;
  }
  return h;
}

struct Drawn {
  std::uint64_t inputs = 0;
  Eigen::VectorXd targets;
};

Drawn draw(const nm::TaskOptions& o) {
  const auto task = nm::make_task(o);
  Eigen::MatrixXd x(task->token_dim(), task->tokens() * kSequences);
  Drawn out;
  out.targets.resize(kSequences);
  nm::draw_samples(*task, kSampleSeed, 0, kSequences, x, out.targets);
  out.inputs = hash_of(x);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(task_values)

// Each line: name T d D k T0 norm task_seed inputs_hash y_1 ... y_40.
BOOST_AUTO_TEST_CASE(builtin_tasks_draw_the_recorded_data_bit_for_bit) {
  std::ifstream in(INFOFLOW_TEST_DATA_DIR "/task_values.txt");
  BOOST_TEST_REQUIRE(in.good());
  // The bits hold in the default numeric build; another one (Debug, ASan, -march) fuses floating
  // operations differently (docs/training.md): there the targets agree to 1e-12 relative and the
  // inputs' hash cannot be compared.
  const bool bitwise = nm::default_numeric_build();
  if (!bitwise) BOOST_TEST_MESSAGE("not the default numeric build: targets to 1e-12 relative");
  int cases = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    nm::TaskOptions o;
    std::string norm;
    std::string hash;
    fields >> o.name >> o.tokens >> o.token_dim >> o.comparisons >> o.rank >> o.positions >> norm >>
        o.seed >> hash;
    o.norm = norm == "plain" ? nm::NormKind::kPlain : nm::NormKind::kSquared;
    const Drawn d = draw(o);
    BOOST_TEST_INFO(line.substr(0, line.find(" 0x")));
    if (bitwise) BOOST_TEST(d.inputs == std::stoull(hash, nullptr, 16));
    int mismatches = 0;
    for (nm::Index i = 0; i < kSequences; ++i) {
      std::string text;
      fields >> text;
      const double recorded = std::strtod(text.c_str(), nullptr);
      const bool same =
          bitwise ? std::memcmp(&recorded, &d.targets(i), sizeof(double)) == 0
                  : std::abs(recorded - d.targets(i)) <= 1e-12 * std::max(1.0, std::abs(recorded));
      if (!same) ++mismatches;
    }
    BOOST_TEST(mismatches == 0);
    ++cases;
  }
  BOOST_TEST(cases >= 40);
}

BOOST_AUTO_TEST_SUITE_END()
