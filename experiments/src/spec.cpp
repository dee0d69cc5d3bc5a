#include "infoflow/experiments/spec.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <set>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "infoflow/core/architecture.hpp"
#include "infoflow/core/error.hpp"
#include "infoflow/core/limits.hpp"
#include "infoflow/core/read_file.hpp"
#include "infoflow/numeric/memory.hpp"
#include "infoflow/numeric/run_settings.hpp"
#include "infoflow/targets/target_file.hpp"

#include "claims/claim_kind.hpp"
#include "run_key.hpp"

namespace infoflow::experiments {

using namespace numeric;  // the configuration types a run is made of

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

SourceLocation location(const fs::path& file, const toml::source_region& r) {
  return SourceLocation{file.string(), r.begin.line, r.begin.column};
}

const std::set<std::string> kExperimentKeys{"name", "title", "claim", "task",    "formula",
                                            "d",    "inputs", "group", "arm", "confront"};
/// A profile key: a run setting an experiment may sweep (numeric/run_settings.hpp), under its
/// name or its old one, or `seeds`, the seeds of the runs (each may be a list).
const Setting* profile_setting(const std::string& key) {
  if (key == "seeds") return find_setting("seed");
  const Setting* s = find_setting(key);
  return s != nullptr && s->in_spec ? s : nullptr;
}

bool has_type(const Setting& s, const toml::node& v) {
  switch (s.type) {
    case SettingType::kInteger:
    case SettingType::kSeed:
      return v.is_integer();
    case SettingType::kNumber:
      return v.is_floating_point() || v.is_integer();
    case SettingType::kFlag:
      return v.is_boolean();
    case SettingType::kText:
    case SettingType::kHeads:
      break;
  }
  return v.is_string();
}

SettingValue value_of(const toml::node& v) {
  if (v.is_integer()) return static_cast<Index>(v.as_integer()->get());
  if (v.is_floating_point()) return v.as_floating_point()->get();
  if (v.is_boolean()) return v.as_boolean()->get();
  return v.as_string()->get();
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

/// A value checked where it is written, so that its error names its own place (a heads
/// pattern is checked once the run's integers are known).
void check_value(const Setting& setting, const toml::node& v, const SourceLocation& at,
                 const std::string& context) {
  if (setting.type == SettingType::kHeads) return;
  RunSettings scratch;
  try {
    setting.set(scratch, value_of(v));
  } catch (const InputError& e) {
    throw InputError(at, context + ": " + e.message());
  }
}

/// An experiment's `inputs` table (its keys and types checked), the defaults where it is silent.
InputDistribution input_distribution(const toml::table& in) {
  const auto value = [&](const char* key, double otherwise) {
    return in.get(key) != nullptr ? in.get(key)->value_or(otherwise) : otherwise;
  };
  return InputDistribution{value("variance", 1.0), value("min_norm", 0.0), value("max_norm", 0.0)};
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
    doc->table = toml::parse(read_input_file(file, limits::kTextFileBytes, "experiment file"),
                             file.string());
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
  if (find_claim_kind(spec.claim) == nullptr) {
    throw InputError(location(file, e->get("claim")->source()),
                     "experiment: claim '" + spec.claim + "' is not one of " + claim_kind_names());
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
    // Checked here, as a target file's are: a run would fail later, without a place.
    const InputDistribution inputs = input_distribution(*t);
    if (const std::string problem = targets::input_distribution_problem(
            inputs.variance, inputs.min_norm, inputs.max_norm);
        !problem.empty()) {
      throw InputError(location(file, in->source()), "experiment: inputs: " + problem);
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
    const Setting* setting = profile_setting(std::string(k.str()));
    if (setting == nullptr)
      throw InputError(location(file, node.source()),
                       "profile." + profile + ": unknown key '" + std::string(k.str()) + "'");
    // An old name reads as the key's name (labels included).
    const std::string key = k.str() == "seeds" ? "seeds" : std::string(setting->name);
    if (std::any_of(axes.begin(), axes.end(), [&](const auto& a) { return a.first == key; }))
      throw InputError(location(file, node.source()),
                       "profile." + profile + ": '" + key + "' is given twice");
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
      if (!has_type(*setting, *v))
        throw InputError(location(file, v->source()),
                         "profile." + profile + ": '" + key + "' has a value of the wrong type");
      check_value(*setting, *v, location(file, v->source()), "profile." + profile);
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
    RunSettings settings{r.task, r.model, r.training, {}};
    for (std::size_t a = 0; a < axes.size(); ++a) {
      const std::string& key = axes[a].first;
      const toml::node& v = *axes[a].second[at[a]];
      if (std::find(swept.begin(), swept.end(), key) != swept.end()) r.labels[key] = value_text(v);
      if (v.is_integer()) integers[key] = static_cast<long>(v.as_integer()->get());
      if (key == "heads") {  // a pattern of the run's integers, resolved below
        heads_pattern = v.as_string()->get();
        heads_node = &v;
      } else {
        profile_setting(key)->set(settings, value_of(v));  // checked by check_value
      }
    }
    r.task = settings.task;
    r.model = settings.model;
    r.training = settings.training;
    r.labels["seed"] = std::to_string(r.training.seed);
    const SourceLocation heads_at =
        heads_node ? location(file, heads_node->source()) : location(file, p->source());
    try {
      if (integers.count("T") == 0) integers["T"] = r.task.tokens;
      r.model.heads = resolve_heads(heads_pattern, integers, heads_at);
      if (r.labels.count("heads") != 0)
        r.labels["heads_pattern"] = r.labels["heads"];  // as written
      r.labels["heads"] = r.model.heads_text();
      r.labels["L"] = std::to_string(r.model.heads.size());
      if (!formula.empty()) {
        r.bindings = {{"T", r.task.tokens}};
        for (const auto& [k, v] : integers) {
          if (k == "D" || k == "k" || k == "T0") r.bindings[k] = v;
        }
        if (r.task.token_dim == 0) r.task.token_dim = core::defaults::kTokenDim;
        if (const toml::table* in = e.get("inputs") ? e.get("inputs")->as_table() : nullptr)
          r.inputs = input_distribution(*in);
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
      r.model.positional = settings.positional.value_or(known->second.positional);
      r.model.validate();
      r.training.validate();
      check_training_memory(r.model, r.training);
    } catch (const InputError& err) {
      std::string labels;
      for (const auto& [k, v] : r.labels) labels += (labels.empty() ? "" : ", ") + k + " = " + v;
      throw InputError(err.where().line > 0 ? err.where() : heads_at,
                       "profile." + profile + " (" + labels + "): " + err.message());
    }
    r.key = run_key(r);
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

std::vector<ExperimentSpec> load_specs(const std::vector<std::string>& names,
                                       const fs::path& directory) {
  std::vector<std::pair<fs::path, std::string>> files;  // with how a command names each
  if (names.empty()) {
    for (const fs::directory_entry& e : fs::directory_iterator(directory)) {
      if (e.path().extension() == ".toml") files.emplace_back(e.path(), e.path().stem().string());
    }
    std::sort(files.begin(), files.end());
  }
  for (const std::string& n : names) {
    const fs::path named = directory / (n + ".toml");
    files.emplace_back(fs::is_regular_file(n) || !fs::is_regular_file(named) ? fs::path(n) : named,
                       n);
  }
  std::vector<ExperimentSpec> specs;
  for (const auto& [file, called] : files) {
    specs.push_back(ExperimentSpec::load(file));
    specs.back().called = called;
  }
  return specs;
}

}  // namespace infoflow::experiments
