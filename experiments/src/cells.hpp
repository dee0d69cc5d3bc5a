#ifndef INFOFLOW_EXPERIMENTS_CELLS_HPP_
#define INFOFLOW_EXPERIMENTS_CELLS_HPP_

// The runs of an experiment grouped by configuration (a cell: the runs that differ only by
// seed), which every claim kind and the confrontation judge, and the figure's lines.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "infoflow/experiments/spec.hpp"
#include "infoflow/experiments/verification.hpp"
#include "infoflow/theorems/engine.hpp"

namespace infoflow::experiments {

struct Cell {  // one configuration: its runs over seeds
  std::map<std::string, std::string> labels;
  std::vector<double> nmse;  ///< +inf for a diverged run
  std::vector<bool> converged;
  std::vector<bool> recorded;  ///< the run's record has its curve (false before it was stored)
  std::vector<double> theory_params;
  const theorems::Plan* plan = nullptr;
  const RunConfig* run = nullptr;  ///< the first seed's configuration
  long tokens = 0;
  [[nodiscard]] std::size_t finished() const {
    return static_cast<std::size_t>(
        std::count_if(nmse.begin(), nmse.end(), [](double x) { return std::isfinite(x); }));
  }
  [[nodiscard]] std::size_t converged_count() const {
    return static_cast<std::size_t>(std::count(converged.begin(), converged.end(), true));
  }
};

/// The cells of an experiment by their labels_except(labels, {}).
using Cells = std::map<std::string, Cell>;

/// The labels not skipped: what a group or a line of cells has in common.
std::map<std::string, std::string> labels_without(const std::map<std::string, std::string>& labels,
                                                  const std::set<std::string>& skip);

/// "k = v, k = v"; "all runs" for no labels. Groups and lines are named, and keyed, by it.
std::string group_text(const std::map<std::string, std::string>& labels);

/// group_text(labels_without(labels, skip)).
std::string labels_except(const std::map<std::string, std::string>& labels,
                          const std::set<std::string>& skip);

/// A label's value as a number; NaN if it is none.
double as_number(const std::string& s);

/// The figure's line through `points` (x, cell): medians over the finite runs, min and max.
Series series_from(const std::string& name, std::vector<std::pair<double, const Cell*>> points);

}  // namespace infoflow::experiments

#endif  // INFOFLOW_EXPERIMENTS_CELLS_HPP_
