#ifndef INFOFLOW_SESSION_TARGET_REQUEST_HPP_
#define INFOFLOW_SESSION_TARGET_REQUEST_HPP_

/// \file
/// A target as a front end names it (a formula or a target file, with --name, --set, --d and
/// --pe; keywords of the same names in Python), and the architecture it is planned on.

#include <optional>
#include <string>
#include <vector>

#include "infoflow/core/architecture.hpp"
#include "infoflow/targets/target_file.hpp"
#include "infoflow/theorems/engine.hpp"

namespace infoflow::session {

struct TargetRequest {
  std::string source;             ///< a formula, or a target file
  std::string name;               ///< which target of the file (default: all, or the only one)
  std::vector<std::string> sets;  ///< NAME=VALUE
  std::optional<long> token_dim;  ///< d; none: the target's
  std::string positional;         ///< none (or off), learned or sinusoidal; empty: the target's
  bool file_only = false;         ///< the source must be a target file (train's `target`)

  /// Throws InputError for an option out of its range or form (d, pe, the sets' NAME=INTEGER),
  /// checked without reading the target: the one check of both front ends' values.
  void check() const;
  /// The targets asked for, with the sets, d and pe applied (`single`: exactly one); check()
  /// first. Throws InputError.
  [[nodiscard]] std::vector<targets::TargetSpec> resolve(bool single) const;
};

/// heads, E and head_dim of derive, plan and construct.
struct ArchitectureRequest {
  std::optional<std::vector<long>> heads;  ///< none given: one layer of one head, or searched
  long embedding = core::defaults::kEmbedding;
  long head_dim = 0;

  /// Throws InputError for heads, E or n out of range, or heads that do not divide E: what
  /// for_target refuses that needs no target, checked before the target is read or planned.
  void check() const;
  /// The architecture for `spec`: the given heads, else one layer of one head.
  [[nodiscard]] theorems::Architecture for_target(const targets::TargetSpec& spec) const;
};

}  // namespace infoflow::session

#endif  // INFOFLOW_SESSION_TARGET_REQUEST_HPP_
