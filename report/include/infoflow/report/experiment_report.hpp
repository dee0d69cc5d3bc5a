#ifndef INFOFLOW_REPORT_EXPERIMENT_REPORT_HPP_
#define INFOFLOW_REPORT_EXPERIMENT_REPORT_HPP_

/// \file
/// The verification report as a folder (`infoflow report`):
///   report.tex / report.pdf   claims tables (booktabs) and figures, one section an experiment
///   fig_NAME.tex              the pgfplots figure (data inline), fig_NAME.pdf and .png previews
///   fig_NAME_confront.tex     where the spec confronts an entry: NMSE per architecture, a line
///                             per group, the architectures where the entry fails circled
///   claims.csv, results.csv   every claim; every run with its prediction
///   confront.csv              the architecture-by-architecture verdicts, where there are any
/// Every file is written atomically; PDF and PNG need pdflatex and pdftoppm (else skipped, and
/// the summary says so).

#include <filesystem>
#include <string>
#include <vector>

#include "infoflow/experiments/verification.hpp"
#include "infoflow/theorems/catalogue.hpp"

namespace infoflow::report {

/// The pgfplots picture of an experiment's series (medians, min-max bars, fits).
std::string figure_pgfplots(const experiments::ExperimentResult& r);
std::string claims_table_latex(const experiments::ExperimentResult& r);
std::string results_csv(const std::vector<experiments::ExperimentResult>& results);
std::string claims_csv(const std::vector<experiments::ExperimentResult>& results);
/// The engine's, the confronted entry's and the measured verdict per architecture.
std::string confrontation_table_latex(const experiments::ExperimentResult& r);
std::string confrontation_pgfplots(const experiments::ExperimentResult& r);
std::string confrontations_csv(const std::vector<experiments::ExperimentResult>& results);

struct ReportFiles {
  std::vector<std::filesystem::path> written;
  bool pdf = false;
  std::string note;  ///< why PDF or PNG were skipped, if they were
};

/// Writes the folder; `compile`: make PDF and PNG when the tools exist. With a catalogue, the
/// report cites its papers and carries their bibliography.
ReportFiles write_report(const std::filesystem::path& dir,
                         const std::vector<experiments::ExperimentResult>& results,
                         bool compile = true, const theorems::Catalogue* catalogue = nullptr);

}  // namespace infoflow::report

#endif  // INFOFLOW_REPORT_EXPERIMENT_REPORT_HPP_
