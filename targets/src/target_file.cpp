#include "infoflow/targets/target_file.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>
#include <sstream>

#include <toml++/toml.h>

#include "infoflow/core/limits.hpp"
#include "infoflow/core/read_file.hpp"

namespace infoflow::targets {

namespace fs = std::filesystem;

extern const char* const kBuiltinTargets;  // builtin_targets.cpp, generated from targets.toml

namespace {

SourceLocation location(const fs::path& file, const toml::source_region& region) {
  return SourceLocation{file.string(), region.begin.line, region.begin.column};
}

class Reader {
 public:
  Reader(const toml::table& table, fs::path file) : table_(table), file_(std::move(file)) {}

  [[nodiscard]] SourceLocation where() const { return location(file_, table_.source()); }
  [[nodiscard]] SourceLocation where(const toml::node& n) const {
    return location(file_, n.source());
  }

  const toml::node* get(const std::string& key) {
    known_.insert(key);
    return table_.get(key);
  }

  /// A string and the location of its first character.
  std::optional<std::pair<std::string, SourceLocation>> string(const std::string& key,
                                                               bool required) {
    const toml::node* n = get(key);
    if (n == nullptr) {
      if (required) throw InputError(where(), "target: missing key '" + key + "'");
      return std::nullopt;
    }
    const auto* s = n->as_string();
    if (s == nullptr) throw InputError(where(*n), "target: '" + key + "' must be a string");
    SourceLocation at = where(*n);
    ++at.column;  // after the opening quote
    return std::make_pair(s->get(), at);
  }

  std::optional<long> integer(const std::string& key, long minimum) {
    const toml::node* n = get(key);
    if (n == nullptr) return std::nullopt;
    const auto* i = n->as_integer();
    if (i == nullptr || i->get() < minimum) {
      throw InputError(where(*n),
                       "target: '" + key + "' must be an integer >= " + std::to_string(minimum));
    }
    return static_cast<long>(i->get());
  }

  void reject_unknown(const std::string& known =
                          "name, formula, family, same_as, d, set, "
                          "inputs, E, pe, architectures, notes, task") const {
    for (const auto& [key, node] : table_) {
      if (known_.count(std::string(key.str())) == 0) {
        throw InputError(where(node), "target: unknown key '" + std::string(key.str()) +
                                          "' (known: " + known + ")");
      }
    }
  }

  [[nodiscard]] const fs::path& file() const { return file_; }

 private:
  const toml::table& table_;
  fs::path file_;
  std::set<std::string> known_;
};

double number(const toml::node& n, const Reader& r, const std::string& key) {
  if (const auto* f = n.as_floating_point()) return f->get();
  if (const auto* i = n.as_integer()) return static_cast<double>(i->get());
  throw InputError(r.where(n), "target: inputs." + key + " must be a number");
}

/// Whether `text` is a whole integer that fits in a long, and then its value.
bool parse_integer(std::string_view text, long* value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return !text.empty() && error == std::errc() && end == text.data() + text.size();
}

/// "3.." or "1..T": the upper limit none, an integer, or the name of one of the task's.
IntegerLimit parse_limit(const toml::node& n, const Reader& r, const std::string& key) {
  const auto* s = n.as_string();
  const std::string text = s == nullptr ? "" : s->get();
  const std::size_t dots = text.find("..");
  IntegerLimit limit;
  long high = 0;
  const bool valid =
      dots != std::string::npos && parse_integer(std::string_view(text).substr(0, dots), &limit.low);
  if (valid) limit.high = text.substr(dots + 2);
  const bool name = !limit.high.empty() && std::isalpha(static_cast<unsigned char>(limit.high[0])) &&
                    std::all_of(limit.high.begin(), limit.high.end(), [](unsigned char c) {
                      return std::isalnum(c) != 0 || c == '_';
                    });
  if (!valid || !(limit.high.empty() || name || parse_integer(limit.high, &high))) {
    throw InputError(r.where(n), "target: task.limits." + key +
                                     " must be a string low.. or low..high, e.g. \"1..T\"");
  }
  return limit;
}

TaskSpec read_task(const toml::node& node, const Reader& outer, bool positional) {
  const toml::table* table = node.as_table();
  if (table == nullptr) throw InputError(outer.where(node), "target: 'task' must be a table");
  Reader r(*table, outer.file());
  TaskSpec task;
  task.description = r.string("description", true)->first;
  task.positional = positional;
  if (const toml::node* pe = r.get("pe")) {
    const auto* b = pe->as_boolean();
    if (b == nullptr) throw InputError(r.where(*pe), "target: task.pe must be true or false");
    task.positional = b->get();
  }
  if (const auto summation = r.string("summation", false)) {
    if (summation->first != "blocked" && summation->first != "per_token")
      throw InputError(summation->second, "target: task.summation must be per_token or blocked");
    task.summation = summation->first == "blocked" ? Summation::kBlocked : Summation::kPerToken;
  }
  if (const toml::node* limits = r.get("limits")) {
    const toml::table* l = limits->as_table();
    if (l == nullptr)
      throw InputError(r.where(*limits),
                       "target: task.limits must be a table, e.g. { k = \"1..T\" }");
    for (const auto& [k, v] : *l)
      task.limits[std::string(k.str())] = parse_limit(v, r, std::string(k.str()));
  }
  if (const toml::node* plain = r.get("plain_norm")) {
    const toml::table* p = plain->as_table();
    if (p == nullptr) throw InputError(r.where(*plain), "target: task.plain_norm must be a table");
    Reader pr(*p, outer.file());
    const auto formula = pr.string("formula", true);
    task.plain_norm = Formula::parse(formula->first, formula->second);
    task.plain_norm_description = pr.string("description", true)->first;
    pr.reject_unknown("formula, description");
  }
  r.reject_unknown("description, limits, pe, summation, plain_norm");
  return task;
}

}  // namespace

const std::vector<TargetSpec>& builtin_targets() {
  static const std::vector<TargetSpec> targets = parse_targets(kBuiltinTargets, "targets.toml");
  return targets;
}

std::vector<long> parse_heads(const std::string& text, const SourceLocation& where) {
  std::vector<long> heads;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string part =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::size_t used = 0;
    long value = 0;
    try {
      value = std::stol(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != part.size() || value < 1) {
      throw InputError(
          where,
          "heads must be positive integers separated by commas, e.g. 2,2 (got '" + text + "')");
    }
    heads.push_back(value);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return heads;
}

std::vector<TargetSpec> load_targets(const fs::path& file) {
  return parse_targets(read_input_file(file, limits::kTextFileBytes, "target file"), file);
}

std::vector<TargetSpec> parse_targets(std::string_view text, const fs::path& file) {
  toml::table root;
  try {
    root = toml::parse(text, file.string());
  } catch (const toml::parse_error& e) {
    throw InputError(location(file, e.source()), std::string(e.description()));
  }
  std::vector<TargetSpec> out;
  for (const auto& [key, node] : root) {
    if (key.str() != "target") {
      throw InputError(location(file, node.source()),
                       "unknown table '" + std::string(key.str()) + "' (expected [[target]])");
    }
  }
  const toml::array* targets = root["target"].as_array();
  if (targets == nullptr)
    throw InputError(SourceLocation{file.string(), 1, 1}, "no [[target]] table");
  std::set<std::string> names;
  for (const toml::node& item : *targets) {
    const toml::table* table = item.as_table();
    if (table == nullptr)
      throw InputError(location(file, item.source()), "[[target]] must be a table");
    Reader r(*table, file);
    TargetSpec t;
    t.where = r.where();
    const auto name = r.string("name", true);
    t.name = name->first;
    if (t.name.empty() || t.name.find_first_not_of(
                              "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
                              std::string::npos) {
      throw InputError(name->second,
                       "target name '" + t.name + "' may use letters, digits and '_' only");
    }
    if (!names.insert(t.name).second)
      throw InputError(name->second, "duplicate target name '" + t.name + "'");
    const auto formula = r.string("formula", true);
    t.formula = Formula::parse(formula->first, formula->second);
    if (const auto family = r.string("family", false)) t.family = family->first;
    if (const auto same = r.string("same_as", false)) {
      if (r.get("family") != nullptr)
        throw InputError(same->second, "target: give 'family' or 'same_as', not both");
      t.family = same->first;
      t.same_as_family = true;
    }
    t.token_dim = r.integer("d", 1).value_or(core::defaults::kTokenDim);
    t.embedding = r.integer("E", 1).value_or(core::defaults::kEmbedding);
    t.positional = t.formula.reads_positions();
    if (const toml::node* pe = r.get("pe")) {
      const auto* b = pe->as_boolean();
      if (b == nullptr) throw InputError(r.where(*pe), "target: 'pe' must be true or false");
      t.positional = b->get();
    }
    if (const toml::node* set = r.get("set")) {
      const toml::table* s = set->as_table();
      if (s == nullptr)
        throw InputError(r.where(*set), "target: 'set' must be a table, e.g. { D = 2 }");
      for (const auto& [k, v] : *s) {
        const auto* i = v.as_integer();
        if (i == nullptr)
          throw InputError(r.where(v),
                           "target: set." + std::string(k.str()) + " must be an integer");
        t.set[std::string(k.str())] = static_cast<long>(i->get());
      }
    }
    if (const toml::node* inputs = r.get("inputs")) {
      const toml::table* s = inputs->as_table();
      if (s == nullptr) throw InputError(r.where(*inputs), "target: 'inputs' must be a table");
      for (const auto& [k, v] : *s) {
        const std::string key(k.str());
        if (key == "variance")
          t.variance = number(v, r, key);
        else if (key == "min_norm")
          t.min_norm = number(v, r, key);
        else if (key == "max_norm")
          t.max_norm = number(v, r, key);
        else
          throw InputError(r.where(v), "target: unknown key inputs." + key +
                                           " (known: variance, min_norm, max_norm)");
      }
      if (const std::string problem =
              input_distribution_problem(t.variance, t.min_norm, t.max_norm);
          !problem.empty()) {
        throw InputError(r.where(*inputs), "target: inputs: " + problem);
      }
    }
    if (const toml::node* archs = r.get("architectures")) {
      const toml::array* a = archs->as_array();
      if (a == nullptr)
        throw InputError(r.where(*archs), "target: 'architectures' must be an array of strings");
      for (const toml::node& h : *a) {
        const auto* s = h.as_string();
        if (s == nullptr)
          throw InputError(r.where(h),
                           "target: an architecture is a string of heads, e.g. \"2,2\"");
        SourceLocation at = r.where(h);
        ++at.column;
        t.architectures.push_back(parse_heads(s->get(), at));
      }
    }
    if (const auto notes = r.string("notes", false)) t.notes = notes->first;
    if (const toml::node* task = r.get("task")) t.task = read_task(*task, r, t.positional);
    r.reject_unknown();
    out.push_back(std::move(t));
  }
  return out;
}

std::string input_distribution_problem(double variance, double min_norm, double max_norm) {
  const auto text = [](double x) {
    std::ostringstream out;
    out << x;  // as %g: -1, 1e-320, inf, nan
    return out.str();
  };
  if (!(variance >= 1e-6 && variance <= 1e6))
    return "variance must be between 1e-06 and 1e+06 (got " + text(variance) + ")";
  if (!(min_norm >= 0 && std::isfinite(min_norm)))
    return "min_norm must be finite and >= 0 (got " + text(min_norm) + ")";
  if (!(max_norm == 0 || (max_norm >= min_norm && std::isfinite(max_norm))))
    return "max_norm must be 0 (no clamp) or finite and >= min_norm (got " + text(max_norm) + ")";
  return "";
}

std::vector<std::string> unset_integers(const TargetSpec& target) {
  std::vector<std::string> out;
  for (const std::string& n : target.formula.free_integers()) {
    if (n != "T" && target.set.count(n) == 0) out.push_back(n);
  }
  return out;
}

std::string unset_integer_for_conditions(const TargetSpec& target, bool conditions_wanted) {
  const std::vector<std::string> unset = unset_integers(target);
  if (unset.empty()) return "";
  if (unset.size() > 1 || !conditions_wanted) {
    std::string names;
    for (const std::string& n : unset) names += (names.empty() ? "" : ", ") + n;
    const std::string message = "the formula needs values for " + names + " (e.g. --set " +
                                unset.front() +
                                "=3); with one of them unset, text output gives the condition "
                                "on it";
    // A formula given on the command line has no place to name.
    if (target.where.file.empty()) throw InputError(message);
    throw InputError(target.where, message);
  }
  return unset.front();
}

}  // namespace infoflow::targets
