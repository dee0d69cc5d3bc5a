#ifndef INFOFLOW_EXPERIMENTS_REPORTED_HPP_
#define INFOFLOW_EXPERIMENTS_REPORTED_HPP_

/// \file
/// Values a paper reports for an experiment (experiments/reported/NAME.toml), as data a user
/// can correct, and their comparison with our runs:
///
///   [source]
///   paper = "..."  provenance = "secondary source"  note = "..."  metric = "..."
///   [[value]]
///   D = 2  T = 64  heads = "D,D"  nmse = 5.89e-5   # every key but nmse selects runs
///
/// A key matches a run's label (`heads` its pattern as written in the profile), `T` its T. The
/// paper's metric is the best validation NMSE, the minimum over seeds; ours is put beside it
/// the same way (and the median), with the ratio ours / paper.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "infoflow/experiments/spec.hpp"
#include "infoflow/experiments/verification.hpp"

namespace infoflow::experiments {

struct ReportedValue {
  std::map<std::string, std::string> where;  ///< "D" -> "2", "T" -> "64", "heads" -> "D,D"
  double nmse = 0;
};

struct ReportedValues {
  std::string paper;
  std::string provenance;
  std::string note;
  std::string metric;
  std::vector<ReportedValue> values;
  /// Throws InputError (file:line:column) for a malformed file.
  static ReportedValues load(const std::filesystem::path& file);
};

/// experiments/reported/NAME.toml beside the spec, if there is one.
std::optional<ReportedValues> reported_for(const ExperimentSpec& spec);

/// The comparisons for the rows of `r` (values with no run of the profile are left out).
std::vector<PaperComparison> compare_with_reported(const ExperimentResult& r,
                                                   const ReportedValues& reported);

}  // namespace infoflow::experiments

#endif  // INFOFLOW_EXPERIMENTS_REPORTED_HPP_
