#ifndef INFOFLOW_EXPERIMENTS_EVIDENCE_HPP_
#define INFOFLOW_EXPERIMENTS_EVIDENCE_HPP_

// The rules every claim kind shares (verification.hpp states them): how many seeds an interval
// needs, when a high NMSE counts (converged runs only), and the gap between two sets of
// configurations with its seed bootstrap interval.

#include <cstddef>
#include <string>
#include <vector>

#include "infoflow/experiments/verification.hpp"

#include "cells.hpp"

namespace infoflow::experiments {

inline constexpr double kPhaseDecades = 0.5;  // the least gap that counts as a separation
inline constexpr double kSaturated = 0.5;     // a median NMSE this high has not learnt the target
inline constexpr std::size_t kMinSeeds = 3;   // the fewest runs a configuration's interval needs
// The runs a configuration needs before a gap interval that straddles no boundary is trusted
// (a bootstrap over 3 seeds is often too narrow).
inline constexpr std::size_t kTrustedSeeds = 2 * kMinSeeds;
inline constexpr std::size_t kMinFitPoints = 6;  // the fewest unsaturated points a slope needs

/// The first configuration with fewer than kMinSeeds finished runs, as a reason; "" if none.
std::string too_few_seeds(const std::vector<const Cell*>& cells);

/// "" if every finished run of `cells` converged, else which did not, as a reason.
std::string not_converged(const std::vector<const Cell*>& cells, const std::string& side);

/// Where the engine's rates at the cells' T (the decoding floor applied there) do not put every
/// configuration predicted inefficient above every efficient one, or where a configuration has
/// no rate (outside the framework, undecided), a sentence that says so; "" where they do ("not
/// computable" is above every rate), or where the cells' T differ or a rate is not a number. "Not efficient" is a
/// growth in T: at T = 8, E = 16, d = 4 a global aggregation costs eps^(1 - T/4) = eps^-1, the
/// efficient rate.
std::string rates_alike_at_T(const std::vector<const Cell*>& good, const std::vector<const Cell*>& bad);

/// The claim that the `good_cells` (predicted efficient) reach a lower NMSE than the
/// `bad_cells`: agrees if the gap's interval lies above kPhaseDecades, disagrees if below 0.
/// Undecided (inconclusive, nothing more to run) where rates_alike_at_T has a sentence: a claim
/// is measured only at a T where the engine's rates separate its configurations.
Claim gap_claim(const std::string& group, const std::string& prediction,
                const std::vector<const Cell*>& good_cells,
                const std::vector<const Cell*>& bad_cells, const std::string& medians);

}  // namespace infoflow::experiments

#endif  // INFOFLOW_EXPERIMENTS_EVIDENCE_HPP_
