#ifndef INFOFLOW_THEOREMS_CATALOGUE_HPP_
#define INFOFLOW_THEOREMS_CATALOGUE_HPP_

/// \file
/// The catalogue of bounds: one TOML file per paper (theorems/catalogue/*.toml) plus a file of
/// task families (tasks.toml). Loading validates everything a checker relies on and reports the
/// first problem with its file, line and column; docs/adding_a_theorem.md shows the format.

#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "infoflow/core/error.hpp"
#include "infoflow/symbolic/expression.hpp"
#include "infoflow/symbolic/rate.hpp"
#include "infoflow/symbolic/sign.hpp"

namespace infoflow::theorems {

enum class Kind { kUpper, kLower, kTight };
/// Where a bound comes from: stated in the papers (seed, predecessor), this tool's (derived,
/// formalization), unproved (conjecture), or the catalogue author's own result (ours: a claim,
/// as a theorem is, printed as the author labels it).
enum class Provenance { kSeed, kPredecessor, kDerived, kFormalization, kConjecture, kOwn };

std::string to_text(Kind kind);
std::string to_text(Provenance provenance);
symbolic::Landau landau_of(Kind kind);
inline std::ostream& operator<<(std::ostream& out, Kind kind) { return out << to_text(kind); }
inline std::ostream& operator<<(std::ostream& out, Provenance p) { return out << to_text(p); }

/// A relation as written in the catalogue, with where it was written.
struct WrittenRelation {
  symbolic::Relation relation;
  std::string field;  ///< "depth", "heads", "constraints" or "hypotheses"
  SourceLocation where;
};

struct Paper {
  std::string id;
  std::string title;
  std::string authors;
  std::string reference;
  int year = 0;
  /// Its BibTeX key (theorems/catalogue/references.bib); empty: the tool's own (derived) bounds,
  /// which are cited as "this work" rather than as a paper.
  std::string cite;
  std::filesystem::path file;
};

/// One bound: `quantity` is `kind`-bounded by `rate` in `setting`, under `hypotheses`.
struct Entry {
  std::string id;
  std::string paper;  ///< Paper::id
  std::string source; ///< theorem number or section
  Provenance provenance = Provenance::kSeed;
  /// How the provenance is printed, as the author wrote it ("Prop. 3 of our paper"); empty: the
  /// provenance's word.
  std::string provenance_label;
  Kind kind = Kind::kUpper;
  std::string quantity;
  std::string task;
  std::vector<WrittenRelation> setting;     ///< depth, heads and other constraints
  std::vector<WrittenRelation> hypotheses;  ///< regime conditions of the theorem
  symbolic::Expr rate_written;
  symbolic::Rate rate;
  std::string notes;
  std::vector<std::string> derived_from;  ///< for provenance "derived"
  /// What the theorem needs of the target, in words; the engine checks the bounded variation
  /// all of them need (docs/infoflow_engine.md, "S Scope").
  std::vector<std::string> assumes;
  SourceLocation where;                   ///< the entry's table

  /// The provenance as printed: its label, else its word.
  [[nodiscard]] std::string provenance_text() const;
  /// Setting and hypotheses together, over the registry's shared symbols.
  [[nodiscard]] symbolic::Domain domain() const;
  [[nodiscard]] bool is_claim() const {
    return provenance != Provenance::kConjecture && provenance != Provenance::kFormalization;
  }
  [[nodiscard]] bool bounds_above() const { return kind != Kind::kLower; }
  [[nodiscard]] bool bounds_below() const { return kind != Kind::kUpper; }
};

struct TaskFamily {
  std::string id;
  std::string parent;  ///< empty for a root
  std::string description;
};

class Catalogue {
 public:
  /// Loads tasks.toml and every other *.toml of `directory`, in file-name order.
  static Catalogue load_directory(const std::filesystem::path& directory,
                                  const std::vector<std::filesystem::path>& more = {});
  /// Loads the given files; the one named tasks.toml gives the task families.
  static Catalogue load_files(const std::vector<std::filesystem::path>& files);

  [[nodiscard]] const std::vector<Paper>& papers() const { return papers_; }
  [[nodiscard]] const std::vector<Entry>& entries() const { return entries_; }
  [[nodiscard]] const std::vector<TaskFamily>& tasks() const { return tasks_; }
  [[nodiscard]] const Entry* find(const std::string& id) const;
  [[nodiscard]] const Paper* find_paper(const std::string& id) const;
  [[nodiscard]] const TaskFamily* find_task(const std::string& id) const;
  /// Is family `inner` equal to or inside family `outer`?
  [[nodiscard]] bool task_within(const std::string& inner, const std::string& outer) const;

  /// Adds an entry built in code (a derived bound); throws InputError on a duplicate id.
  void add(Entry entry);
  void add_task(TaskFamily task);

 private:
  std::vector<Paper> papers_;
  std::vector<Entry> entries_;
  std::vector<TaskFamily> tasks_;
  std::map<std::string, std::size_t> by_id_;
};

/// The catalogue shipped with infoflow, found next to the executable's build or install tree.
std::filesystem::path default_catalogue_directory();

}  // namespace infoflow::theorems

#endif  // INFOFLOW_THEOREMS_CATALOGUE_HPP_
