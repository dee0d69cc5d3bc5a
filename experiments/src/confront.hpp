#ifndef INFOFLOW_EXPERIMENTS_CONFRONT_HPP_
#define INFOFLOW_EXPERIMENTS_CONFRONT_HPP_

// Confronting a catalogue entry (an experiment's `confront`): architecture by architecture,
// the engine's verdict, the entry's and the measured one (the rule is in verification.hpp).

#include <vector>

#include "infoflow/experiments/verification.hpp"
#include "infoflow/theorems/catalogue.hpp"

#include "cells.hpp"

namespace infoflow::experiments {

/// Measured efficient: the median this many decades below the reference R, or more.
inline constexpr double kEfficientDecades = 1.0;

/// Every architecture of the cells beside the engine, the entry and the measurement.
std::vector<Confrontation> confront(const theorems::Entry& entry, const Cells& cells);

}  // namespace infoflow::experiments

#endif  // INFOFLOW_EXPERIMENTS_CONFRONT_HPP_
