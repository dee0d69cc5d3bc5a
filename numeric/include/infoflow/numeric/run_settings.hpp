#ifndef INFOFLOW_NUMERIC_RUN_SETTINGS_HPP_
#define INFOFLOW_NUMERIC_RUN_SETTINGS_HPP_

/// \file
/// The vocabulary of a training run: one table of its keys, read by every front end. The
/// `train` command makes its options from it (`--val-size` for val_size), the Python module's
/// train() its keywords, an experiment's profiles their keys, and the JSON of a run (its key,
/// `train --format json`) its names. A key's default is what RunSettings{} holds; its check is
/// its setter, so a bad value gets the same message from every front end.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "infoflow/numeric/config.hpp"
#include "infoflow/numeric/tasks.hpp"
#include "infoflow/numeric/train.hpp"

namespace infoflow::numeric {

/// What a run is made of, as its keys set it.
struct RunSettings {
  TaskOptions task;
  ModelConfig model;
  TrainOptions training;
  /// As asked; unset: the task's recommendation, which model.positional then holds.
  std::optional<PositionalEncoding> positional;
};

enum class SettingType { kInteger, kSeed, kNumber, kText, kFlag, kHeads };
std::string_view to_string(SettingType t);  ///< integer | seed | number | text | flag | heads
enum class Section { kTask, kModel, kTraining };
std::string_view to_string(Section s);  ///< task | model | training

/// Where a key stands in a run's identity (experiments' run key).
enum class KeyPart { kNever, kAlways, kUnlessDefault };

/// A value as a front end read it, before the key's check. Integers are Index; a seed may also
/// come as std::uint64_t (from text, where it can exceed Index).
using SettingValue =
    std::variant<Index, std::uint64_t, double, std::string, bool, std::vector<Index>>;

struct Setting {
  std::string_view name;  ///< TOML key, Python keyword and JSON name ('_' is '-' as an option)
  SettingType type;
  Section section;
  std::string_view help;
  /// The name `train --format json` used before it took this one: still read, never written.
  std::string_view old_name;
  bool in_spec;        ///< a key of an experiment's profiles
  KeyPart run_key;     ///< part of a run's identity
  bool shows_default;  ///< false where the default is the task's (its help says so)
  /// Checks the value and stores it; throws InputError (the message names no place: each
  /// front end adds its own, an option, a keyword or a file position).
  void (*set)(RunSettings& settings, const SettingValue& value);
  SettingValue (*get)(const RunSettings& settings);

  /// "--val-size"
  [[nodiscard]] std::string option() const;
};

/// Every key, in the order of the command's help: the task, the model, the training.
const std::vector<Setting>& run_settings();

/// The key of that name or old name; nullptr if there is none.
const Setting* find_setting(std::string_view name);

/// A value written as text (an option's argument) read as the key's type; throws InputError.
SettingValue parse_setting(const Setting& setting, std::string_view text);

/// A value as the command line writes it ("2,2" for heads).
std::string setting_text(const SettingValue& value);

}  // namespace infoflow::numeric

#endif  // INFOFLOW_NUMERIC_RUN_SETTINGS_HPP_
