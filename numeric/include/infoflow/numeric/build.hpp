#ifndef INFOFLOW_NUMERIC_BUILD_HPP_
#define INFOFLOW_NUMERIC_BUILD_HPP_

/// \file
/// What a training run's bits depend on besides its configuration: the numeric code's version,
/// the instruction set this build was compiled for (-march; CMake's INFOFLOW_MARCH) and its
/// build type (optimisation contracts floating-point operations into fused ones differently).
/// A run is keyed by them (experiments/spec.hpp), so results of different code never mix.

#include <string>

namespace infoflow::numeric {

/// Bumped whenever a change of the numeric core changes what a configuration produces.
/// 2: the GELU backward uses the forward's vectorised tanh (results of 1 differ in low bits).
/// 3: the faster step (attention per head in registers, K/V/Q in one product, biases where the
///    products accumulate, a chunk a few sequences at a time): sums in another order.
/// 4: the papers' class (docs/theory.md, section 2): the readout token is never a key, and the
///    encoder may be a token-wise MLP fed the position (the default).
inline constexpr const char* kCodeVersion = "infoflow-numeric-4";

std::string instruction_set();
std::string build_type();
/// The default build: x86-64-v3 (on x86-64), Release. Its runs reproduce the shipped ones.
bool default_numeric_build();
/// What a run's key adds for this build: nothing for the default one (the keys of earlier
/// results hold), "/march=.../build=..." for any other, whose numbers differ in the low bits.
std::string build_tag();

}  // namespace infoflow::numeric

#endif  // INFOFLOW_NUMERIC_BUILD_HPP_
