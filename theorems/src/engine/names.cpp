// The engine's names for people: verdicts, token classes, actions and their rules.
#include "infoflow/theorems/engine.hpp"

#include <fmt/format.h>

namespace infoflow::theorems {

std::string to_text(Verdict v) {
  switch (v) {
    case Verdict::kEfficient:
      return "efficient";
    case Verdict::kExponentialInT:
      return "exponential in T";
    case Verdict::kSuperPolynomial:
      return "super-polynomial";
    case Verdict::kNotComputable:
      return "not computable";
    case Verdict::kOutsideFramework:
      return "outside the framework";
    case Verdict::kUndecided:
      return "undecided";
  }
  return "";
}

std::string to_text(TokenClass where) {
  return where == TokenClass::kReadout ? "readout" : "tokens";
}

std::string to_text(Action a) {
  switch (a) {
    case Action::kMaxRetrieval:
      return "max-position retrieval";
    case Action::kMaskedRetrieval:
      return "masked retrieval";
    case Action::kKthRetrieval:
      return "k-th retrieval";
    case Action::kGlobalAggregation:
      return "global aggregation";
    case Action::kPositionAggregation:
      return "specific-position aggregation";
    case Action::kRelativeFetch:
      return "relative-position fetch";
    case Action::kUniformAggregation:
      return "uniform aggregation";
    case Action::kCarry:
      return "carry";
  }
  return "";
}

std::string heads_text(const PlanStep& s) {
  if (s.heads <= 1) return fmt::format("head {}", s.head);
  return fmt::format("heads {}-{}", s.head, s.head + s.heads - 1);
}

std::string rule_of(Action a) {
  switch (a) {
    case Action::kMaxRetrieval:
      return "R1 max-position retrieval";
    case Action::kMaskedRetrieval:
      return "R2 k-th largest as masked retrievals";
    case Action::kKthRetrieval:
      return "R3 k-th retrieval in one layer";
    case Action::kGlobalAggregation:
      return "R4 global aggregation";
    case Action::kPositionAggregation:
      return "R5 positions";
    case Action::kRelativeFetch:
      return "R5 positions";
    case Action::kUniformAggregation:
      return "R6 uniform aggregation";
    case Action::kCarry:
      return "R7 carrying";
  }
  return "";
}

}  // namespace infoflow::theorems
