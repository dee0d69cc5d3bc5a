// One architecture type (core/architecture.hpp): a run's model is the shape the engine plans
// on, checked and printed once, so a prediction sees exactly what training builds.
#include <string>
#include <utility>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "infoflow/core/error.hpp"
#include "infoflow/experiments/spec.hpp"
#include "infoflow/theorems/catalogue.hpp"

#include "common/input_error.hpp"
#include "prediction.hpp"

namespace ex = infoflow::experiments;
namespace th = infoflow::theorems;
using infoflow::core::PositionalEncoding;

namespace {
ex::RunConfig run_of(const std::string& formula, std::vector<long> heads, PositionalEncoding pe) {
  ex::RunConfig run;
  run.experiment = "shape";
  run.formula = formula;
  run.task.tokens = 8;
  run.task.token_dim = 4;
  run.model.tokens = 8;
  run.model.token_dim = 4;
  run.model.embedding = 16;
  run.model.heads = std::move(heads);
  run.model.positional = pe;
  return run;
}

std::string message_of(const infoflow::numeric::ModelConfig& m) {
  return infoflow::testing::input_error_of([&] { m.validate(); });
}
}  // namespace

BOOST_AUTO_TEST_SUITE(prediction)

BOOST_AUTO_TEST_CASE(the_engine_plans_on_the_runs_own_shape) {
  const th::Catalogue catalogue = th::Catalogue::load_directory(INFOFLOW_CATALOGUE_DIR);
  th::Engine engine(catalogue);
  // Theorem 1's depth separation: one layer is exponential in T, two are efficient.
  const std::string pair = "min(s != t) dot(x[s], x[t])";
  BOOST_TEST(
      th::to_text(ex::predict(run_of(pair, {1}, PositionalEncoding::kNone), engine).verdict) ==
      "exponential in T");
  const th::Plan two = ex::predict(run_of(pair, {1, 1}, PositionalEncoding::kNone), engine);
  BOOST_TEST(th::to_text(two.verdict) == "efficient");
  BOOST_TEST(two.architecture.text() == "L=2 h=(1,1) E=16 d=4 n=E/h pe=off");
  // A fixed position is found only with a positional encoding, learned or sinusoidal.
  const std::string fixed = "dot(a, x[2])";
  BOOST_TEST(
      th::to_text(ex::predict(run_of(fixed, {1}, PositionalEncoding::kNone), engine).verdict) ==
      "not computable");
  for (const PositionalEncoding pe :
       {PositionalEncoding::kLearned, PositionalEncoding::kSinusoidal}) {
    const th::Plan p = ex::predict(run_of(fixed, {1}, pe), engine);
    BOOST_TEST(th::to_text(p.verdict) == "efficient");
    BOOST_TEST(p.architecture.text() == "L=1 h=(1) E=16 d=4 n=E/h pe=on");
  }
}

BOOST_AUTO_TEST_CASE(a_model_checks_its_shape_and_its_own_sizes) {
  infoflow::numeric::ModelConfig m;
  BOOST_TEST(m.heads_text() == "(2,2)");  // train's default, not the engine's (1,1)
  m.heads = {3};
  BOOST_TEST(message_of(m) ==
             "layer 1: 3 heads do not divide E = 16 (set the head dimension n to fix it)");
  m.head_dim = 4;  // n given: any head count fits
  BOOST_TEST(message_of(m).empty());
  BOOST_TEST(m.head_dim_of(0) == 4);
  m.ffn_width = 0;
  BOOST_TEST(message_of(m) == "the FFN width must be between 1 and 65536 (got 0)");
  m.ffn_width = 64;
  m.tokens = 0;
  BOOST_TEST(message_of(m) == "T must be between 1 and 16384 (got 0)");
}

BOOST_AUTO_TEST_SUITE_END()
