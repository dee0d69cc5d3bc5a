// The readings in the order the reader takes them. A new reading: its file, readings/ID_WHAT.cpp
// (ID its rule's id), its line here and its step in kSteps.

#include "readings/reading.hpp"

namespace infoflow::theorems::detail {

extern const Reading kNestedExtrema;
extern const Reading kIdleSelection;
extern const Reading kSquare;
extern const Reading kSumOfCopies;
extern const Reading kRangeOutside;
extern const Reading kTermsOutside;
extern const Reading kAnchored;
extern const Reading kMonotoneOutside;

namespace {

const Reading* const kReadings[] = {&kNestedExtrema, &kIdleSelection,   &kSquare,
                                    &kSumOfCopies,   &kRangeOutside,    &kTermsOutside,
                                    &kAnchored,      &kMonotoneOutside, &kIdleConstraints};

// Nested extrema are one before anything moves a term out of the inner one: max(s) max(t) (y_s +
// z_t + <x_s, x_t>) as written is an elimination over (s, t), whose best order shares s's
// message, where y_s pulled out of max(t) would fix t first. A result read again may meet every
// reading; the anchoring leaves the rest to the readings after it.
const ReadingStep kSteps[] = {
    {&kNestedExtrema, true, Then::kReadAgain},  // before the operands are read
    {&kIdleSelection, false, Then::kDone},      // its body, read already
    {&kSquare, false, Then::kReadAgain},        // then the rules for squares read it
    {&kSumOfCopies, false, Then::kReadAgain},   // a term a copy
    {&kRangeOutside, false, Then::kReadAgain},  // the second reading only
    {&kTermsOutside, false, Then::kReadAgain},  // each reduction then read alone
    {&kAnchored, false, Then::kGoOn},           // the same reduction, anchored
    {&kMonotoneOutside, false, Then::kDone},    // the extremum it makes is read already
    {&kNestedExtrema, false, Then::kDone},      // what the readings above left nested
};

}  // namespace

std::span<const ReadingStep> reading_steps() {
  return kSteps;
}

const Reading* find_reading(std::string_view name) {
  for (const Reading* reading : kReadings) {
    if (name == reading->name) return reading;
  }
  return nullptr;
}

}  // namespace infoflow::theorems::detail
