#include <iterator>

#include "claims/claim_kind.hpp"

namespace infoflow::experiments {

// The kinds, each defined in claims/NAME.cpp. A new kind: its file, and its line here and in
// kKinds (in the order error messages list them).
extern const ClaimKind kHeadsPhase;
extern const ClaimKind kGrowthInT;
extern const ClaimKind kExponent;

namespace {

const ClaimKind* const kKinds[] = {&kHeadsPhase, &kGrowthInT, &kExponent};

}  // namespace

const ClaimKind* find_claim_kind(std::string_view name) {
  for (const ClaimKind* kind : kKinds) {
    if (name == kind->name) return kind;
  }
  return nullptr;
}

std::string claim_kind_names() {
  std::string out;
  for (const ClaimKind* kind : kKinds) out += (out.empty() ? "" : ", ") + std::string(kind->name);
  return out;
}

}  // namespace infoflow::experiments
