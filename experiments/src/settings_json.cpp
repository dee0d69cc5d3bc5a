#include "infoflow/experiments/settings_json.hpp"

#include <variant>

namespace infoflow::experiments {

namespace {

nlohmann::json json_of(const numeric::SettingValue& value) {
  return std::visit([](const auto& v) { return nlohmann::json(v); }, value);
}

}  // namespace

nlohmann::json settings_json(const numeric::RunSettings& settings, numeric::Section section,
                             SettingsForm form) {
  static const numeric::RunSettings kDefaults;
  nlohmann::json out = nlohmann::json::object();
  for (const numeric::Setting& s : numeric::run_settings()) {
    if (s.section != section) continue;
    const numeric::SettingValue value = s.get(settings);
    if (form == SettingsForm::kRunKey) {
      if (s.run_key == numeric::KeyPart::kNever) continue;
      if (s.run_key == numeric::KeyPart::kUnlessDefault && value == s.get(kDefaults)) continue;
    }
    out[std::string(s.name)] = json_of(value);
  }
  return out;
}

}  // namespace infoflow::experiments
