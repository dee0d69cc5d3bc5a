#ifndef INFOFLOW_REPORT_HPP_
#define INFOFLOW_REPORT_HPP_

/// \file
/// Umbrella header of infoflow::report.

#include "infoflow/report/catalogue_report.hpp"
#include "infoflow/report/derivation_report.hpp"
#include "infoflow/report/experiment_report.hpp"
#include "infoflow/report/verdict_table.hpp"
#include "infoflow/report/verification_text.hpp"

#endif  // INFOFLOW_REPORT_HPP_
