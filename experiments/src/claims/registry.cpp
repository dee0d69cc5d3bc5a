#include <iterator>

#include "claims/claim_kind.hpp"

namespace infoflow::experiments {

// The kinds, each defined in claims/NAME.cpp. A new kind: its file, and its line here and in
// kKinds (in the order error messages list them).
extern const ClaimKind kHeadsPhase;
extern const ClaimKind kGrowthInT;
extern const ClaimKind kExponent;
extern const ClaimKind kParamsNeeded;

namespace {

const ClaimKind* const kKinds[] = {&kHeadsPhase, &kGrowthInT, &kExponent, &kParamsNeeded};

}  // namespace

const ClaimKind* find_claim_kind(std::string_view name) {
  for (const ClaimKind* kind : kKinds) {
    if (name == kind->name) return kind;
  }
  return nullptr;
}

bool searches_ladder(const ExperimentSpec& spec) {
  const ClaimKind* kind = find_claim_kind(spec.claim);
  return kind != nullptr && kind->searches_ladder;
}

std::string claim_kind_names() {
  std::string out;
  for (const ClaimKind* kind : kKinds) out += (out.empty() ? "" : ", ") + std::string(kind->name);
  return out;
}

}  // namespace infoflow::experiments
