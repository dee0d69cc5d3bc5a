#include "infoflow/numeric/run_settings.hpp"

#include <charconv>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "infoflow/core/error.hpp"
#include "infoflow/core/limits.hpp"
#include "infoflow/targets/target_file.hpp"

namespace infoflow::numeric {

namespace {

Index integer(const SettingValue& v) {
  if (const Index* i = std::get_if<Index>(&v)) return *i;
  throw InputError("expected an integer");
}

std::uint64_t seed(const SettingValue& v) {
  if (const std::uint64_t* u = std::get_if<std::uint64_t>(&v)) return *u;
  const Index i = integer(v);
  if (i < 0) throw InputError("a seed must be zero or positive (got " + std::to_string(i) + ")");
  return static_cast<std::uint64_t>(i);
}

double number(const SettingValue& v) {
  if (const double* d = std::get_if<double>(&v)) return *d;
  if (const Index* i = std::get_if<Index>(&v)) return static_cast<double>(*i);
  throw InputError("expected a number");
}

const std::string& text(const SettingValue& v) {
  if (const std::string* s = std::get_if<std::string>(&v)) return *s;
  throw InputError("expected a string");
}

bool flag(const SettingValue& v) {
  if (const bool* b = std::get_if<bool>(&v)) return *b;
  throw InputError("expected true or false");
}

const std::vector<Index>& heads(const SettingValue& v) {
  if (const auto* h = std::get_if<std::vector<Index>>(&v)) {
    if (h->empty()) throw InputError("at least one layer is needed");
    for (const Index n : *h) {
      if (n < 1)
        throw InputError("heads per layer must be positive (got " + std::to_string(n) + ")");
    }
    return *h;
  }
  throw InputError("expected heads per layer, e.g. 2,2");
}

NormKind parse_norm(const std::string& t) {
  if (t == "squared") return NormKind::kSquared;
  if (t == "plain") return NormKind::kPlain;
  throw InputError("norm must be squared or plain (got '" + t + "')");
}

using T = SettingType;
using S = Section;

// Captureless lambdas: each key's setter (with its check) and getter, beside its name.
const std::vector<Setting> kSettings{
    // The task (built-in tasks; a formula's integers come by --set).
    {"T", T::kInteger, S::kTask, "number of input tokens", "", true, KeyPart::kAlways, true,
     [](RunSettings& s, const SettingValue& v) { s.task.tokens = integer(v); },
     [](const RunSettings& s) -> SettingValue { return s.task.tokens; }},
    {"d", T::kInteger, S::kTask, "token dimension (default: the task's)", "", true,
     KeyPart::kAlways, false,
     [](RunSettings& s, const SettingValue& v) {
       const Index d = integer(v);
       if (d < 1 || d > limits::kTokenDim)
         throw InputError(fmt::format("d must be between 1 and {} (got {})", limits::kTokenDim, d));
       s.task.token_dim = d;
     },
     [](const RunSettings& s) -> SettingValue { return s.task.token_dim; }},
    {"D", T::kInteger, S::kTask, "intrinsic_dim, d_retrieval: number of comparisons", "", true,
     KeyPart::kAlways, true,
     [](RunSettings& s, const SettingValue& v) { s.task.comparisons = integer(v); },
     [](const RunSettings& s) -> SettingValue { return s.task.comparisons; }},
    {"k", T::kInteger, S::kTask, "kth_max: the rank retrieved", "", true, KeyPart::kAlways, true,
     [](RunSettings& s, const SettingValue& v) { s.task.rank = integer(v); },
     [](const RunSettings& s) -> SettingValue { return s.task.rank; }},
    {"T0", T::kInteger, S::kTask, "fixed_positions: positions summed", "", true, KeyPart::kAlways,
     true, [](RunSettings& s, const SettingValue& v) { s.task.positions = integer(v); },
     [](const RunSettings& s) -> SettingValue { return s.task.positions; }},
    {"norm", T::kText, S::kTask, "triangle: squared or plain", "", true, KeyPart::kAlways, true,
     [](RunSettings& s, const SettingValue& v) { s.task.norm = parse_norm(text(v)); },
     [](const RunSettings& s) -> SettingValue {
       return std::string(s.task.norm == NormKind::kSquared ? "squared" : "plain");
     }},
    {"task_seed", T::kSeed, S::kTask, "seed of the task's random parameters", "", true,
     KeyPart::kAlways, true, [](RunSettings& s, const SettingValue& v) { s.task.seed = seed(v); },
     [](const RunSettings& s) -> SettingValue { return s.task.seed; }},
    // The model.
    {"heads", T::kHeads, S::kModel, "heads per layer, comma-separated (L = their number)", "", true,
     KeyPart::kAlways, true,
     [](RunSettings& s, const SettingValue& v) { s.model.heads = heads(v); },
     [](const RunSettings& s) -> SettingValue { return s.model.heads; }},
    {"E", T::kInteger, S::kModel, "embedding dimension", "", true, KeyPart::kAlways, true,
     [](RunSettings& s, const SettingValue& v) { s.model.embedding = integer(v); },
     [](const RunSettings& s) -> SettingValue { return s.model.embedding; }},
    {"head_dim", T::kInteger, S::kModel, "per-head dimension n (0: E / h)", "", true,
     KeyPart::kAlways, true,
     [](RunSettings& s, const SettingValue& v) { s.model.head_dim = integer(v); },
     [](const RunSettings& s) -> SettingValue { return s.model.head_dim; }},
    {"ffn_width", T::kInteger, S::kModel, "FFN hidden width", "", true, KeyPart::kAlways, true,
     [](RunSettings& s, const SettingValue& v) { s.model.ffn_width = integer(v); },
     [](const RunSettings& s) -> SettingValue { return s.model.ffn_width; }},
    {"readout_width", T::kInteger, S::kModel, "readout MLP width", "", true, KeyPart::kAlways, true,
     [](RunSettings& s, const SettingValue& v) { s.model.readout_width = integer(v); },
     [](const RunSettings& s) -> SettingValue { return s.model.readout_width; }},
    {"encoder", T::kText, S::kModel,
     "mlp (the papers' token-wise network, fed the position) or linear (a sub-class)", "", true,
     KeyPart::kAlways, true,
     [](RunSettings& s, const SettingValue& v) { s.model.encoder = parse_encoder(text(v)); },
     [](const RunSettings& s) -> SettingValue { return std::string(to_string(s.model.encoder)); }},
    {"encoder_width", T::kInteger, S::kModel, "the MLP encoder's hidden width (0: the FFN width)",
     "", true, KeyPart::kAlways, true,
     [](RunSettings& s, const SettingValue& v) { s.model.encoder_width = integer(v); },
     [](const RunSettings& s) -> SettingValue { return s.model.encoder_width; }},
    {"activation", T::kText, S::kModel, "gelu or relu", "", true, KeyPart::kAlways, true,
     [](RunSettings& s, const SettingValue& v) { s.model.activation = parse_activation(text(v)); },
     [](const RunSettings& s) -> SettingValue {
       return std::string(to_string(s.model.activation));
     }},
    {"pe", T::kText, S::kModel,
     "positional encoding: none (or off), learned or sinusoidal (default: the task's)",
     "positional", true, KeyPart::kAlways, false,
     [](RunSettings& s, const SettingValue& v) {
       s.positional = parse_positional_encoding(text(v));
       s.model.positional = *s.positional;
     },
     [](const RunSettings& s) -> SettingValue {
       return std::string(to_string(s.positional.value_or(s.model.positional)));
     }},
    {"pre_ln", T::kFlag, S::kModel, "pre-LayerNorm blocks", "pre_layer_norm", true,
     KeyPart::kAlways, true,
     [](RunSettings& s, const SettingValue& v) { s.model.pre_layer_norm = flag(v); },
     [](const RunSettings& s) -> SettingValue { return s.model.pre_layer_norm; }},
    {"scale", T::kNumber, S::kModel, "attention scale (0: 1/sqrt(n))", "attention_scale", true,
     KeyPart::kAlways, true,
     [](RunSettings& s, const SettingValue& v) { s.model.attention_scale = number(v); },
     [](const RunSettings& s) -> SettingValue { return s.model.attention_scale; }},
    // The training.
    {"steps", T::kInteger, S::kTraining, "training steps", "", true, KeyPart::kAlways, true,
     [](RunSettings& s, const SettingValue& v) { s.training.steps = integer(v); },
     [](const RunSettings& s) -> SettingValue { return s.training.steps; }},
    {"batch", T::kInteger, S::kTraining, "sequences per step", "", true, KeyPart::kAlways, true,
     [](RunSettings& s, const SettingValue& v) { s.training.batch = integer(v); },
     [](const RunSettings& s) -> SettingValue { return s.training.batch; }},
    {"lr", T::kNumber, S::kTraining, "peak learning rate", "learning_rate", true, KeyPart::kAlways,
     true, [](RunSettings& s, const SettingValue& v) { s.training.adam.learning_rate = number(v); },
     [](const RunSettings& s) -> SettingValue { return s.training.adam.learning_rate; }},
    // Not in a run's key: an experiment cannot set them, so its runs all share them.
    {"beta1", T::kNumber, S::kTraining, "AdamW beta1", "", false, KeyPart::kNever, true,
     [](RunSettings& s, const SettingValue& v) { s.training.adam.beta1 = number(v); },
     [](const RunSettings& s) -> SettingValue { return s.training.adam.beta1; }},
    {"beta2", T::kNumber, S::kTraining, "AdamW beta2", "", false, KeyPart::kNever, true,
     [](RunSettings& s, const SettingValue& v) { s.training.adam.beta2 = number(v); },
     [](const RunSettings& s) -> SettingValue { return s.training.adam.beta2; }},
    {"weight_decay", T::kNumber, S::kTraining, "decoupled weight decay", "", true, KeyPart::kAlways,
     true, [](RunSettings& s, const SettingValue& v) { s.training.adam.weight_decay = number(v); },
     [](const RunSettings& s) -> SettingValue { return s.training.adam.weight_decay; }},
    {"warmup", T::kInteger, S::kTraining, "warm-up steps (-1: 2 % of the steps)", "", true,
     KeyPart::kAlways, true,
     [](RunSettings& s, const SettingValue& v) { s.training.warmup = integer(v); },
     [](const RunSettings& s) -> SettingValue { return s.training.warmup; }},
    {"min_lr_ratio", T::kNumber, S::kTraining, "final learning rate / peak", "", true,
     KeyPart::kAlways, true,
     [](RunSettings& s, const SettingValue& v) { s.training.min_lr_ratio = number(v); },
     [](const RunSettings& s) -> SettingValue { return s.training.min_lr_ratio; }},
    {"clip", T::kNumber, S::kTraining, "gradient norm clip (0: off)", "", true, KeyPart::kAlways,
     true, [](RunSettings& s, const SettingValue& v) { s.training.clip = number(v); },
     [](const RunSettings& s) -> SettingValue { return s.training.clip; }},
    {"eval_every", T::kInteger, S::kTraining, "steps between evaluations (0: 20 in a run)", "",
     true, KeyPart::kAlways, true,
     [](RunSettings& s, const SettingValue& v) { s.training.eval_every = integer(v); },
     [](const RunSettings& s) -> SettingValue { return s.training.eval_every; }},
    {"val_size", T::kInteger, S::kTraining, "held-out sequences", "validation_size", true,
     KeyPart::kAlways, true,
     [](RunSettings& s, const SettingValue& v) { s.training.validation_size = integer(v); },
     [](const RunSettings& s) -> SettingValue { return s.training.validation_size; }},
    // An experiment lists its seeds as `seeds`, one run each.
    {"seed", T::kSeed, S::kTraining, "seed of the run (init, data, validation)", "", false,
     KeyPart::kAlways, true,
     [](RunSettings& s, const SettingValue& v) { s.training.seed = seed(v); },
     [](const RunSettings& s) -> SettingValue { return s.training.seed; }},
    {"threads", T::kInteger, S::kTraining, "threads (0: all cores)", "", false, KeyPart::kNever,
     true, [](RunSettings& s, const SettingValue& v) { s.training.threads = integer(v); },
     [](const RunSettings& s) -> SettingValue { return s.training.threads; }},
    {"chunks", T::kInteger, S::kTraining,
     "fixed pieces of each batch (results depend on it, not on --threads)", "", false,
     KeyPart::kAlways, true,
     [](RunSettings& s, const SettingValue& v) { s.training.chunks = integer(v); },
     [](const RunSettings& s) -> SettingValue { return s.training.chunks; }},
    {"precision", T::kText, S::kTraining, "float32 or float64", "", true, KeyPart::kAlways, true,
     [](RunSettings& s, const SettingValue& v) { s.training.precision = parse_precision(text(v)); },
     [](const RunSettings& s) -> SettingValue {
       return std::string(to_string(s.training.precision));
     }},
    // Written into a run's key only when set, so that the keys of runs before them still hold.
    {"until_plateau", T::kInteger, S::kTraining,
     "train at the peak learning rate until the validation curve plateaus (from --steps on, at "
     "most 4/5 of this many steps), then cool down over a quarter of the steps so far (0: off)",
     "", true, KeyPart::kUnlessDefault, true,
     [](RunSettings& s, const SettingValue& v) { s.training.max_steps = integer(v); },
     [](const RunSettings& s) -> SettingValue { return s.training.max_steps; }},
    {"plateau_tolerance", T::kNumber, S::kTraining,
     "converged: the best validation NMSE improved by less than this fraction over the last "
     "quarter of the steps",
     "", true, KeyPart::kUnlessDefault, true,
     [](RunSettings& s, const SettingValue& v) { s.training.plateau_tolerance = number(v); },
     [](const RunSettings& s) -> SettingValue { return s.training.plateau_tolerance; }},
    {"checkpoint", T::kText, S::kTraining,
     "keep a checkpoint in this file and resume from it if it exists", "", false, KeyPart::kNever,
     false, [](RunSettings& s, const SettingValue& v) { s.training.checkpoint = text(v); },
     [](const RunSettings& s) -> SettingValue { return s.training.checkpoint.string(); }},
    {"checkpoint_every", T::kInteger, S::kTraining, "steps between checkpoints", "", false,
     KeyPart::kNever, true,
     [](RunSettings& s, const SettingValue& v) { s.training.checkpoint_every = integer(v); },
     [](const RunSettings& s) -> SettingValue { return s.training.checkpoint_every; }},
};

}  // namespace

std::string_view to_string(SettingType t) {
  switch (t) {
    case SettingType::kInteger:
      return "integer";
    case SettingType::kSeed:
      return "seed";
    case SettingType::kNumber:
      return "number";
    case SettingType::kText:
      return "text";
    case SettingType::kFlag:
      return "flag";
    case SettingType::kHeads:
      return "heads";
  }
  return "?";
}

std::string_view to_string(Section s) {
  switch (s) {
    case Section::kTask:
      return "task";
    case Section::kModel:
      return "model";
    case Section::kTraining:
      return "training";
  }
  return "?";
}

std::string Setting::option() const {
  std::string out = "--" + std::string(name);
  for (char& c : out) {
    if (c == '_') c = '-';
  }
  return out;
}

const std::vector<Setting>& run_settings() {
  return kSettings;
}

const Setting* find_setting(std::string_view name) {
  for (const Setting& s : kSettings) {
    if (s.name == name || (!s.old_name.empty() && s.old_name == name)) return &s;
  }
  return nullptr;
}

SettingValue parse_setting(const Setting& setting, std::string_view text) {
  const auto whole = [&](auto& value) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && end == text.data() + text.size();
  };
  switch (setting.type) {
    case SettingType::kInteger: {
      Index v = 0;
      if (!whole(v)) throw InputError("expected an integer (got '" + std::string(text) + "')");
      return v;
    }
    case SettingType::kSeed: {
      // Read unsigned: a seed may use all 64 bits; a sign is a mistake, not a wrap-around.
      std::uint64_t v = 0;
      if (whole(v)) return v;
      if (text.starts_with('-'))
        throw InputError("a seed must be zero or positive (got " + std::string(text) + ")");
      throw InputError("a seed is an integer from 0 to 18446744073709551615 (got " +
                       std::string(text) + ")");
    }
    case SettingType::kNumber: {
      double v = 0;
      if (!whole(v)) throw InputError("expected a number (got '" + std::string(text) + "')");
      return v;
    }
    case SettingType::kFlag:
      if (text == "true" || text == "1") return true;
      if (text == "false" || text == "0") return false;
      throw InputError("expected true or false (got '" + std::string(text) + "')");
    case SettingType::kHeads: {
      const std::vector<long> h = targets::parse_heads(std::string(text));
      return std::vector<Index>(h.begin(), h.end());
    }
    case SettingType::kText:
      break;
  }
  return std::string(text);
}

std::string setting_text(const SettingValue& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::string>) {
          return v;
        } else if constexpr (std::is_same_v<V, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<V, std::vector<Index>>) {
          return fmt::format("{}", fmt::join(v, ","));
        } else {
          return fmt::format("{}", v);
        }
      },
      value);
}

}  // namespace infoflow::numeric
