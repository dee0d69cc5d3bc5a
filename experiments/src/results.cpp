#include "infoflow/experiments/results.hpp"

#include <cerrno>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "infoflow/core/atomic_file.hpp"
#include "infoflow/core/error.hpp"
#include "infoflow/core/limits.hpp"
#include "infoflow/core/read_file.hpp"
#include "infoflow/numeric/build.hpp"
#include "results_file.hpp"
#include "run_key.hpp"

#include <fcntl.h>
#include <unistd.h>

namespace infoflow::experiments {

using namespace numeric;  // the configuration types a run is made of

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// An integer field of a record, at least `least`; a fraction, another type or an integer out
/// of range makes a corrupt record (converting it would be undefined or wrong).
template <typename Integer>
Integer integer_field(const json& j, const char* field, Integer least) {
  const bool fits = j.is_number_unsigned()  ? std::in_range<Integer>(j.get<std::uint64_t>())
                    : j.is_number_integer() ? std::in_range<Integer>(j.get<std::int64_t>())
                                            : false;
  if (!fits || j.get<Integer>() < least) {
    throw std::invalid_argument(fmt::format("{}: expected an integer >= {}, found {}", field, least,
                                            j.dump().substr(0, 40)));
  }
  return j.get<Integer>();
}

/// A figure of a record: a number >= 0, or null where it was not finite (a diverged run).
double figure_field(const json& j, const char* field) {
  if (j.is_null()) return std::numeric_limits<double>::infinity();
  if (!j.is_number() || !(j.get<double>() >= 0)) {
    throw std::invalid_argument(
        fmt::format("{}: expected a number >= 0 or null, found {}", field, j.dump().substr(0, 40)));
  }
  return j.get<double>();
}

/// One line as JSON. Its nesting is bounded while it is parsed: a record nests four levels,
/// and comparing or printing a deeper value recurses once a level (80,000 overflowed the stack).
json parse_line(const std::string& line) {
  return json::parse(line, [](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        depth >= static_cast<int>(limits::kNesting)) {
      throw std::invalid_argument(
          fmt::format("nested more than {} levels deep", limits::kNesting));
    }
    return true;
  });
}

/// A text field of a record.
std::string text_field(const json& j, const char* field) {
  if (!j.is_string()) {
    throw std::invalid_argument(
        fmt::format("{}: expected a text, found {}", field, j.dump().substr(0, 40)));
  }
  return j.get<std::string>();
}

/// The record's layout: 1 when it has no `schema` field (written before records carried one).
int schema_of(const json& j) {
  if (!j.contains("schema")) return 1;
  const int schema = integer_field<int>(j.at("schema"), "schema", 1);
  if (schema > kRecordSchema) {
    throw std::invalid_argument(
        fmt::format("schema {} is later than this build reads (up to {})", schema, kRecordSchema));
  }
  return schema;
}

/// A field that records of schema 2 always have and older ones may lack: null when missing.
const json* field_since_2(const json& j, const char* field, int schema) {
  if (j.contains(field)) return &j.at(field);
  if (schema >= 2) throw std::invalid_argument(fmt::format("{}: missing", field));
  return nullptr;
}

/// A record as read, or why it is corrupt (std::exception): the one check of what a results
/// line must hold, for reading (sweep, verify, report) and for merge alike. `doubt`: why a
/// record that reads is not what it says (empty when it is).
RunRecord to_record(const json& j, std::string* doubt) {
  if (!j.is_object()) throw std::invalid_argument("expected an object");
  const int schema = schema_of(j);
  RunRecord r;
  r.key = text_field(j.at("key"), "key");
  r.experiment = text_field(j.at("experiment"), "experiment");
  const json& labels = j.at("labels");
  if (!labels.is_object()) throw std::invalid_argument("labels: expected an object");
  for (const auto& [label, value] : labels.items()) r.labels[label] = text_field(value, "labels");
  r.status = parse_run_status(text_field(j.at("status"), "status"));
  r.best_validation_nmse = figure_field(j.at("best_validation_nmse"), "best_validation_nmse");
  r.final_validation_nmse = figure_field(j.at("final_validation_nmse"), "final_validation_nmse");
  r.steps_done = integer_field<long>(j.at("steps_done"), "steps_done", 0);
  r.diverged_at = integer_field<long>(j.at("diverged_at"), "diverged_at", -1);
  if (j.contains("cooldown_start"))
    r.cooldown_start = integer_field<long>(j.at("cooldown_start"), "cooldown_start", 0);
  r.parameters = integer_field<long>(j.at("parameters"), "parameters", 0);
  r.parameters_theory = integer_field<long>(j.at("parameters_theory"), "parameters_theory", 0);
  r.seconds = figure_field(j.at("seconds"), "seconds");
  if (!std::isfinite(r.seconds)) throw std::invalid_argument("seconds: expected a number");
  r.seed = integer_field<std::uint64_t>(j.at("config").at("training").at("seed"), "seed", 0);
  // Fields no reader uses, checked all the same: a record is whole or corrupt.
  for (const char* field : {"code_version", "march", "build_type"}) {
    if (const json* f = field_since_2(j, field, schema)) (void)text_field(*f, field);
  }
  if (const json* f = field_since_2(j, "best_step", schema))
    (void)integer_field<long>(*f, "best_step", 0);
  if (const json* f = field_since_2(j, "resumed_from", schema))
    (void)integer_field<long>(*f, "resumed_from", 0);
  if (const json* f = field_since_2(j, "target_std", schema)) (void)figure_field(*f, "target_std");
  if (const json* f = field_since_2(j, "converged", schema)) {
    if (!f->is_boolean()) {
      throw std::invalid_argument(
          fmt::format("converged: expected true or false, found {}", f->dump().substr(0, 40)));
    }
    if (f->get<bool>() != r.converged()) {
      throw std::invalid_argument(
          fmt::format("converged: {} against status {}", f->dump(), to_string(r.status)));
    }
  }
  if (const json* curve = field_since_2(j, "curve", schema)) {
    if (!curve->is_array()) throw std::invalid_argument("curve: expected a list");
    for (const json& point : *curve) {
      if (!point.is_array() || point.size() != 2)
        throw std::invalid_argument("curve: expected [step, NMSE] points");
      r.curve.emplace_back(integer_field<long>(point.at(0), "curve step", 0),
                           figure_field(point.at(1), "curve NMSE"));
    }
  }
  // A diverged run's last evaluation was not finite: a finite one says the record is wrong
  // somewhere, and it is no evidence of convergence.
  if ((r.status == RunStatus::kDiverged || r.diverged_at >= 0) &&
      std::isfinite(r.final_validation_nmse)) {
    *doubt = fmt::format(
        "run {} is marked diverged (status {}, diverged_at {}) but its final NMSE {} is finite; "
        "it is read as diverged, not as converged evidence",
        r.key, to_string(r.status), r.diverged_at, r.final_validation_nmse);
    r.status = RunStatus::kDiverged;
  }
  return r;
}

std::string corrupt(const fs::path& file, std::size_t line, const std::exception& e) {
  return fmt::format("{}:{}: corrupt record skipped ({})", file.string(), line,
                     std::string(e.what()).substr(0, 80));
}

/// "run KEY at FIRST and at SECOND differs: ...": one run recorded with two results.
std::string conflict_text(const std::string& key, const std::string& first,
                          const std::string& second, const std::string& fields) {
  return fmt::format("run {} at {} and at {} differs: {}", key, first, second, fields);
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

/// The fields in which two records of one run differ, with both values; bookkeeping may.
std::string differences(const json& first, const json& second) {
  std::string out;
  for (const auto& [field, value] : first.items()) {
    if (kBookkeeping.count(field) != 0 || (second.contains(field) && second.at(field) == value))
      continue;
    out += fmt::format("{}{} {} against {}", out.empty() ? "" : "; ", field, value.dump(),
                       second.contains(field) ? second.at(field).dump() : "(missing)");
  }
  for (const auto& [field, value] : second.items()) {
    if (kBookkeeping.count(field) == 0 && !first.contains(field))
      out += fmt::format("{}{} (missing) against {}", out.empty() ? "" : "; ", field, value.dump());
  }
  return out;
}

}  // namespace

ResultStore::ResultStore(fs::path file) : file_(std::move(file)) {}

std::vector<RunRecord> ResultStore::read(std::vector<std::string>* warnings) const {
  std::vector<RunRecord> out;
  const std::optional<std::string> content =
      read_input_file_if_present(file_, limits::kResultsFileBytes, "results file");
  if (!content) return out;  // nothing run yet
  std::istringstream in(*content);
  const auto warn = [&](std::string message) {
    if (warnings != nullptr) warnings->push_back(std::move(message));
  };
  struct First {
    std::size_t index;  // in `out`
    json record;
    std::string where;
  };
  std::map<std::string, First> seen;
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    const std::string where = fmt::format("{}:{}", file_.string(), number);
    json record;
    RunRecord r;
    std::string doubt;
    try {
      record = parse_line(line);
      r = to_record(record, &doubt);
    } catch (const std::exception& e) {
      warn(corrupt(file_, number, e));
      continue;
    }
    if (!doubt.empty()) warn(where + ": " + doubt);
    const auto [it, fresh] = seen.try_emplace(r.key, First{out.size(), record, where});
    if (fresh) {
      out.push_back(std::move(r));
    } else if (const std::string diff = differences(it->second.record, record); !diff.empty()) {
      const std::string text = conflict_text(r.key, it->second.where, where, diff);
      warn(text + "; neither record counts as evidence (remove the one that is wrong)");
      std::string& conflict = out[it->second.index].conflict;
      conflict += (conflict.empty() ? "" : "; ") + text;
    }
  }
  return out;
}

void ResultStore::append(const RunConfig& run, const TrainResult& r) const {
  json record = {{"schema", kRecordSchema},
                 {"key", run.key},
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

std::vector<std::string> merge_results(const std::vector<fs::path>& inputs,
                                       const fs::path& output) {
  create_parent(output);  // as every output's missing folders are made
  // Taken before the inputs are read, which may include the output itself.
  const ResultsLock held(output,
                         "a sweep is writing this results file; merge into it once it has "
                         "finished, or into another file");
  std::vector<std::string> warnings;
  struct Seen {
    json record;
    std::string where;
  };
  std::map<std::string, Seen> seen;
  std::vector<std::string> conflicts;
  std::string content;
  for (const fs::path& in : inputs) {
    std::istringstream f(read_input_file(in, limits::kResultsFileBytes, "results file"));
    std::string line;
    std::size_t number = 0;
    while (std::getline(f, line)) {
      ++number;
      if (line.empty()) continue;
      const std::string where = fmt::format("{}:{}", in.string(), number);
      json record;
      std::string key;
      std::string doubt;
      try {
        record = parse_line(line);
        key = to_record(record, &doubt).key;
      } catch (const std::exception& e) {
        warnings.push_back(corrupt(in, number, e));
        continue;
      }
      if (!doubt.empty()) warnings.push_back(where + ": " + doubt);
      const auto [it, fresh] = seen.try_emplace(key, Seen{record, where});
      if (fresh) {
        content += line + "\n";
      } else if (const std::string diff = differences(it->second.record, record); !diff.empty()) {
        conflicts.push_back(conflict_text(key, it->second.where, where, diff));
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

}  // namespace infoflow::experiments
