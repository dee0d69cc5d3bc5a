// Convergence and checkpoints: the plateau test, training until the plateau, and a run stopped
// mid-way that resumes from its checkpoint bitwise as the uninterrupted run.
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "common/temp_dir.hpp"
#include "infoflow/core/error.hpp"
#include "infoflow/numeric/checkpoint.hpp"
#include "infoflow/numeric/train.hpp"

namespace nm = infoflow::numeric;
using infoflow::testing::TempDir;

namespace {

std::vector<nm::CurvePoint> curve(const std::vector<double>& nmse) {
  std::vector<nm::CurvePoint> out;
  for (std::size_t i = 0; i < nmse.size(); ++i)
    out.push_back({static_cast<nm::Index>(100 * (i + 1)), 1e-3, nmse[i], nmse[i]});
  return out;
}

struct Small {
  std::unique_ptr<nm::Task> task;
  nm::ModelConfig model;
  nm::TrainOptions options;
  Small() {
    nm::TaskOptions t;
    t.name = "intrinsic_dim";
    t.comparisons = 2;
    t.tokens = 6;
    task = nm::make_task(t);
    model.tokens = 6;
    model.token_dim = task->token_dim();
    model.heads = {2, 2};
    model.embedding = 8;
    options.steps = 300;
    options.batch = 16;
    options.eval_every = 50;
    options.validation_size = 64;
    options.threads = 1;
    options.checkpoint_every = 100;
  }
};

struct Stop : std::runtime_error {
  Stop() : std::runtime_error("stopped") {}
};

}  // namespace

BOOST_AUTO_TEST_SUITE(convergence_and_checkpoints)

BOOST_AUTO_TEST_CASE(the_plateau_test_looks_at_the_last_quarter_of_the_steps) {
  // Steps 100..800: the best up to step 600 is compared with the best at 800.
  BOOST_TEST(nm::plateaued(curve({1, 0.5, 0.2, 0.1, 0.1, 0.1, 0.1, 0.095}), 0.1));
  BOOST_TEST(!nm::plateaued(curve({1, 0.5, 0.2, 0.1, 0.1, 0.1, 0.1, 0.089}), 0.1));
  // Still falling: a tenth lower in the last quarter.
  BOOST_TEST(!nm::plateaued(curve({1, 0.5, 0.25, 0.12, 0.06, 0.03, 0.015, 0.008}), 0.1));
  // Never learnt (stuck at the mean predictor): a plateau too.
  BOOST_TEST(nm::plateaued(curve({1.0, 0.99, 1.0, 0.99}), 0.1));
  BOOST_TEST(!nm::plateaued(curve({0.5}), 0.1));  // nothing at or before 3/4 of the steps
  BOOST_TEST(!nm::plateaued({}, 0.1));
}

BOOST_AUTO_TEST_CASE(a_stopped_run_resumes_from_its_checkpoint_bitwise) {
  const TempDir temp;
  Small s;
  s.options.checkpoint = temp.dir() / "whole.ckpt";
  const nm::TrainResult whole = nm::train(s.model, *s.task, s.options);
  BOOST_TEST(whole.resumed_from == 0);

  s.options.checkpoint = temp.dir() / "stopped.ckpt";
  // Stopped at step 150, after the checkpoint of step 100 (as a kill would).
  BOOST_CHECK_THROW(nm::train(s.model, *s.task, s.options,
                              [](const nm::Progress& p) {
                                if (p.step >= 150) throw Stop();
                              }),
                    Stop);
  BOOST_TEST(nm::load_checkpoint(s.options.checkpoint).steps_done == 100);
  const nm::TrainResult resumed = nm::train(s.model, *s.task, s.options);
  BOOST_TEST(resumed.resumed_from == 100);
  BOOST_TEST(resumed.steps_done == whole.steps_done);
  BOOST_TEST_REQUIRE(resumed.curve.size() == whole.curve.size());
  for (std::size_t i = 0; i < whole.curve.size(); ++i) {
    BOOST_TEST(resumed.curve[i].validation_nmse == whole.curve[i].validation_nmse);
    BOOST_TEST(resumed.curve[i].train_nmse == whole.curve[i].train_nmse);
  }
  BOOST_TEST(resumed.best_validation_nmse == whole.best_validation_nmse);
  // The final states (parameters and optimiser moments) are the same bytes.
  const nm::Checkpoint a = nm::load_checkpoint(temp.dir() / "whole.ckpt");
  const nm::Checkpoint b = nm::load_checkpoint(s.options.checkpoint);
  BOOST_TEST(a.finished);
  BOOST_TEST(b.finished);
  BOOST_TEST(a.optimizer_steps == b.optimizer_steps);
  BOOST_TEST((a.parameters == b.parameters));
  BOOST_TEST((a.first_moment == b.first_moment));
  BOOST_TEST((a.second_moment == b.second_moment));
  // A finished checkpoint gives its result at once.
  const nm::TrainResult again = nm::train(s.model, *s.task, s.options);
  BOOST_TEST(again.resumed_from == whole.steps_done);
  BOOST_TEST(again.best_validation_nmse == whole.best_validation_nmse);
}

BOOST_AUTO_TEST_CASE(a_checkpoint_of_another_run_or_a_damaged_one_is_refused) {
  const TempDir temp;
  Small s;
  s.options.steps = 100;
  s.options.checkpoint = temp.dir() / "run.ckpt";
  (void)nm::train(s.model, *s.task, s.options);
  s.options.seed = 2;
  BOOST_CHECK_EXCEPTION(nm::train(s.model, *s.task, s.options), infoflow::InputError,
                        [](const infoflow::InputError& e) {
                          return std::string(e.what()).find("another configuration") !=
                                 std::string::npos;
                        });
  {
    std::fstream f(s.options.checkpoint, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(200);
    f.put('\x7f');
  }
  BOOST_CHECK_EXCEPTION(nm::load_checkpoint(s.options.checkpoint), infoflow::InputError,
                        [](const infoflow::InputError& e) {
                          return std::string(e.what()).find("corrupt") != std::string::npos;
                        });
  std::filesystem::resize_file(s.options.checkpoint, 40);
  BOOST_CHECK_THROW(nm::load_checkpoint(s.options.checkpoint), infoflow::InputError);
}

BOOST_AUTO_TEST_CASE(training_until_the_plateau_stops_there_within_the_budget) {
  Small s;
  s.options.steps = 200;
  s.options.max_steps = 4000;
  s.options.plateau_tolerance = 0.5;  // generous, so that this small run stops early
  const nm::TrainResult r = nm::train(s.model, *s.task, s.options);
  BOOST_TEST((r.status == nm::RunStatus::kConverged));
  BOOST_TEST(r.steps_done >= 200);
  BOOST_TEST(r.steps_done < 4000);
  BOOST_TEST(nm::plateaued(r.curve, 0.5));
  // Without --until-plateau the budget is the step count, whatever the curve says.
  s.options.max_steps = 0;
  s.options.plateau_tolerance = 0;  // nothing is a plateau
  const nm::TrainResult fixed = nm::train(s.model, *s.task, s.options);
  BOOST_TEST(fixed.steps_done == 200);
  BOOST_TEST((fixed.status == nm::RunStatus::kBudgetReached));
  s.options.max_steps = 100;  // below the step count
  BOOST_CHECK_THROW(nm::train(s.model, *s.task, s.options), infoflow::InputError);
}

BOOST_AUTO_TEST_SUITE_END()
