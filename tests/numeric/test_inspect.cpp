// Inside a trained network: the readout's attention, the first-layer probe, and reading the
// trained parameters back from a checkpoint.
#include <cmath>
#include <memory>

#include <boost/test/unit_test.hpp>

#include "common/temp_dir.hpp"
#include "infoflow/core/error.hpp"
#include "infoflow/numeric/inspect.hpp"
#include "infoflow/numeric/train.hpp"

namespace nm = infoflow::numeric;
using infoflow::testing::TempDir;

namespace {

std::unique_ptr<nm::Task> task_of(const std::string& name, nm::Index tokens) {
  nm::TaskOptions t;
  t.name = name;
  t.tokens = tokens;
  t.comparisons = 2;
  t.positions = 3;
  t.token_dim = 2;
  return nm::make_task(t);
}

nm::ModelConfig model_for(const nm::Task& task, std::vector<nm::Index> heads) {
  nm::ModelConfig m;
  m.tokens = task.tokens();
  m.token_dim = task.token_dim();
  m.heads = std::move(heads);
  m.embedding = 16;
  m.positional = task.recommended_positional();
  return m;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(inspection)

BOOST_AUTO_TEST_CASE(the_readout_attends_a_third_to_each_summed_position_once_trained) {
  // The seed's observation: one layer, one head, learned positions, target x(1) + x(2) + x(3).
  TempDir dir;
  const auto task = task_of("fixed_positions", 10);
  const nm::ModelConfig m = model_for(*task, {1});
  BOOST_TEST_REQUIRE((m.positional == nm::PositionalEncoding::kLearned));
  nm::TrainOptions o;
  o.steps = 2000;
  o.adam.learning_rate = 3e-3;
  o.threads = 1;
  o.checkpoint = dir.dir() / "run.ckpt";
  const nm::TrainResult r = nm::train(m, *task, o);
  BOOST_TEST(r.best_validation_nmse < 1e-2);
  const Eigen::MatrixXd w = nm::readout_attention(nm::model_from_checkpoint(m, o.checkpoint),
                                                  *task, 64, 7, 0, 0);
  BOOST_TEST_REQUIRE(w.rows() == 64);
  BOOST_TEST_REQUIRE(w.cols() == 10);  // the ten tokens: the readout is never a key
  for (nm::Index i = 0; i < w.rows(); ++i) {
    BOOST_TEST(std::abs(w.row(i).sum() - 1.0) < 1e-12);
    for (nm::Index j = 0; j < 3; ++j) BOOST_TEST(std::abs(w(i, j) - 1.0 / 3) < 0.05);
    for (nm::Index j = 3; j < 10; ++j) BOOST_TEST(w(i, j) < 0.03);
  }
  // Before training the weights are spread: nothing like a third on the first three.
  const Eigen::MatrixXd w0 =
      nm::readout_attention(nm::initial_model(m, o.seed), *task, 64, 7, 0, 0);
  BOOST_TEST(w0.col(0).mean() < 0.2);
}

BOOST_AUTO_TEST_CASE(a_checkpoint_gives_back_the_trained_model) {
  TempDir dir;
  const auto task = task_of("intrinsic_dim", 6);
  nm::ModelConfig m = model_for(*task, {2, 2});
  nm::TrainOptions o;
  o.steps = 20;
  o.batch = 8;
  o.validation_size = 16;
  o.threads = 1;
  o.precision = nm::Precision::kFloat64;
  o.checkpoint = dir.dir() / "run.ckpt";
  (void)nm::train(m, *task, o);
  const nm::Transformer<double> trained = nm::model_from_checkpoint(m, o.checkpoint);
  const nm::Transformer<double> initial = nm::initial_model(m, o.seed);
  // 20 AdamW steps moved every weight matrix; the layout is the same.
  BOOST_TEST(trained.parameters().size() == initial.parameters().size());
  double moved = 0;
  for (std::size_t i = 0; i < trained.parameters().size(); ++i)
    moved = std::max(moved, std::abs(trained.parameters()[i] - initial.parameters()[i]));
  BOOST_TEST(moved > 1e-3);
  // Another configuration does not fit the checkpoint.
  m.embedding = 12;
  BOOST_CHECK_THROW((void)nm::model_from_checkpoint(m, o.checkpoint), infoflow::InputError);
}

BOOST_AUTO_TEST_CASE(the_probe_needs_two_layers_and_scores_in_zero_one) {
  const auto task = task_of("intrinsic_dim", 6);
  const nm::ModelConfig one = model_for(*task, {2});
  BOOST_CHECK_THROW((void)nm::probe_first_layer(nm::initial_model(one, 1), *task, 64, 3),
                    infoflow::InputError);
  const nm::ModelConfig two = model_for(*task, {2, 1});
  const auto scores = nm::probe_first_layer(nm::initial_model(two, 1), *task, 256, 3);
  BOOST_TEST_REQUIRE(scores.size() == 2u);  // one per head of the first layer
  for (const nm::ProbeScore& s : scores) {
    // A least-squares fit with a bias, scored on held-out sequences: NMSE near [0, 1] and
    // finite; the same seed gives the same numbers.
    BOOST_TEST(s.to_largest > 0.0);
    BOOST_TEST(s.to_largest < 1.2);
    BOOST_TEST(s.to_second > 0.0);
    BOOST_TEST(s.to_second < 1.2);
  }
  const auto again = nm::probe_first_layer(nm::initial_model(two, 1), *task, 256, 3);
  BOOST_TEST(again[1].to_second == scores[1].to_second);
  BOOST_CHECK_THROW((void)nm::readout_attention(nm::initial_model(two, 1), *task, 8, 3, 2, 0),
                    infoflow::InputError);
}

BOOST_AUTO_TEST_SUITE_END()
