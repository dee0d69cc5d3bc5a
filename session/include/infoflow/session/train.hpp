#ifndef INFOFLOW_SESSION_TRAIN_HPP_
#define INFOFLOW_SESSION_TRAIN_HPP_

/// \file
/// train: one run set up from a built-in task, a formula or a target file and the run's
/// settings (numeric/run_settings.hpp), checked before any work starts; and its result as JSON.

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "infoflow/numeric/run_settings.hpp"
#include "infoflow/numeric/tasks.hpp"
#include "infoflow/numeric/train.hpp"

namespace infoflow::session {

struct TrainRequest {
  std::string task;               ///< a built-in task, or
  std::string formula;            ///< a formula, or
  std::string target_file;        ///< a target file,
  std::string target_name;        ///< with the target of that name
  std::vector<std::string> sets;  ///< a formula's integers, NAME=VALUE
  numeric::RunSettings settings;  ///< task.name is ignored: `task` names it
  bool tokens_given = false;      ///< T was given (else a formula's file may set it)
};

/// What a run needs, checked: the task built, the model fitted to it.
struct PreparedRun {
  std::unique_ptr<numeric::Task> task;
  numeric::RunSettings settings;  ///< model.tokens, token_dim and positional resolved
};

/// Throws InputError for anything train would refuse, before any work.
PreparedRun prepare_training(const TrainRequest& request);

/// The JSON of `train --format json`: task, model, training (the settings as the run used
/// them, under the vocabulary's names), parameters, result, timing and curve.
nlohmann::json training_json(const PreparedRun& run, const numeric::TrainResult& result);

/// The one-line summary `train` prints.
std::string training_summary(const PreparedRun& run, const numeric::TrainResult& result);

}  // namespace infoflow::session

#endif  // INFOFLOW_SESSION_TRAIN_HPP_
