// Convergence and checkpoints: the plateau test, training until the plateau, and a run stopped
// mid-way that resumes from its checkpoint bitwise as the uninterrupted run.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numbers>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "infoflow/core/error.hpp"
#include "infoflow/numeric/checkpoint.hpp"
#include "infoflow/numeric/train.hpp"

#include "common/temp_dir.hpp"

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

BOOST_AUTO_TEST_CASE(the_cool_down_starts_at_the_first_plateau_from_the_minimum_steps_or_the_cap) {
  nm::TrainOptions o;
  o.steps = 300;
  o.max_steps = 1000;  // the cap: step 800
  // Flat from step 100 on, but the test counts only from step 300: the cool-down starts there
  // and lasts a quarter of the 300 steps.
  const std::vector<nm::CurvePoint> flat = curve({1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5});
  const nm::Cooldown c = nm::cooldown_of(flat, o);
  BOOST_TEST(c.start == 300);
  BOOST_TEST(c.end == 375);
  BOOST_TEST(c.on_plateau);
  // Halving at every evaluation never plateaus: the cap starts it, 800 + 200 = the budget.
  std::vector<double> halving;
  for (int i = 0; i < 10; ++i) halving.push_back(std::ldexp(1.0, -i));
  const nm::Cooldown capped = nm::cooldown_of(curve(halving), o);
  BOOST_TEST(capped.start == 800);
  BOOST_TEST(capped.end == 1000);
  BOOST_TEST(!capped.on_plateau);
  // Not yet decided before step 800, and never for a fixed budget.
  halving.resize(7);
  BOOST_TEST(nm::cooldown_of(curve(halving), o).start == 0);
  o.max_steps = 0;
  BOOST_TEST(nm::cooldown_of(flat, o).start == 0);
  // A quarter rounds up: evaluations every 30 steps, flat from the start, minimum 90 steps.
  std::vector<nm::CurvePoint> every30;
  for (nm::Index i = 1; i <= 6; ++i) every30.push_back({30 * i, 1e-3, 0.5, 0.5});
  o.steps = 90;
  o.max_steps = 1000;
  const nm::Cooldown rounded = nm::cooldown_of(every30, o);
  BOOST_TEST(rounded.start == 90);
  BOOST_TEST(rounded.end == 113);  // 90 + ceil(22.5)
}

BOOST_AUTO_TEST_CASE(training_until_the_plateau_cools_down_there_within_the_budget) {
  Small s;
  s.options.steps = 200;
  s.options.max_steps = 4000;
  s.options.warmup = 20;
  s.options.plateau_tolerance = 0.5;  // generous, so that this small run stops early
  const nm::TrainResult r = nm::train(s.model, *s.task, s.options);
  BOOST_TEST((r.status == nm::RunStatus::kConverged));
  BOOST_TEST(r.cooldown.on_plateau);
  BOOST_TEST(r.cooldown.start >= 200);
  BOOST_TEST(r.cooldown.start <= s.options.cooldown_cap());
  BOOST_TEST(r.steps_done == r.cooldown.start + (r.cooldown.start + 3) / 4);
  BOOST_TEST(r.steps_done == r.cooldown.end);
  // The learning rate held its peak up to the cool-down and ends at the floor (0).
  std::size_t before = 0;
  for (const nm::CurvePoint& p : r.curve) {
    if (p.step > r.cooldown.start) continue;
    ++before;
    BOOST_TEST(p.learning_rate == s.options.adam.learning_rate);
  }
  BOOST_TEST(nm::plateaued(std::span(r.curve).first(before), 0.5));
  BOOST_TEST(r.curve.back().step == r.steps_done);
  BOOST_TEST(r.curve.back().learning_rate == 0.0);
  // Without --until-plateau the budget is the step count, whatever the curve says.
  s.options.max_steps = 0;
  s.options.plateau_tolerance = 0;  // nothing is a plateau
  const nm::TrainResult fixed = nm::train(s.model, *s.task, s.options);
  BOOST_TEST(fixed.steps_done == 200);
  BOOST_TEST(fixed.cooldown.start == 0);
  BOOST_TEST((fixed.status == nm::RunStatus::kBudgetReached));
  s.options.max_steps = 240;  // no room for a cool-down after 200 steps: at least 250
  BOOST_CHECK_EXCEPTION(nm::train(s.model, *s.task, s.options), infoflow::InputError,
                        [](const infoflow::InputError& e) {
                          return std::string(e.what()).find("at least 250 (got 240)") !=
                                 std::string::npos;
                        });
  s.options.max_steps = std::numeric_limits<nm::Index>::max() / 2;  // no overflow, a clear refusal
  BOOST_CHECK_THROW(nm::train(s.model, *s.task, s.options), infoflow::InputError);
}

BOOST_AUTO_TEST_CASE(a_run_without_a_plateau_cools_down_at_the_cap_and_is_not_converged) {
  Small s;
  s.options.steps = 100;
  s.options.max_steps = 510;        // the cap: step 408, off the evaluations' grid of 50
  s.options.plateau_tolerance = 0;  // nothing is a plateau
  const nm::TrainResult r = nm::train(s.model, *s.task, s.options);
  BOOST_TEST(r.cooldown.start == 408);
  BOOST_TEST(!r.cooldown.on_plateau);
  BOOST_TEST(r.steps_done == 510);
  BOOST_TEST((r.status == nm::RunStatus::kBudgetReached));
  // The peak up to the cap, then the cosine over steps 408..509 (0-based): the evaluation
  // after step 450 saw step 449, 41 of its 101 intervals in: 0.646 of the peak. 0 at the end.
  const double peak = s.options.adam.learning_rate;
  int checked = 0;
  for (const nm::CurvePoint& p : r.curve) {
    if (p.step == 400 || p.step == 408) {
      BOOST_TEST(p.learning_rate == peak);
      ++checked;
    }
    if (p.step == 450) {
      BOOST_TEST(p.learning_rate == peak * 0.5 * (1 + std::cos(std::numbers::pi * 41 / 101)),
                 boost::test_tools::tolerance(1e-12));
      ++checked;
    }
  }
  BOOST_TEST(checked == 3);
  BOOST_TEST(r.curve.back().learning_rate == 0.0);
}

BOOST_AUTO_TEST_CASE(a_run_stopped_in_a_cool_down_started_by_a_plateau_resumes_bitwise) {
  const TempDir temp;
  Small s;
  s.options.steps = 200;
  s.options.max_steps = 4000;
  s.options.plateau_tolerance = 0.5;
  s.options.checkpoint_every = 10;
  s.options.checkpoint = temp.dir() / "whole.ckpt";
  const nm::TrainResult whole = nm::train(s.model, *s.task, s.options);
  BOOST_TEST_REQUIRE(whole.cooldown.on_plateau);
  const nm::Index middle = (whole.cooldown.start + whole.cooldown.end) / 2;
  s.options.checkpoint = temp.dir() / "stopped.ckpt";
  BOOST_CHECK_THROW(nm::train(s.model, *s.task, s.options,
                              [middle](const nm::Progress& p) {
                                if (p.step >= middle + 10) throw Stop();
                              }),
                    Stop);
  const nm::TrainResult resumed = nm::train(s.model, *s.task, s.options);
  BOOST_TEST(resumed.resumed_from > whole.cooldown.start);  // inside the cool-down
  BOOST_TEST(resumed.resumed_from < whole.cooldown.end);
  BOOST_TEST(resumed.cooldown.start == whole.cooldown.start);
  BOOST_TEST(resumed.steps_done == whole.steps_done);
  BOOST_TEST((resumed.status == nm::RunStatus::kConverged));
  const nm::Checkpoint a = nm::load_checkpoint(temp.dir() / "whole.ckpt");
  const nm::Checkpoint b = nm::load_checkpoint(s.options.checkpoint);
  BOOST_TEST((a.parameters == b.parameters));
  BOOST_TEST((a.first_moment == b.first_moment));
}

BOOST_AUTO_TEST_CASE(a_run_stopped_in_its_cool_down_resumes_bitwise) {
  const TempDir temp;
  Small s;
  s.options.steps = 100;
  s.options.max_steps = 500;
  s.options.plateau_tolerance = 0;  // the cool-down runs over steps 401..500
  s.options.checkpoint_every = 50;
  s.options.checkpoint = temp.dir() / "whole.ckpt";
  const nm::TrainResult whole = nm::train(s.model, *s.task, s.options);
  s.options.checkpoint = temp.dir() / "stopped.ckpt";
  BOOST_CHECK_THROW(nm::train(s.model, *s.task, s.options,
                              [](const nm::Progress& p) {
                                if (p.step >= 470) throw Stop();
                              }),
                    Stop);
  // Stopped half way through the cool-down.
  BOOST_TEST(nm::load_checkpoint(s.options.checkpoint).steps_done == 450);
  const nm::TrainResult resumed = nm::train(s.model, *s.task, s.options);
  BOOST_TEST(resumed.resumed_from == 450);
  BOOST_TEST(resumed.cooldown.start == whole.cooldown.start);
  BOOST_TEST_REQUIRE(resumed.curve.size() == whole.curve.size());
  for (std::size_t i = 0; i < whole.curve.size(); ++i)
    BOOST_TEST(resumed.curve[i].validation_nmse == whole.curve[i].validation_nmse);
  const nm::Checkpoint a = nm::load_checkpoint(temp.dir() / "whole.ckpt");
  const nm::Checkpoint b = nm::load_checkpoint(s.options.checkpoint);
  BOOST_TEST((a.parameters == b.parameters));
  BOOST_TEST((a.second_moment == b.second_moment));
}

BOOST_AUTO_TEST_SUITE_END()
