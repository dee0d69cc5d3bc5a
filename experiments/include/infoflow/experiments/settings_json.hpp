#ifndef INFOFLOW_EXPERIMENTS_SETTINGS_JSON_HPP_
#define INFOFLOW_EXPERIMENTS_SETTINGS_JSON_HPP_

/// \file
/// A run's settings as JSON, a section at a time, under the vocabulary's names
/// (numeric/run_settings.hpp): the run key's form and the full form of `train --format json`
/// are both made here, so that they cannot name a setting differently.

#include <nlohmann/json.hpp>

#include "infoflow/numeric/run_settings.hpp"

namespace infoflow::experiments {

enum class SettingsForm {
  kRunKey,  ///< the keys that make a run's identity (KeyPart), bit for bit as ever
  kAll,     ///< every key of the section
};

nlohmann::json settings_json(const numeric::RunSettings& settings, numeric::Section section,
                             SettingsForm form);

}  // namespace infoflow::experiments

#endif  // INFOFLOW_EXPERIMENTS_SETTINGS_JSON_HPP_
