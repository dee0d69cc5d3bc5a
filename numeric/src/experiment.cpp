#include "infoflow/numeric/experiment.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <mutex>
#include <set>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "infoflow/core/atomic_file.hpp"
#include "infoflow/core/error.hpp"
#include "infoflow/core/limits.hpp"
#include "infoflow/numeric/memory.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace infoflow::numeric {

std::string instruction_set() { return INFOFLOW_MARCH; }
std::string build_type() { return INFOFLOW_BUILD_TYPE; }
bool default_numeric_build() {
  return instruction_set() == INFOFLOW_DEFAULT_MARCH && build_type() == "Release";
}

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// The default build adds nothing to a key (the keys of earlier results hold); any other keeps
/// its runs apart, since their numbers differ in the low bits.
std::string build_tag() {
  std::string tag;
  if (instruction_set() != INFOFLOW_DEFAULT_MARCH) tag += "/march=" + instruction_set();
  if (build_type() != "Release") tag += "/build=" + build_type();
  return tag;
}

SourceLocation location(const fs::path& file, const toml::source_region& r) {
  return SourceLocation{file.string(), r.begin.line, r.begin.column};
}

const std::set<std::string> kClaims{"heads_phase", "growth_in_T", "exponent"};
const std::set<std::string> kExperimentKeys{"name", "title", "claim", "task",    "formula",
                                            "d",    "inputs", "group", "arm", "confront"};
// Profile keys: integers, numbers and strings; each may be a list (swept).
const std::set<std::string> kIntegerKeys{"T",        "D",          "k",
                                         "T0",       "d",          "E",
                                         "head_dim", "ffn_width",  "readout_width",
                                         "seeds",    "steps",      "batch",
                                         "warmup",   "eval_every", "val_size",
                                         "task_seed", "until_plateau"};
const std::set<std::string> kNumberKeys{"lr",    "weight_decay", "min_lr_ratio",
                                        "clip",  "scale",        "plateau_tolerance"};
const std::set<std::string> kStringKeys{"heads", "pe", "activation", "precision", "norm"};
const std::set<std::string> kBoolKeys{"pre_ln"};

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string value_text(const toml::node& n) {
  if (const auto* i = n.as_integer()) return std::to_string(i->get());
  if (const auto* f = n.as_floating_point()) return fmt::format("{:g}", f->get());
  if (const auto* s = n.as_string()) return s->get();
  if (const auto* b = n.as_boolean()) return b->get() ? "true" : "false";
  return "?";
}

/// A heads pattern ("D,D", "D-1,D", "2,2") with the run's integers substituted.
std::vector<Index> resolve_heads(const std::string& pattern,
                                 const std::map<std::string, long>& values,
                                 const SourceLocation& where) {
  std::vector<Index> heads;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = pattern.find(',', start);
    std::string part =
        pattern.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    part.erase(std::remove(part.begin(), part.end(), ' '), part.end());
    long value = 0;
    const std::size_t op = part.find_first_of("+-", 1);
    const std::string base = part.substr(0, op);
    // Head counts are small: anything past the limit is refused before it can overflow.
    const auto small_integer = [&](const std::string& digits) {
      long v = 0;
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
      if (ec != std::errc() || end != digits.data() + digits.size() || v > limits::kHeads) {
        throw InputError(where, "heads '" + pattern + "': '" + digits +
                                    "' is not a head count (at most " +
                                    std::to_string(limits::kHeads) + ")");
      }
      return v;
    };
    if (!base.empty() && std::all_of(base.begin(), base.end(), ::isdigit)) {
      value = small_integer(base);
    } else if (values.count(base) != 0) {
      value = values.at(base);
    } else {
      throw InputError(where, "heads '" + pattern + "': '" + base +
                                  "' is neither a number nor a swept integer (D, k, T0, T)");
    }
    if (op != std::string::npos) {
      const std::string offset = part.substr(op + 1);
      if (offset.empty() || !std::all_of(offset.begin(), offset.end(), ::isdigit)) {
        throw InputError(where, "heads '" + pattern + "': expected NAME+N or NAME-N");
      }
      value += (part[op] == '+' ? 1 : -1) * small_integer(offset);
    }
    heads.push_back(value);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return heads;
}

/// A value checked where it is written, so that its error names its own place.
void check_value(const std::string& key, const toml::node& v, const SourceLocation& at,
                 const std::string& context) {
  try {
    if (key == "precision") (void)parse_precision(v.as_string()->get());
    if (key == "activation") (void)parse_activation(v.as_string()->get());
    if (key == "pe") (void)parse_positional_encoding(v.as_string()->get());
  } catch (const InputError& e) {
    throw InputError(at, context + ": " + e.message());
  }
  if (key == "norm" && v.as_string()->get() != "plain" && v.as_string()->get() != "squared") {
    throw InputError(at, context + ": norm must be plain or squared");
  }
  if ((key == "seeds" || key == "task_seed") && v.as_integer()->get() < 0) {
    throw InputError(at, context + ": a seed must be zero or positive (got " +
                             std::to_string(v.as_integer()->get()) + ")");
  }
}

/// The same seed twice would run, and record, the same run twice.
void check_distinct(const std::vector<const toml::node*>& seeds, const fs::path& file,
                    const std::string& context) {
  std::set<std::int64_t> seen;
  for (const toml::node* s : seeds) {
    if (!seen.insert(s->as_integer()->get()).second) {
      throw InputError(location(file, s->source()),
                       context + ": seed " + std::to_string(s->as_integer()->get()) +
                           " is listed twice");
    }
  }
}

/// What makes a run's task: runs with the same one differ only in their model or training.
json task_json(const RunConfig& r) {
  json task = {{"name", r.task.name},
               {"T", r.task.tokens},
               {"d", r.task.token_dim},
               {"D", r.task.comparisons},
               {"k", r.task.rank},
               {"T0", r.task.positions},
               {"norm", r.task.norm == NormKind::kSquared ? "squared" : "plain"},
               {"task_seed", r.task.seed}};
  if (!r.formula.empty()) {
    task = {{"formula", r.formula},
            {"bindings", r.bindings},
            {"d", r.task.token_dim},
            {"task_seed", r.task.seed},
            {"inputs", {r.inputs.variance, r.inputs.min_norm, r.inputs.max_norm}}};
  }
  return task;
}

json config_json(const RunConfig& r) {
  const ModelConfig& m = r.model;
  const TrainOptions& t = r.training;
  json config = {{"task", task_json(r)},
          {"model",
           {{"heads", m.heads},
            {"E", m.embedding},
            {"head_dim", m.head_dim},
            {"ffn_width", m.ffn_width},
            {"readout_width", m.readout_width},
            {"activation", to_string(m.activation)},
            {"pe", to_string(m.positional)},
            {"pre_ln", m.pre_layer_norm},
            {"scale", m.attention_scale}}},
          {"training",
           {{"steps", t.steps},
            {"batch", t.batch},
            {"lr", t.adam.learning_rate},
            {"weight_decay", t.adam.weight_decay},
            {"warmup", t.warmup},
            {"min_lr_ratio", t.min_lr_ratio},
            {"clip", t.clip},
            {"eval_every", t.eval_every},
            {"val_size", t.validation_size},
            {"seed", t.seed},
            {"chunks", t.chunks},
            {"precision", to_string(t.precision)}}}};
  // Only where they differ from the defaults, so that the keys of earlier results still hold.
  const TrainOptions defaults;
  json& training = config["training"];
  if (t.max_steps != defaults.max_steps) {
    training["until_plateau"] = t.max_steps;
    // The peak held until the plateau, then a cool-down of a quarter of the steps (train.hpp):
    // runs of the earlier rule, which stopped at the peak, do not share these keys.
    training["cooldown"] = 0.25;
  }
  if (t.plateau_tolerance != defaults.plateau_tolerance)
    training["plateau_tolerance"] = t.plateau_tolerance;
  return config;
}

/// An integer field of a record; a fraction or an integer out of range makes a corrupt record
/// (converting it would be undefined or wrong).
template <typename Integer>
Integer integer_field(const json& j) {
  const bool fits = j.is_number_unsigned()  ? std::in_range<Integer>(j.get<std::uint64_t>())
                    : j.is_number_integer() ? std::in_range<Integer>(j.get<std::int64_t>())
                                            : false;
  if (!fits) throw std::invalid_argument("expected an integer in range, found " + j.dump());
  return j.get<Integer>();
}

double number_or_inf(const json& j) {
  return j.is_number() ? j.get<double>() : std::numeric_limits<double>::infinity();
}

json finite_or_null(double x) {
  return std::isfinite(x) ? json(x) : json(nullptr);
}

/// [[step, validation NMSE], ...]: what the plateau test and the report's curves need.
json validation_curve(const TrainResult& r) {
  json out = json::array();
  for (const CurvePoint& p : r.curve) out.push_back({p.step, finite_or_null(p.validation_nmse)});
  return out;
}

}  // namespace

struct ExperimentSpec::Document {
  toml::table table;
};

std::unique_ptr<Task> RunConfig::make() const {
  if (formula.empty()) return make_task(task);
  return make_formula_task(
      experiment,
      targets::Evaluator(targets::Formula::parse(formula), bindings, task.token_dim, task.seed),
      inputs);
}

namespace {

/// The runs a profile's lists make: the product of their lengths (the lists are checked later).
double list_product(const toml::node& profile) {
  double count = 1;
  if (const toml::table* t = profile.as_table()) {
    for (const auto& [key, value] : *t) {
      if (const toml::array* a = value.as_array())
        count *= static_cast<double>(std::max<std::size_t>(a->size(), 1));
    }
  }
  return count;
}

}  // namespace

ExperimentSpec ExperimentSpec::load(const fs::path& file) {
  if (!fs::is_regular_file(file))
    throw InputError(SourceLocation{file.string(), 0, 0}, "no such experiment file");
  auto doc = std::make_shared<Document>();
  try {
    doc->table = toml::parse_file(file.string());
  } catch (const toml::parse_error& e) {
    throw InputError(location(file, e.source()), std::string(e.description()));
  }
  ExperimentSpec spec;
  spec.file = file;
  for (const auto& [key, node] : doc->table) {
    if (key.str() != "experiment" && key.str() != "profile") {
      throw InputError(location(file, node.source()),
                       "unknown table '" + std::string(key.str()) +
                           "' (expected [experiment] and [profile.NAME])");
    }
  }
  const toml::table* e = doc->table["experiment"].as_table();
  if (e == nullptr) throw InputError(SourceLocation{file.string(), 1, 1}, "missing [experiment]");
  for (const auto& [key, node] : *e) {
    if (kExperimentKeys.count(std::string(key.str())) == 0) {
      throw InputError(location(file, node.source()),
                       "experiment: unknown key '" + std::string(key.str()) + "'");
    }
  }
  auto text = [&](const char* key, bool required) -> std::string {
    const toml::node* n = e->get(key);
    if (n == nullptr) {
      if (required)
        throw InputError(location(file, e->source()),
                         std::string("experiment: missing key '") + key + "'");
      return "";
    }
    if (!n->is_string())
      throw InputError(location(file, n->source()),
                       std::string("experiment: '") + key + "' must be a string");
    return n->as_string()->get();
  };
  spec.name = text("name", true);
  // The name becomes a file name under --results: no separators, no dots in front.
  const bool safe_name =
      !spec.name.empty() && spec.name.size() <= 100 && spec.name.front() != '.' &&
      std::all_of(spec.name.begin(), spec.name.end(), [](unsigned char c) {
        return std::isalnum(c) != 0 || c == '_' || c == '-' || c == '.';
      });
  if (!safe_name) {
    throw InputError(location(file, e->get("name")->source()),
                     "experiment: name '" + spec.name +
                         "' must be 1 to 100 letters, digits, '_', '-' or '.', not starting "
                         "with '.'");
  }
  spec.title = text("title", false);
  spec.claim = text("claim", true);
  if (kClaims.count(spec.claim) == 0) {
    throw InputError(
        location(file, e->get("claim")->source()),
        "experiment: claim '" + spec.claim + "' is not one of heads_phase, growth_in_T, exponent");
  }
  spec.group = text("group", false);
  spec.arm = text("arm", false);
  spec.confront = text("confront", false);
  if (!spec.confront.empty()) spec.confront_at = location(file, e->get("confront")->source());
  if (const toml::node* d = e->get("d");
      d != nullptr && !(d->is_integer() && d->as_integer()->get() >= 1)) {
    throw InputError(location(file, d->source()), "experiment: 'd' must be an integer >= 1");
  }
  if (const toml::node* in = e->get("inputs")) {
    const toml::table* t = in->as_table();
    if (t == nullptr)
      throw InputError(location(file, in->source()), "experiment: 'inputs' must be a table");
    for (const auto& [key, value] : *t) {
      const std::string k(key.str());
      if (k != "variance" && k != "min_norm" && k != "max_norm") {
        throw InputError(
            location(file, value.source()),
            "experiment: unknown key inputs." + k + " (known: variance, min_norm, max_norm)");
      }
      if (!value.is_number())
        throw InputError(location(file, value.source()),
                         "experiment: inputs." + k + " must be a number");
    }
  }
  if (text("task", false).empty() == text("formula", false).empty()) {
    throw InputError(location(file, e->source()),
                     "experiment: give exactly one of 'task' and 'formula'");
  }
  if (const toml::node* f = e->get("formula")) {  // its errors are placed here, once
    SourceLocation at = location(file, f->source());
    ++at.column;  // after the opening quote
    (void)targets::Formula::parse(f->as_string()->get(), at);
  }
  const toml::table* profiles = doc->table["profile"].as_table();
  if (profiles == nullptr || profiles->empty())
    throw InputError(SourceLocation{file.string(), 1, 1}, "no [profile.NAME] table");
  for (const auto& [key, node] : *profiles) spec.profiles.emplace_back(key.str());
  spec.toml_ = doc;
  // Every run of every profile is expanded and checked: bound them together first (six
  // profiles of 10,000 runs each took over 10 s to validate).
  double total = 0;
  for (const auto& [key, node] : *profiles) {
    const double count = list_product(node);
    if (count > static_cast<double>(limits::kRuns)) (void)spec.runs(std::string(key.str()));
    total += count;
  }
  if (total > static_cast<double>(limits::kRuns)) {
    throw InputError(location(file, profiles->source()),
                     fmt::format("the profiles' lists make {:.0f} runs together; at most {} are "
                                 "accepted",
                                 total, limits::kRuns));
  }
  for (const std::string& p : spec.profiles) (void)spec.runs(p);  // validate everything up front
  return spec;
}

std::vector<RunConfig> ExperimentSpec::runs(const std::string& profile) const {
  const Document& doc = *toml_;
  const toml::table& e = *doc.table["experiment"].as_table();
  const toml::table* p = doc.table["profile"][profile].as_table();
  if (p == nullptr) {
    throw InputError(SourceLocation{file.string(), 0, 0},
                     "experiment " + name + " has no profile '" + profile + "'");
  }
  // The swept keys and their values, in key order, seeds last.
  std::vector<std::pair<std::string, std::vector<const toml::node*>>> axes;
  std::vector<std::string> swept;
  for (const auto& [k, node] : *p) {
    const std::string key(k.str());
    const bool known = kIntegerKeys.count(key) + kNumberKeys.count(key) + kStringKeys.count(key) +
                           kBoolKeys.count(key) >
                       0;
    if (!known)
      throw InputError(location(file, node.source()),
                       "profile." + profile + ": unknown key '" + key + "'");
    std::vector<const toml::node*> values;
    if (const toml::array* a = node.as_array()) {
      if (a->empty())
        throw InputError(location(file, node.source()),
                         "profile." + profile + ": '" + key + "' is an empty list");
      for (const toml::node& v : *a) values.push_back(&v);
      if (key != "seeds" && values.size() > 1) swept.push_back(key);
    } else {
      values.push_back(&node);
    }
    for (const toml::node* v : values) {
      const bool ok = kIntegerKeys.count(key)  ? v->is_integer()
                      : kNumberKeys.count(key) ? (v->is_floating_point() || v->is_integer())
                      : kStringKeys.count(key) ? v->is_string()
                                               : v->is_boolean();
      if (!ok)
        throw InputError(location(file, v->source()),
                         "profile." + profile + ": '" + key + "' has a value of the wrong type");
      check_value(key, *v, location(file, v->source()), "profile." + profile);
    }
    if (key == "seeds") check_distinct(values, file, "profile." + profile);
    axes.emplace_back(key, std::move(values));
  }
  std::stable_partition(axes.begin(), axes.end(), [](const auto& a) { return a.first != "seeds"; });
  double count = 1;
  for (const auto& axis : axes) count *= static_cast<double>(axis.second.size());
  if (count > static_cast<double>(limits::kRuns)) {
    throw InputError(location(file, p->source()),
                     fmt::format("profile.{}: its lists make {:.0f} runs; at most {} are accepted",
                                 profile, count, limits::kRuns));
  }

  std::vector<RunConfig> out;
  std::vector<std::size_t> at(axes.size(), 0);
  // Runs that differ only in their model or training share their task, which is built (a
  // formula's parsed and evaluated once) once: thousands of runs of one formula took minutes.
  struct TaskFacts {
    Index tokens = 0;
    Index token_dim = 0;
    PositionalEncoding positional = PositionalEncoding::kNone;
  };
  std::map<std::string, TaskFacts> tasks;
  const std::string formula = e.get("formula") ? e.get("formula")->as_string()->get() : "";
  while (true) {
    RunConfig r;
    r.experiment = name;
    r.formula = formula;
    r.task.name = formula.empty() ? e.get("task")->as_string()->get() : "";
    r.task.token_dim = e.get("d") && e.get("d")->is_integer() ? e.get("d")->as_integer()->get() : 0;
    r.training.threads = 1;  // runs go side by side, one per core
    std::map<std::string, long> integers;
    std::string heads_pattern = "1";
    const toml::node* heads_node = nullptr;
    std::string pe;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      const std::string& key = axes[a].first;
      const toml::node& v = *axes[a].second[at[a]];
      if (std::find(swept.begin(), swept.end(), key) != swept.end()) r.labels[key] = value_text(v);
      if (v.is_integer()) integers[key] = static_cast<long>(v.as_integer()->get());
      const double x = v.is_floating_point() ? v.as_floating_point()->get()
                       : v.is_integer()      ? static_cast<double>(v.as_integer()->get())
                                             : 0.0;
      const long i = v.is_integer() ? static_cast<long>(v.as_integer()->get()) : 0;
      if (key == "T")
        r.task.tokens = i;
      else if (key == "D")
        r.task.comparisons = i;
      else if (key == "k")
        r.task.rank = i;
      else if (key == "T0")
        r.task.positions = i;
      else if (key == "d")
        r.task.token_dim = i;
      else if (key == "task_seed")
        r.task.seed = static_cast<std::uint64_t>(i);
      else if (key == "E")
        r.model.embedding = i;
      else if (key == "head_dim")
        r.model.head_dim = i;
      else if (key == "ffn_width")
        r.model.ffn_width = i;
      else if (key == "readout_width")
        r.model.readout_width = i;
      else if (key == "seeds")
        r.training.seed = static_cast<std::uint64_t>(i);
      else if (key == "steps")
        r.training.steps = i;
      else if (key == "batch")
        r.training.batch = i;
      else if (key == "warmup")
        r.training.warmup = i;
      else if (key == "eval_every")
        r.training.eval_every = i;
      else if (key == "val_size")
        r.training.validation_size = i;
      else if (key == "lr")
        r.training.adam.learning_rate = x;
      else if (key == "weight_decay")
        r.training.adam.weight_decay = x;
      else if (key == "min_lr_ratio")
        r.training.min_lr_ratio = x;
      else if (key == "clip")
        r.training.clip = x;
      else if (key == "until_plateau")
        r.training.max_steps = i;
      else if (key == "plateau_tolerance")
        r.training.plateau_tolerance = x;
      else if (key == "scale")
        r.model.attention_scale = x;
      else if (key == "pre_ln")
        r.model.pre_layer_norm = v.as_boolean()->get();
      else if (key == "heads") {
        heads_pattern = v.as_string()->get();
        heads_node = &v;
      } else if (key == "pe")
        pe = v.as_string()->get();
      else if (key == "activation")
        r.model.activation = parse_activation(v.as_string()->get());
      else if (key == "precision")
        r.training.precision = parse_precision(v.as_string()->get());
      else if (key == "norm")
        r.task.norm = v.as_string()->get() == "plain" ? NormKind::kPlain : NormKind::kSquared;
    }
    r.labels["seed"] = std::to_string(r.training.seed);
    const SourceLocation heads_at =
        heads_node ? location(file, heads_node->source()) : location(file, p->source());
    try {
      if (integers.count("T") == 0) integers["T"] = r.task.tokens;
      r.model.heads = resolve_heads(heads_pattern, integers, heads_at);
      if (r.labels.count("heads") != 0)
        r.labels["heads_pattern"] = r.labels["heads"];  // as written
      r.labels["heads"] = r.model.heads_string();
      r.labels["L"] = std::to_string(r.model.heads.size());
      if (!formula.empty()) {
        r.bindings = {{"T", r.task.tokens}};
        for (const auto& [k, v] : integers) {
          if (k == "D" || k == "k" || k == "T0") r.bindings[k] = v;
        }
        if (r.task.token_dim == 0) r.task.token_dim = 4;
        if (const toml::table* in = e.get("inputs") ? e.get("inputs")->as_table() : nullptr) {
          r.inputs.variance = in->get("variance") ? in->get("variance")->value_or(1.0) : 1.0;
          r.inputs.min_norm = in->get("min_norm") ? in->get("min_norm")->value_or(0.0) : 0.0;
          r.inputs.max_norm = in->get("max_norm") ? in->get("max_norm")->value_or(0.0) : 0.0;
        }
      }
      json task_identity = task_json(r);
      task_identity.erase("formula");  // the same in every run
      const std::string task_key = task_identity.dump();
      auto known = tasks.find(task_key);
      if (known == tasks.end()) {
        const std::unique_ptr<Task> task = r.make();
        known = tasks
                    .emplace(task_key, TaskFacts{task->tokens(), task->token_dim(),
                                                 task->recommended_positional()})
                    .first;
      }
      r.task.token_dim = known->second.token_dim;
      r.model.tokens = known->second.tokens;
      r.model.token_dim = known->second.token_dim;
      r.model.positional = pe.empty() ? known->second.positional : parse_positional_encoding(pe);
      r.model.validate();
      r.training.validate();
      check_training_memory(r.model, r.training);
    } catch (const InputError& err) {
      std::string labels;
      for (const auto& [k, v] : r.labels) labels += (labels.empty() ? "" : ", ") + k + " = " + v;
      throw InputError(err.where().line > 0 ? err.where() : heads_at,
                       "profile." + profile + " (" + labels + "): " + err.message());
    }
    r.key = fmt::format("{:016x}", fnv1a(config_json(r).dump() + kCodeVersion + build_tag()));
    out.push_back(std::move(r));
    std::size_t a = axes.size();
    while (a > 0) {
      --a;
      if (++at[a] < axes[a].second.size()) break;
      at[a] = 0;
      if (a == 0) return out;
    }
    if (axes.empty()) return out;
  }
}

// ---- results -----------------------------------------------------------------------------

namespace {

/// "what file: the system's reason", for an I/O call that failed with `error`.
[[noreturn]] void io_failure(const std::string& what, const fs::path& file, int error) {
  throw InputError(SourceLocation{file.string(), 0, 0},
                   what + ": " + std::generic_category().message(error));
}

void create_parent(const fs::path& file) {
  if (!file.has_parent_path()) return;
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  if (ec) io_failure("cannot create the results folder", file.parent_path(), ec.value());
}

/// An exclusive advisory lock (flock) on a results file, held by one sweep for its whole run:
/// a second sweep on the same file is refused instead of running everything again.
class SweepLock {
 public:
  explicit SweepLock(const fs::path& file) {
    create_parent(file);
    fd_ = ::open(file.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) io_failure("cannot open the results file", file, errno);
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      ::close(fd_);
      if (error == EWOULDBLOCK) {
        throw InputError(SourceLocation{file.string(), 0, 0},
                         "another sweep is writing this results file; wait for it to finish "
                         "(or give this one another --results folder and merge them)");
      }
      io_failure("cannot lock the results file", file, error);
    }
  }
  SweepLock(const SweepLock&) = delete;
  SweepLock& operator=(const SweepLock&) = delete;
  ~SweepLock() { ::close(fd_); }  // closing releases the lock

 private:
  int fd_ = -1;
};

}  // namespace

ResultStore::ResultStore(fs::path file) : file_(std::move(file)) {}

std::vector<RunRecord> ResultStore::read(std::vector<std::string>* warnings) const {
  std::vector<RunRecord> out;
  std::ifstream in(file_);
  if (!in) {
    if (errno == ENOENT) return out;  // nothing run yet
    io_failure("cannot read the results file", file_, errno);
  }
  std::set<std::string> seen;
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    try {
      const json j = json::parse(line);
      RunRecord r;
      r.key = j.at("key").get<std::string>();
      r.experiment = j.at("experiment").get<std::string>();
      r.labels = j.at("labels").get<std::map<std::string, std::string>>();
      r.status = parse_run_status(j.at("status").get<std::string>());
      r.best_validation_nmse = number_or_inf(j.at("best_validation_nmse"));
      r.final_validation_nmse = number_or_inf(j.at("final_validation_nmse"));
      r.steps_done = integer_field<long>(j.at("steps_done"));
      r.diverged_at = integer_field<long>(j.at("diverged_at"));
      r.parameters = integer_field<long>(j.at("parameters"));
      r.parameters_theory = integer_field<long>(j.at("parameters_theory"));
      r.seconds = j.at("seconds").get<double>();
      r.seed = integer_field<std::uint64_t>(j.at("config").at("training").at("seed"));
      if (j.contains("curve")) {
        for (const json& point : j.at("curve"))
          r.curve.emplace_back(integer_field<long>(point.at(0)), number_or_inf(point.at(1)));
      }
      if (seen.insert(r.key).second) out.push_back(std::move(r));
    } catch (const std::exception& e) {
      if (warnings != nullptr) {
        warnings->push_back(fmt::format("{}:{}: corrupt record skipped ({})", file_.string(),
                                        number, std::string(e.what()).substr(0, 80)));
      }
    }
  }
  return out;
}

void ResultStore::append(const RunConfig& run, const TrainResult& r) const {
  json record = {{"key", run.key},
                       {"experiment", run.experiment},
                       {"labels", run.labels},
                       {"config", config_json(run)},
                       {"code_version", kCodeVersion},
                       {"march", instruction_set()},
                       {"build_type", build_type()},
                       {"status", to_string(r.status)},
                       {"converged", r.status == RunStatus::kConverged},
                       {"best_validation_nmse", finite_or_null(r.best_validation_nmse)},
                       {"final_validation_nmse", finite_or_null(r.final_validation_nmse)},
                       {"best_step", r.best_step},
                       {"steps_done", r.steps_done},
                       {"resumed_from", r.resumed_from},
                       {"diverged_at", r.diverged_at},
                       {"parameters", r.parameters.total},
                       {"parameters_theory", r.parameters.theory()},
                       {"seconds", r.seconds_total},
                       {"target_std", r.target_std},
                       {"curve", validation_curve(r)}};
  if (run.training.max_steps > 0) record["cooldown_start"] = r.cooldown.start;
  std::string line = record.dump() + "\n";
  create_parent(file_);
  const int fd = ::open(file_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) io_failure("cannot open the results file", file_, errno);
  // A torn last line (a crash mid-write elsewhere) must stay a line of its own.
  const off_t before = ::lseek(fd, 0, SEEK_END);
  char last = '\n';
  if (before > 0 && ::pread(fd, &last, 1, before - 1) == 1 && last != '\n') {
    line.insert(line.begin(), '\n');
  }
  // One write() normally; a short one is followed by another, which fails with the reason.
  int error = 0;
  for (std::size_t done = 0; done < line.size() && error == 0;) {
    const ssize_t wrote = ::write(fd, line.data() + done, line.size() - done);
    if (wrote > 0) done += static_cast<std::size_t>(wrote);
    error = wrote < 0 ? errno : wrote == 0 ? ENOSPC : 0;
  }
  if (error != 0 || ::fsync(fd) != 0) {
    const int cause = error != 0 ? error : errno;
    // Cut a partial record off again, so that the file ends with a whole record.
    if (before >= 0) (void)::ftruncate(fd, before);
    ::close(fd);
    io_failure("cannot append to the results file", file_, cause);
  }
  ::close(fd);
}

fs::path checkpoint_path(const ResultStore& store, const RunConfig& run) {
  const fs::path dir = store.file().has_parent_path() ? store.file().parent_path() : ".";
  return dir / "checkpoints" / run.experiment / (run.key + ".ckpt");
}

namespace {

/// A recorded run's checkpoint, and the half-written copies a killed writer left beside it
/// (".NAME.XXXXXX", core/atomic_file.hpp).
void remove_checkpoint(const fs::path& checkpoint) {
  fs::remove(checkpoint);
  const std::string partial = "." + checkpoint.filename().string() + ".";
  std::error_code ignored;
  for (const fs::directory_entry& e : fs::directory_iterator(checkpoint.parent_path(), ignored)) {
    if (e.path().filename().string().rfind(partial, 0) == 0) fs::remove(e.path(), ignored);
  }
}

}  // namespace

std::pair<Index, Index> parse_shard(const std::string& text) {
  const std::size_t slash = text.find('/');
  try {
    if (slash != std::string::npos) {
      std::size_t a = 0;
      std::size_t b = 0;
      const long i = std::stol(text.substr(0, slash), &a);
      const long n = std::stol(text.substr(slash + 1), &b);
      if (a == slash && b == text.size() - slash - 1 && n >= 1 && i >= 0 && i < n) return {i, n};
    }
  } catch (const std::exception&) {
  }
  throw InputError("--shard needs i/N with 0 <= i < N, e.g. 0/4 (got '" + text + "')");
}

std::pair<std::string, std::string> parse_where(const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw InputError("--where needs LABEL=VALUE, e.g. D=3 or heads_pattern=D,D (got '" + text +
                     "')");
  }
  return {text.substr(0, eq), text.substr(eq + 1)};
}

namespace {

bool selected(const RunConfig& run, const std::map<std::string, std::set<std::string>>& where) {
  for (const auto& [label, values] : where) {
    const auto it = run.labels.find(label);
    if (it == run.labels.end() || values.count(it->second) == 0) return false;
  }
  return true;
}

/// Every --where label must be one of the profile's, and the selection must not be empty: a
/// typo would otherwise run nothing and say nothing.
void check_where(const std::vector<RunConfig>& all, const SweepOptions& o) {
  if (o.where.empty()) return;
  std::set<std::string> labels;
  for (const RunConfig& r : all) {
    for (const auto& [k, v] : r.labels) labels.insert(k);
  }
  for (const auto& [label, values] : o.where) {
    if (labels.count(label) == 0) {
      std::string known;
      for (const std::string& l : labels) known += (known.empty() ? "" : ", ") + l;
      throw InputError("--where " + label + ": profile " + o.profile + " has no label '" + label +
                       "' (its labels: " + known + ")");
    }
  }
  if (std::none_of(all.begin(), all.end(), [&](const RunConfig& r) { return selected(r, o.where); })) {
    throw InputError("--where selects no run of profile " + o.profile);
  }
}

}  // namespace

SweepSummary run_sweep(const ExperimentSpec& spec, const ResultStore& store, const SweepOptions& o,
                       const std::function<void(const SweepProgress&)>& progress) {
  const auto start = std::chrono::steady_clock::now();
  SweepSummary summary;
  const std::vector<RunConfig> all = spec.runs(o.profile);
  check_where(all, o);
  const SweepLock held(store.file());
  std::set<std::string> done;
  for (const RunRecord& r : store.read(&summary.warnings)) done.insert(r.key);
  std::vector<const RunConfig*> pending;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (static_cast<Index>(i) % o.shards != o.shard || !selected(all[i], o.where)) continue;
    ++summary.runs;
    if (done.count(all[i].key) != 0) {
      ++summary.skipped;
    } else {
      pending.push_back(&all[i]);
    }
  }
  const Index workers = std::max<Index>(
      1, std::min<Index>(
             o.workers > 0 ? o.workers : static_cast<Index>(std::thread::hardware_concurrency()),
             static_cast<Index>(pending.size())));
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::exception_ptr failure;
  SweepProgress state{0, static_cast<Index>(pending.size()), summary.skipped, 0,
                      std::numeric_limits<double>::infinity()};
  auto work = [&] {
    while (true) {
      const std::size_t i = next++;
      if (i >= pending.size()) return;
      {
        const std::lock_guard<std::mutex> lock(mutex);
        if (failure) return;
      }
      try {
        RunConfig run = *pending[i];
        if (o.checkpoint_every > 0) {
          run.training.checkpoint = checkpoint_path(store, run);
          run.training.checkpoint_every = o.checkpoint_every;
          run.training.checkpoint_tag = run.key;
        }
        const std::unique_ptr<Task> task = run.make();
        const TrainResult result = train(run.model, *task, run.training);
        // One writer at a time: append() looks at the file's last byte before writing.
        const std::lock_guard<std::mutex> lock(mutex);
        store.append(run, result);
        if (!run.training.checkpoint.empty()) remove_checkpoint(run.training.checkpoint);
        ++state.done;
        if (result.status == RunStatus::kDiverged)
          ++summary.diverged;
        else
          ++summary.completed;
        state.best_nmse = std::min(state.best_nmse, result.best_validation_nmse);
        state.seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (progress) progress(state);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(mutex);
        if (!failure) failure = std::current_exception();
        return;
      }
    }
  };
  std::vector<std::thread> threads;
  for (Index w = 0; w < workers; ++w) threads.emplace_back(work);
  for (std::thread& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

namespace {

/// The fields in which two records of one run differ, with both values; the time taken may.
std::string differences(const json& first, const json& second) {
  std::string out;
  for (const auto& [field, value] : first.items()) {
    if (field == "seconds" || (second.contains(field) && second.at(field) == value)) continue;
    out += fmt::format("{}{} {} against {}", out.empty() ? "" : "; ", field, value.dump(),
                       second.contains(field) ? second.at(field).dump() : "(missing)");
  }
  for (const auto& [field, value] : second.items()) {
    if (!first.contains(field)) out += fmt::format("; {} (missing) against {}", field, value.dump());
  }
  return out;
}

}  // namespace

std::vector<std::string> merge_results(const std::vector<fs::path>& inputs,
                                       const fs::path& output) {
  std::vector<std::string> warnings;
  struct Seen {
    json record;
    std::string where;
  };
  std::map<std::string, Seen> seen;
  std::vector<std::string> conflicts;
  std::string content;
  for (const fs::path& in : inputs) {
    std::error_code ec;
    if (!fs::is_regular_file(in, ec))
      throw InputError(SourceLocation{in.string(), 0, 0}, "no such results file");
    std::ifstream f(in);
    if (!f) io_failure("cannot read the results file", in, errno);
    std::string line;
    std::size_t number = 0;
    while (std::getline(f, line)) {
      ++number;
      if (line.empty()) continue;
      json record;
      std::string key;
      try {
        record = json::parse(line);
        key = record.at("key").get<std::string>();
      } catch (const std::exception&) {
        warnings.push_back(fmt::format("{}:{}: corrupt record skipped", in.string(), number));
        continue;
      }
      const std::string where = fmt::format("{}:{}", in.string(), number);
      const auto [it, fresh] = seen.try_emplace(key, Seen{record, where});
      if (fresh) {
        content += line + "\n";
      } else if (const std::string diff = differences(it->second.record, record); !diff.empty()) {
        conflicts.push_back(fmt::format("run {} at {} and at {} differs: {}", key,
                                        it->second.where, where, diff));
      }
    }
  }
  if (!conflicts.empty()) {
    std::string message = fmt::format(
        "{} run{} recorded with different results; nothing merged (remove the records that "
        "are wrong):",
        conflicts.size(), conflicts.size() == 1 ? " is" : "s are");
    for (const std::string& c : conflicts) message += "\n  " + c;
    throw InputError(message);
  }
  write_file_atomically(output, content);
  return warnings;
}

}  // namespace infoflow::numeric
