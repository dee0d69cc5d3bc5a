// bench_task_step: the time of one training step on a built-in task or on a formula, data
// included, on one thread (heads 2,2, E = 16, batch 64: issue 12's setting). The target's cost
// is what differs between the two; bench/task_step.sh runs both side by side and prints ratios.
//
// Usage: bench_task_step (--task NAME | --formula TEXT) T [steps [repeats [d]]]
// Prints {"ms_per_step": best of the repeats, "ms_per_batch": drawing one batch's data alone,
// best of 50}: on a loaded machine the second, where the two differ, is the steadier measure.

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>

#include <fmt/format.h>

#include "infoflow/numeric.hpp"

namespace nm = infoflow::numeric;
namespace tg = infoflow::targets;

int main(int argc, char** argv) {
  if (argc < 4 || (std::string(argv[1]) != "--task" && std::string(argv[1]) != "--formula")) {
    std::cerr << "usage: bench_task_step (--task NAME | --formula TEXT) T [steps [repeats]]\n";
    return 2;
  }
  const std::string kind = argv[1];
  const nm::Index tokens = std::atol(argv[3]);
  const nm::Index steps = argc > 4 ? std::atol(argv[4]) : 20;
  const int repeats = argc > 5 ? std::atoi(argv[5]) : 3;
  nm::TaskOptions o;
  o.tokens = tokens;
  std::unique_ptr<nm::Task> task;
  if (kind == "--task") {
    o.name = argv[2];
    task = nm::make_task(o);
  } else {  // the built-in tasks' integers and d, so that both compute the same target
    task = nm::make_formula_task(
        "formula",
        tg::Evaluator(tg::Formula::parse(argv[2]),
                      {{"T", tokens}, {"D", o.comparisons}, {"k", o.rank}, {"T0", o.positions}},
                      argc > 6 ? std::atol(argv[6]) : 4, o.seed));
  }
  nm::ModelConfig c;
  c.tokens = task->tokens();
  c.token_dim = task->token_dim();
  c.embedding = 16;
  c.heads = {2, 2};
  c.positional = task->recommended_positional();
  nm::TrainOptions t;
  t.batch = 64;
  t.steps = steps;
  t.eval_every = steps;
  t.validation_size = 64;
  t.threads = 1;
  t.seed = 1;
  double best = 1e30;
  for (int r = 0; r < repeats; ++r)
    best = std::min(best, nm::train(c, *task, t).seconds_per_step());
  Eigen::MatrixXd x(task->token_dim(), task->tokens() * t.batch);
  Eigen::VectorXd y(t.batch);
  double batch = 1e30;
  for (int r = 0; r < 50; ++r) {
    const auto start = std::chrono::steady_clock::now();
    nm::draw_samples(*task, static_cast<std::uint64_t>(r), 0, t.batch, x, y);
    batch = std::min(
        batch, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::cout << fmt::format("{{\"ms_per_step\": {:.3f}, \"ms_per_batch\": {:.4f}}}\n", 1e3 * best,
                           1e3 * batch);
  return 0;
}
