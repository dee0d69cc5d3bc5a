// Information sets as sets (docs/infoflow_engine.md, "Information sets"). A set is a union of
// positions written as terms in the token t that holds it: t itself, a global token g (one
// token for the whole sequence, every token fetching the same one), m(t) (the token a token
// quantity picks for t), m(g), t+1, a fixed position, any token (a carry), a mean. A fetch of
// the token s adds I(s, l-1), which is I(t, l-1) with t replaced by s; a term without t is the
// same position wherever it is fetched, so it counts once. Two distinct terms may still name
// one position on some input: the count bounds the union from above. It does not depend on T;
// a set of T tokens holds at most T positions, which the plan applies at a given T.
#include <algorithm>
#include <string>
#include <vector>

#include "information_sets.hpp"

namespace infoflow::theorems::detail {

namespace {

/// A term: its first symbol is kVariable (the holder t) or a constant position; each further
/// symbol a token quantity applied to the term before it (m(g) is {g, m}).
using Term = std::u16string;
using Set = std::vector<Term>;  // sorted, distinct

constexpr char16_t kVariable = 1;

/// The terms of `before` with t replaced by `s`.
void substitute(const Set& before, const Term& s, Set& into) {
  for (const Term& term : before) {
    into.push_back(term.front() == kVariable ? s + term.substr(1) : term);
  }
}

void normalise(Set& set) {
  std::sort(set.begin(), set.end());
  set.erase(std::unique(set.begin(), set.end()), set.end());
}

}  // namespace

Sizes information_set_sizes(const Program& program, const Placement& placement, long layers) {
  // Symbols: kVariable, then one per quantity (a global token's position, or a token
  // quantity's map), then fresh constants (fixed positions, means, carries).
  const auto quantity_symbol = [](std::size_t q) { return static_cast<char16_t>(2 + q); };
  char16_t fresh = quantity_symbol(program.quantities.size());
  Set tokens{Term(1, kVariable)};
  Set readout;
  Sizes s;
  s.token.push_back(1);
  s.readout.push_back(0);
  for (long l = 1; l <= layers; ++l) {
    const Set before = tokens;
    for (std::size_t q = 0; q < program.quantities.size(); ++q) {
      const auto& slot = placement.slots[q];
      if (!slot || slot->layer != l) continue;
      const Quantity& quantity = program.quantities[q];
      Set& into = slot->readout ? readout : tokens;
      switch (quantity.mode) {
        case Mode::kPositions:
          for (long p = 0; p < quantity.positions; ++p) substitute(before, Term(1, fresh++), into);
          break;
        case Mode::kMean:  // one averaged value, not a token's set
          into.push_back(Term(1, fresh++));
          break;
        default:
          substitute(before,
                     quantity.holder == Holder::kToken ? Term{kVariable, quantity_symbol(q)}
                                                       : Term(1, quantity_symbol(q)),
                     into);
      }
    }
    if (placement.carry && *placement.carry == l) substitute(before, Term(1, fresh++), readout);
    normalise(tokens);
    normalise(readout);
    s.token.push_back(static_cast<long>(tokens.size()));
    s.readout.push_back(static_cast<long>(readout.size()));
  }
  return s;
}

}  // namespace infoflow::theorems::detail
