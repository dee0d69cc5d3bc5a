#include "infoflow/theorems/catalogue.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <system_error>

#include <toml++/toml.h>

#include "infoflow/core/limits.hpp"
#include "infoflow/core/read_file.hpp"

namespace infoflow::theorems {
namespace {

namespace fs = std::filesystem;
using symbolic::Domain;

SourceLocation location(const fs::path& file, const toml::source_region& region) {
  return SourceLocation{file.string(), region.begin.line, region.begin.column};
}

/// Reads one TOML table, remembering which keys were used so unknown ones can be reported.
class TableReader {
 public:
  TableReader(const toml::table& table, fs::path file, std::string what)
      : table_(table), file_(std::move(file)), what_(std::move(what)) {}

  [[nodiscard]] SourceLocation where() const { return location(file_, table_.source()); }

  [[nodiscard]] SourceLocation where_of(const toml::node& node) const {
    return location(file_, node.source());
  }

  /// A string; the location points at its first character (after the opening quote).
  std::optional<std::string> string(const std::string& key, bool required,
                                    SourceLocation* at = nullptr) {
    known_.insert(key);
    const toml::node* node = table_.get(key);
    if (node == nullptr) {
      if (required) throw InputError(where(), what_ + ": missing key '" + key + "'");
      return std::nullopt;
    }
    const auto* value = node->as_string();
    if (value == nullptr) throw InputError(where_of(*node), what_ + ": '" + key + "' must be a string");
    if (at != nullptr) {
      *at = where_of(*node);
      ++at->column;
    }
    return value->get();
  }

  std::optional<int> integer(const std::string& key) {
    known_.insert(key);
    const toml::node* node = table_.get(key);
    if (node == nullptr) return std::nullopt;
    const auto* value = node->as_integer();
    if (value == nullptr) throw InputError(where_of(*node), what_ + ": '" + key + "' must be an integer");
    return static_cast<int>(value->get());
  }

  /// An array of strings, each with its location.
  std::vector<std::pair<std::string, SourceLocation>> strings(const std::string& key) {
    known_.insert(key);
    std::vector<std::pair<std::string, SourceLocation>> out;
    const toml::node* node = table_.get(key);
    if (node == nullptr) return out;
    const auto* array = node->as_array();
    if (array == nullptr) {
      throw InputError(where_of(*node), what_ + ": '" + key + "' must be an array of strings");
    }
    for (const toml::node& item : *array) {
      const auto* value = item.as_string();
      if (value == nullptr) throw InputError(where_of(item), what_ + ": '" + key + "' holds a non-string");
      SourceLocation at = where_of(item);
      ++at.column;
      out.emplace_back(value->get(), at);
    }
    return out;
  }

  void reject_unknown_keys() const {
    for (const auto& [key, node] : table_) {
      if (known_.count(std::string(key.str())) == 0) {
        throw InputError(location(file_, key.source()),
                         what_ + ": unknown key '" + std::string(key.str()) + "'");
      }
    }
  }

 private:
  const toml::table& table_;
  fs::path file_;
  std::string what_;
  std::set<std::string> known_;
};

template <typename Enum>
Enum parse_enum(const std::string& text, const std::vector<std::pair<std::string, Enum>>& names,
                const SourceLocation& where, const std::string& key) {
  for (const auto& [name, value] : names) {
    if (name == text) return value;
  }
  std::string allowed;
  for (const auto& [name, value] : names) allowed += (allowed.empty() ? "" : ", ") + name;
  throw InputError(where, "'" + key + "' is '" + text + "'; expected one of: " + allowed);
}

toml::table parse_toml(const fs::path& file) {
  try {
    return toml::parse(read_input_file(file, limits::kTextFileBytes, "catalogue file"),
                       file.string());
  } catch (const toml::parse_error& e) {
    throw InputError(location(file, e.source()), std::string(e.description()));
  }
}

void add_relations(std::vector<WrittenRelation>& out, const std::string& text,
                   const SourceLocation& at, const std::string& field) {
  for (symbolic::Relation& r : symbolic::parse_relations(text, at)) {
    out.push_back(WrittenRelation{std::move(r), field, at});
  }
}

Entry read_entry(const toml::table& table, const fs::path& file, const std::string& paper) {
  TableReader reader(table, file, "entry");
  Entry e;
  e.where = reader.where();
  e.paper = paper;
  SourceLocation at;
  e.id = *reader.string("id", true, &at);
  if (e.id.empty() || e.id.find_first_of(" \t\"\\") != std::string::npos) {
    throw InputError(at, "entry id '" + e.id + "' must be non-empty, without spaces or quotes");
  }
  e.source = *reader.string("source", true);
  e.provenance = parse_enum<Provenance>(*reader.string("provenance", true, &at),
                                        {{"seed", Provenance::kSeed},
                                         {"predecessor", Provenance::kPredecessor},
                                         {"derived", Provenance::kDerived},
                                         {"formalization", Provenance::kFormalization},
                                         {"conjecture", Provenance::kConjecture},
                                         {"ours", Provenance::kOwn}},
                                        at, "provenance");
  e.provenance_label = reader.string("provenance_label", false, &at).value_or("");
  if (e.provenance_label.find_first_not_of(" \t") == std::string::npos &&
      !e.provenance_label.empty()) {
    throw InputError(at, "entry " + e.id + ": provenance_label is blank (leave it out to print '" +
                             to_text(e.provenance) + "')");
  }
  e.kind = parse_enum<Kind>(*reader.string("kind", true, &at),
                            {{"upper", Kind::kUpper}, {"lower", Kind::kLower}, {"tight", Kind::kTight}},
                            at, "kind");
  e.quantity = *reader.string("quantity", true);
  e.task = *reader.string("task", true);
  for (const char* field : {"depth", "heads"}) {
    if (auto text = reader.string(field, false, &at)) add_relations(e.setting, *text, at, field);
  }
  for (const auto& [text, where] : reader.strings("constraints")) {
    add_relations(e.setting, text, where, "constraints");
  }
  for (const auto& [text, where] : reader.strings("hypotheses")) {
    add_relations(e.hypotheses, text, where, "hypotheses");
  }
  const std::string rate_text = *reader.string("rate", true, &at);
  e.rate_written = symbolic::parse_expression(rate_text, at);
  e.rate = symbolic::Rate::from_ex(symbolic::to_ex(e.rate_written), at);
  e.notes = reader.string("notes", false).value_or("");
  for (const auto& [text, where] : reader.strings("derived_from")) e.derived_from.push_back(text);
  for (const auto& [text, where] : reader.strings("assumes")) e.assumes.push_back(text);
  reader.reject_unknown_keys();
  return e;
}

}  // namespace

std::string to_text(Kind kind) {
  switch (kind) {
    case Kind::kUpper: return "upper";
    case Kind::kLower: return "lower";
    case Kind::kTight: return "tight";
  }
  return {};
}

std::string to_text(Provenance provenance) {
  switch (provenance) {
    case Provenance::kSeed: return "seed";
    case Provenance::kPredecessor: return "predecessor";
    case Provenance::kDerived: return "derived";
    case Provenance::kFormalization: return "formalization";
    case Provenance::kConjecture: return "conjecture";
    case Provenance::kOwn: return "ours";
  }
  return {};
}

symbolic::Landau landau_of(Kind kind) {
  switch (kind) {
    case Kind::kUpper: return symbolic::Landau::kBigO;
    case Kind::kLower: return symbolic::Landau::kOmega;
    case Kind::kTight: return symbolic::Landau::kTheta;
  }
  return symbolic::Landau::kBigO;
}

std::string Entry::provenance_text() const {
  return provenance_label.empty() ? to_text(provenance) : provenance_label;
}

Domain Entry::domain() const {
  Domain d;
  for (const auto* list : {&setting, &hypotheses}) {
    for (const WrittenRelation& w : *list) {
      d.require(w.relation, w.field + " " + symbolic::to_text(w.relation) + " of " + id);
    }
  }
  return d;
}

Catalogue Catalogue::load_directory(const fs::path& directory, const std::vector<fs::path>& more) {
  if (!fs::is_directory(directory)) {
    throw InputError(SourceLocation{directory.string()}, "not a catalogue directory");
  }
  std::vector<fs::path> files;
  for (const fs::directory_entry& item : fs::directory_iterator(directory)) {
    if (item.is_regular_file() && item.path().extension() == ".toml") files.push_back(item.path());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    // An empty folder would otherwise check clean, as if it held a consistent catalogue.
    throw InputError(SourceLocation{directory.string()}, "no catalogue files (*.toml) here");
  }
  for (const fs::path& f : more) {
    if (!fs::is_regular_file(f)) throw InputError(SourceLocation{f.string()}, "no such catalogue file");
    files.push_back(f);
  }
  return load_files(files);
}

Catalogue Catalogue::load_files(const std::vector<fs::path>& files) {
  Catalogue catalogue;
  // Task families first: entries name them. tasks.toml holds only families; another file may
  // add families of its own beside its entries (derive --format toml does).
  std::map<std::string, SourceLocation> parent_places;  // where each family names its parent
  for (const fs::path& file : files) {
    const toml::table root = parse_toml(file);
    for (const auto& [key, node] : root) {
      if (key.str() != "task" && file.filename() == "tasks.toml") {
        throw InputError(location(file, key.source()), "unknown key '" + std::string(key.str()) + "'");
      }
    }
    if (const toml::array* tasks = root["task"].as_array()) {
      for (const toml::node& node : *tasks) {
        const toml::table* table = node.as_table();
        if (table == nullptr) throw InputError(location(file, node.source()), "[[task]] must be a table");
        TableReader reader(*table, file, "task");
        TaskFamily t;
        SourceLocation id_at;
        SourceLocation parent_at;
        t.id = *reader.string("id", true, &id_at);
        t.parent = reader.string("parent", false, &parent_at).value_or("");
        if (catalogue.find_task(t.id) != nullptr) {
          throw InputError(id_at, "duplicate task family '" + t.id + "'");
        }
        parent_places[t.id] = t.parent.empty() ? id_at : parent_at;
        t.description = reader.string("description", false).value_or("");
        reader.reject_unknown_keys();
        catalogue.add_task(std::move(t));
      }
    }
  }
  for (const TaskFamily& t : catalogue.tasks_) {
    if (!t.parent.empty() && catalogue.find_task(t.parent) == nullptr) {
      throw InputError(parent_places.at(t.id),
                       "task family '" + t.id + "' has an unknown parent '" + t.parent + "'");
    }
    std::string current = t.parent;
    std::string cycle = t.id;
    for (std::size_t steps = 0; !current.empty(); ++steps) {
      cycle += " -> " + current;
      if (current == t.id || steps > catalogue.tasks_.size()) {
        throw InputError(parent_places.at(t.id), "task family '" + t.id + "': its parents form " +
                                                     "a cycle (" + cycle + " ...)");
      }
      current = catalogue.find_task(current)->parent;
    }
  }
  std::map<std::string, SourceLocation> first_seen;
  for (const fs::path& file : files) {
    if (file.filename() == "tasks.toml") continue;
    const toml::table root = parse_toml(file);
    for (const auto& [key, node] : root) {
      if (key.str() != "paper" && key.str() != "entry" && key.str() != "task") {
        throw InputError(location(file, key.source()), "unknown key '" + std::string(key.str()) + "'");
      }
    }
    const toml::table* paper_table = root["paper"].as_table();
    if (paper_table == nullptr) {
      throw InputError(SourceLocation{file.string(), 1, 1}, "missing [paper] table");
    }
    TableReader paper_reader(*paper_table, file, "paper");
    Paper paper;
    paper.id = *paper_reader.string("id", true);
    paper.title = *paper_reader.string("title", true);
    paper.authors = paper_reader.string("authors", false).value_or("");
    paper.reference = paper_reader.string("reference", false).value_or("");
    paper.year = paper_reader.integer("year").value_or(0);
    paper.cite = paper_reader.string("cite", false).value_or("");
    if (paper.cite.find_first_of(" ,{}%#\\") != std::string::npos) {
      throw InputError(SourceLocation{file.string(), 1, 1},
                       "[paper] cite = '" + paper.cite +
                           "': a BibTeX key has no spaces, commas, braces, % or #");
    }
    paper.file = file;
    paper_reader.reject_unknown_keys();
    catalogue.papers_.push_back(paper);
    const toml::array* entries = root["entry"].as_array();
    if (entries == nullptr) continue;
    for (const toml::node& node : *entries) {
      const toml::table* table = node.as_table();
      if (table == nullptr) throw InputError(location(file, node.source()), "[[entry]] must be a table");
      Entry entry = read_entry(*table, file, paper.id);
      if (const auto seen = first_seen.find(entry.id); seen != first_seen.end()) {
        throw InputError(entry.where, "duplicate entry id '" + entry.id + "' (first defined at " +
                                          seen->second.to_string() + ")");
      }
      if (catalogue.find_task(entry.task) == nullptr) {
        throw InputError(entry.where, "entry " + entry.id + ": unknown task family '" + entry.task +
                                          "' (see tasks.toml)");
      }
      first_seen.emplace(entry.id, entry.where);
      catalogue.add(std::move(entry));
    }
  }
  // Contradictory hypotheses make an entry claim nothing: reject them as input errors.
  symbolic::SignOracle oracle;
  for (const Entry& e : catalogue.entries_) {
    if (oracle.satisfiable(e.domain()).status == symbolic::Satisfiability::kUnsatisfiable) {
      throw InputError(e.where, "entry " + e.id + ": its setting and hypotheses contradict each "
                                "other (" + e.domain().to_text() + ")");
    }
  }
  return catalogue;
}

const Entry* Catalogue::find(const std::string& id) const {
  const auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &entries_[it->second];
}

const Paper* Catalogue::find_paper(const std::string& id) const {
  for (const Paper& p : papers_) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

const TaskFamily* Catalogue::find_task(const std::string& id) const {
  for (const TaskFamily& t : tasks_) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

bool Catalogue::task_within(const std::string& inner, const std::string& outer) const {
  std::string current = inner;
  for (std::size_t depth = 0; depth <= tasks_.size(); ++depth) {
    if (current == outer) return true;
    const TaskFamily* t = find_task(current);
    if (t == nullptr || t->parent.empty()) return false;
    current = t->parent;
  }
  return false;  // a cycle in the parents
}

void Catalogue::add(Entry entry) {
  if (by_id_.count(entry.id) > 0) {
    throw InputError(entry.where, "duplicate entry id '" + entry.id + "'");
  }
  by_id_[entry.id] = entries_.size();
  entries_.push_back(std::move(entry));
}

void Catalogue::add_task(TaskFamily task) {
  if (find_task(task.id) != nullptr) throw InputError("duplicate task family '" + task.id + "'");
  tasks_.push_back(std::move(task));
}

fs::path default_catalogue_directory() {
  if (const char* env = std::getenv("INFOFLOW_CATALOGUE")) return env;
  // An installed program, PREFIX/bin/infoflow, reads PREFIX/share/infoflow/catalogue (what
  // `cmake --install` puts there); a program of the build tree, the source tree's.
  std::error_code ignored;
  const fs::path program = fs::read_symlink("/proc/self/exe", ignored);
  if (!program.empty() && program.parent_path().filename() == "bin") {
    const fs::path installed =
        program.parent_path().parent_path() / "share" / "infoflow" / "catalogue";
    if (fs::is_directory(installed, ignored)) return installed;
  }
  return INFOFLOW_CATALOGUE_DIR;
}

}  // namespace infoflow::theorems
