#ifndef INFOFLOW_CORE_LIMITS_HPP_
#define INFOFLOW_CORE_LIMITS_HPP_

/// \file
/// Limits on the sizes a user can give, in one place (docs/commands.md, "Limits"). Each is far
/// beyond any real use and is checked before any work starts, so that no input can exhaust the
/// stack, the memory or the patience of the machine before the tool says why.

#include <cstddef>
#include <cstdint>
#include <string>

#include "infoflow/core/error.hpp"

namespace infoflow::limits {

/// Characters of one formula, rate or relation: bounds the depth of a chain such as a*a*...*a,
/// over which the printers and converters recurse, and the cost of normalising it.
inline constexpr std::size_t kFormulaLength = 4096;
/// Parentheses, signs, powers and reductions inside each other: the parsers recurse once a level.
inline constexpr std::size_t kNesting = 100;

/// Training sizes (train, sweep). Their products (T^2 x batch x heads x L for the attention
/// weights) stay well inside 64-bit sizes; memory is then estimated against the machine's.
inline constexpr std::int64_t kTokens = 16384;         ///< T
inline constexpr std::int64_t kTokenDim = 65536;       ///< d
inline constexpr std::int64_t kWidth = 65536;          ///< E, head dimension, FFN, readout width
inline constexpr std::int64_t kLayers = 64;            ///< L
inline constexpr std::int64_t kHeads = 256;            ///< heads per layer
inline constexpr std::int64_t kBatch = 65536;          ///< sequences per step or validation set
inline constexpr std::int64_t kSteps = 1'000'000'000;  ///< training steps
inline constexpr std::int64_t kTaskSize = 65536;       ///< D; members of a parameter family
/// Terms one evaluation of a target formula visits (nested reductions multiply their ranges).
inline constexpr std::int64_t kEvaluationCost = 100'000'000;

/// Runs of an experiment, all its profiles together (each profile makes the product of its
/// lists); every run is checked when the spec is loaded. The shipped specs have at most 432.
inline constexpr std::int64_t kRuns = 1'000;

/// Milliseconds the solver may take on one query of `check` (`--timeout-ms`): an hour.
inline constexpr long kSolverTimeoutMs = 3'600'000;
/// A time budget (`--budget`): a year.
inline constexpr std::int64_t kBudgetSeconds = 365LL * 24 * 3600;

/// Bytes of one file read as input (core/read_file.hpp): a file this long is refused before it is
/// read, and an endless one (a device, a FIFO that never closes) is refused at the limit.
inline constexpr std::uint64_t kTextFileBytes = std::uint64_t{64} << 20;  ///< TOML: targets,
                                                                         ///< catalogues, specs
/// A results file (JSON lines): a record with its curve takes a few kilobytes, and a spec makes at
/// most kRuns runs.
inline constexpr std::uint64_t kResultsFileBytes = std::uint64_t{1} << 30;
/// A checkpoint: the parameters and AdamW's two moments, about 350 million parameters in float32.
inline constexpr std::uint64_t kCheckpointBytes = std::uint64_t{4} << 30;

/// Throws InputError "WHAT must be between LOW and HIGH (got VALUE)" unless low <= value <= high:
/// the one message of a value out of its range, its bounds as the user writes them.
inline void check_in_range(long value, long low, long high, const std::string& what) {
  if (value < low || value > high) {
    throw InputError(what + " must be between " + std::to_string(low) + " and " +
                     std::to_string(high) + " (got " + std::to_string(value) + ")");
  }
}

}  // namespace infoflow::limits

#endif  // INFOFLOW_CORE_LIMITS_HPP_
