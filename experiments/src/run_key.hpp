#ifndef INFOFLOW_EXPERIMENTS_RUN_KEY_HPP_
#define INFOFLOW_EXPERIMENTS_RUN_KEY_HPP_

// A run's identity: its configuration as JSON (stored in its record) and the key hashed from
// it. Both must stay bit for bit what they are: the shipped results are keyed on them.

#include <string>

#include <nlohmann/json.hpp>

#include "infoflow/experiments/spec.hpp"

namespace infoflow::experiments {

/// What makes a run's task: runs with the same one differ only in their model or training.
nlohmann::json task_json(const RunConfig& r);

/// The whole configuration: task, model and training.
nlohmann::json config_json(const RunConfig& r);

/// The fnv1a hash of config_json, the numeric code version and the build tag, in hex.
std::string run_key(const RunConfig& r);

}  // namespace infoflow::experiments

#endif  // INFOFLOW_EXPERIMENTS_RUN_KEY_HPP_
