#ifndef INFOFLOW_EXPERIMENTS_CLAIMS_CLAIM_KIND_HPP_
#define INFOFLOW_EXPERIMENTS_CLAIMS_CLAIM_KIND_HPP_

// A kind of claim (an experiment's `claim`): how the cells of an experiment are judged. Each
// kind is one file, claims/NAME.cpp, defining its ClaimKind; claims/registry.cpp lists them.

#include <string>
#include <string_view>

#include "infoflow/experiments/spec.hpp"
#include "infoflow/experiments/verification.hpp"

#include "cells.hpp"

namespace infoflow::experiments {

struct ClaimKind {
  const char* name;  ///< as written in a spec
  /// Adds the claims and the figure's series of the cells to `out`, and sets its axes.
  void (*judge)(const ExperimentSpec& spec, const Cells& cells, ExperimentResult& out);
  /// The sweep runs searches along a ladder (ladder.hpp), not the whole grid.
  bool searches_ladder = false;
};

/// Whether the spec's kind sweeps by searches along a ladder (false for an unknown kind).
bool searches_ladder(const ExperimentSpec& spec);

/// The kind of this name; nullptr if there is none.
const ClaimKind* find_claim_kind(std::string_view name);

/// The names of every kind, in the registry's order: "heads_phase, growth_in_T, exponent".
std::string claim_kind_names();

}  // namespace infoflow::experiments

#endif  // INFOFLOW_EXPERIMENTS_CLAIMS_CLAIM_KIND_HPP_
