#ifndef INFOFLOW_FUZZ_INPUTS_HPP_
#define INFOFLOW_FUZZ_INPUTS_HPP_

// One entry point per input kind: each reads `data` as the tool would read that input. Success
// and a bad-input error (exit 2) are fine; anything else is a finding. libFuzzer drives them
// (fuzz_*.cpp); tests/fuzz replays the kept inputs (tests/data/fuzz/KIND/) through them.

#include <cstddef>
#include <cstdint>
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

/// The processor time one input of a kind may take, in seconds (0: no budget of its own, only
/// libFuzzer's -timeout): a formula's derivation has 1 s, so that a slow one is a finding.
[[nodiscard]] double budget_seconds(Input input);

/// Runs one input: empty when it is accepted or refused as bad input within its budget, else
/// what went wrong.
[[nodiscard]] std::string failure(Input input, std::string_view data);

}  // namespace infoflow::fuzz

#endif  // INFOFLOW_FUZZ_INPUTS_HPP_
