#ifndef INFOFLOW_REPORT_VERIFICATION_TEXT_HPP_
#define INFOFLOW_REPORT_VERIFICATION_TEXT_HPP_

/// \file
/// A verification (experiments/verification.hpp) as the text `infoflow verify` prints.

#include <string>

#include "infoflow/experiments/verification.hpp"

namespace infoflow::report {

std::string verification_text(const experiments::ExperimentResult& r);

/// "ours / paper" as text ("n/a" without runs).
std::string ratio_text(const experiments::PaperComparison& c);

}  // namespace infoflow::report

#endif  // INFOFLOW_REPORT_VERIFICATION_TEXT_HPP_
