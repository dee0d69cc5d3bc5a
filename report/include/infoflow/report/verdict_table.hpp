#ifndef INFOFLOW_REPORT_VERDICT_TABLE_HPP_
#define INFOFLOW_REPORT_VERDICT_TABLE_HPP_

/// \file
/// The verdicts of a main job as a plain-text table for a terminal, claim by claim: what the
/// engine predicted, what was measured, the verdict, and for each claim left inconclusive its
/// reason. `report` prints it when it ends; `verify`, the report and claims.csv hold the full
/// texts, of which a cell shows the beginning. A disagreement's reason is printed too: it says
/// which bound it speaks to (a lower bound contradicted, an upper one not reached by training).

#include <cstddef>
#include <string>
#include <vector>

#include "infoflow/experiments/verification.hpp"

namespace infoflow::report {

/// The table within `width` columns (at least kMinTableWidth): per experiment a title line,
/// then a row per claim (verdict, group, predicted, measured: each cell wrapped on words and
/// cut after three lines with "..."; the measurement up to its first "; ", its statistic), and
/// beneath a claim that does not agree its reason in full ("why: ..."), and any other profile's
/// different verdict ("BUT: ..."). Throws std::invalid_argument for a narrower width.
std::string verdict_table(const std::vector<experiments::ExperimentResult>& results,
                          std::size_t width = 100);

inline constexpr std::size_t kMinTableWidth = 60;

}  // namespace infoflow::report

#endif  // INFOFLOW_REPORT_VERDICT_TABLE_HPP_
