#ifndef INFOFLOW_FUZZ_INPUTS_HPP_
#define INFOFLOW_FUZZ_INPUTS_HPP_

// One entry point per input kind: each reads `data` as the tool would read that input. Success
// and a bad-input error (exit 2) are fine; anything else is a finding, and so is a short derive
// or plan input that is slow (kSlowSeconds). libFuzzer drives them (fuzz_target.cpp); tests/fuzz
// replays the kept inputs (tests/data/fuzz/KIND/) through them, and fuzz_replay times inputs.

#include <cstddef>
#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

namespace infoflow::fuzz {

using Input = void (*)(std::string_view data);

void rate(std::string_view data);        ///< rates and relations (symbolic parser)
void formula(std::string_view data);     ///< target formulas (PEGTL parser), then derived
void catalogue(std::string_view data);   ///< a catalogue TOML file, with the shipped tasks.toml
void targets(std::string_view data);     ///< a target TOML file
void experiment(std::string_view data);  ///< an experiment specification
void results(std::string_view data);     ///< a results JSON-lines file, read and merged

/// The kinds by name, as the fuzzers and the corpus folders are named.
[[nodiscard]] const std::vector<std::pair<std::string, Input>>& kinds();

/// Runs one input: empty when it is accepted or refused as bad input, else what went wrong.
/// Time is no failure here (a replayed input is no timed test): see kSlowSeconds.
[[nodiscard]] std::string failure(Input input, std::string_view data);

/// The engine's time is bounded by the input's size: a derive or plan input (the formula kind)
/// of at most kSlowLength characters that takes more than kSlowSeconds of processor time on the
/// release build is a finding. The fuzzers keep the candidates, inputs over kSlowCandidate
/// seconds under the sanitizers (which slow them down several times); `fuzz_replay` times them
/// on the release build (scripts/fuzz.sh).
inline constexpr std::size_t kSlowLength = 200;
inline constexpr double kSlowSeconds = 5;
inline constexpr double kSlowCandidate = 1;

/// Whether a kind's inputs are timed: the formula kind, what derive and plan do.
[[nodiscard]] bool timed(Input input);

/// Processor time since `start` (std::clock), in seconds.
[[nodiscard]] double seconds_since(std::clock_t start);

}  // namespace infoflow::fuzz

#endif  // INFOFLOW_FUZZ_INPUTS_HPP_
