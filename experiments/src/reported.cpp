#include "infoflow/experiments/reported.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "infoflow/core/error.hpp"
#include "infoflow/core/limits.hpp"
#include "infoflow/core/read_file.hpp"
#include "infoflow/numeric/fit.hpp"

namespace infoflow::experiments {

namespace {

SourceLocation at(const std::filesystem::path& file, const toml::node& n) {
  return SourceLocation{file.string(), n.source().begin.line, n.source().begin.column};
}

std::string scalar_text(const std::filesystem::path& file, const toml::node& n) {
  if (const auto* i = n.as_integer()) return std::to_string(i->get());
  if (const auto* s = n.as_string()) return s->get();
  throw InputError(at(file, n), "a reported value is selected by integers and strings");
}

}  // namespace

ReportedValues ReportedValues::load(const std::filesystem::path& file) {
  toml::table doc;
  try {
    doc = toml::parse(read_input_file(file, limits::kTextFileBytes, "reported values file"),
                      file.string());
  } catch (const toml::parse_error& e) {
    throw InputError(SourceLocation{file.string(), e.source().begin.line, e.source().begin.column},
                     std::string(e.description()));
  }
  ReportedValues out;
  const toml::table* source = doc["source"].as_table();
  if (source == nullptr) throw InputError(SourceLocation{file.string(), 1, 1}, "missing [source]");
  out.paper = source->get("paper") ? source->get("paper")->value_or(std::string()) : "";
  out.provenance =
      source->get("provenance") ? source->get("provenance")->value_or(std::string()) : "";
  out.note = source->get("note") ? source->get("note")->value_or(std::string()) : "";
  out.metric = source->get("metric") ? source->get("metric")->value_or(std::string()) : "";
  if (out.provenance.empty())
    throw InputError(at(file, *source), "[source] needs its provenance (e.g. \"secondary source\")");
  const toml::array* values = doc["value"].as_array();
  if (values == nullptr) throw InputError(SourceLocation{file.string(), 1, 1}, "no [[value]]");
  for (const toml::node& node : *values) {
    const toml::table* t = node.as_table();
    if (t == nullptr) throw InputError(at(file, node), "[[value]] must be a table");
    ReportedValue v;
    bool has_nmse = false;
    for (const auto& [key, value] : *t) {
      if (key.str() == "nmse") {
        const std::optional<double> x = value.value<double>();
        if (!x || !(*x > 0) || !std::isfinite(*x))
          throw InputError(at(file, value), "nmse must be a positive number");
        v.nmse = *x;
        has_nmse = true;
      } else {
        v.where[std::string(key.str())] = scalar_text(file, value);
      }
    }
    if (!has_nmse) throw InputError(at(file, node), "[[value]] without nmse");
    out.values.push_back(std::move(v));
  }
  return out;
}

std::optional<ReportedValues> reported_for(const ExperimentSpec& spec) {
  const std::filesystem::path file =
      spec.file.parent_path() / "reported" / (spec.name + ".toml");
  if (!std::filesystem::is_regular_file(file)) return std::nullopt;
  return ReportedValues::load(file);
}

std::vector<PaperComparison> compare_with_reported(const ExperimentResult& r,
                                                   const ReportedValues& reported) {
  std::vector<PaperComparison> out;
  for (const ReportedValue& v : reported.values) {
    std::vector<double> ours;
    long converged = 0;
    bool any = false;
    for (const RunRow& row : r.rows) {
      const bool match = std::all_of(v.where.begin(), v.where.end(), [&](const auto& kv) {
        if (kv.first == "T") return std::to_string(row.tokens) == kv.second;
        const std::string key =
            kv.first == "heads" && row.labels.count("heads_pattern") ? "heads_pattern" : kv.first;
        const auto hit = row.labels.find(key);
        return hit != row.labels.end() && hit->second == kv.second;
      });
      if (!match) continue;
      any = true;
      if (!row.status || *row.status == numeric::RunStatus::kDiverged) continue;
      ours.push_back(row.best_nmse);
      converged += *row.status == numeric::RunStatus::kConverged ? 1 : 0;
    }
    if (!any) continue;
    PaperComparison c;
    for (const auto& [k, value] : v.where)
      c.configuration += (c.configuration.empty() ? "" : ", ") + k + " = " + value;
    c.paper = v.nmse;
    c.seeds = static_cast<long>(ours.size());
    c.converged = converged;
    c.ours_min = ours.empty() ? std::nan("") : *std::min_element(ours.begin(), ours.end());
    c.ours_median = ours.empty() ? std::nan("") : numeric::median_of(ours);
    out.push_back(c);
  }
  return out;
}

}  // namespace infoflow::experiments
