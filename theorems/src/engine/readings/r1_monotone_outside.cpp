// R1's monotone rewrite: an extremum over some indices of a monotone function of a score, the
// function reading none of them, is that function of the score's extremum (its opposite extremum
// where the function decreases), at the same tuple, so the score is eliminated alone: max(r, s,
// t) (abs(E) + 1) is max |E| + 1, six retrievals; min(t) -abs(L) is -max |L|; max(s, t) exp(f(s)
// + g(t)) two independent maxima. Peeled from the top: a closed term added or subtracted, a
// product or quotient by a nonzero number, a negation, exp, log, sqrt, tanh, an odd power, and
// relu, which is flat below 0 and so not in a key, where the token matters and its flat part
// ties (a selection's key is peeled, its value kept). A k-th largest keeps its direction: there
// is no k-th smallest to turn to. An even power E^p, p >= 4, is |E|^p, non-decreasing in |E|: an
// extremum of it is one of |E| (max(t) y^4 is (max |y|)^4, two retrievals); E^2 is read by the
// rules for |E| and E^2 themselves.
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "infoflow/targets/monotone.hpp"

#include "readings/reading.hpp"

namespace infoflow::theorems::detail {

namespace {

using targets::Node;
using K = targets::Node::Kind;

std::optional<Node> monotone_outside(const Node& n, const Node& /*written*/,
                                     Reader& reader) {  // NOLINT(misc-no-recursion)
  if (n.kind != K::kReduce || n.op == targets::ReduceOp::kSum) return std::nullopt;
  // E5 on the reduction as written: max(t) relu(-sqnorm(x[t])) is 0, which relu(min(t)
  // sqnorm(x[t])) would hide.
  if (reader.closed_constant(n)) return std::nullopt;
  const bool keyed = n.has_key();
  const Node& score = keyed ? n.args[1] : n.args[0];
  std::vector<std::size_t> path;  // the argument followed at each step
  bool decreasing = false;
  const Node* at = &score;
  for (std::optional<targets::MonotoneStep> step = targets::monotone_step(*at, keyed);
       step && !(n.op == targets::ReduceOp::kKth && step->decreasing);
       step = targets::monotone_step(*at, keyed)) {
    path.push_back(step->argument);
    decreasing = decreasing != step->decreasing;
    at = &at->args[step->argument];
  }
  const bool even_power = at->kind == K::kPow && at->args[1].kind == K::kNumber &&
                          at->args[1].number >= 4 && std::fmod(at->args[1].number, 2) == 0;
  if (path.empty() && !even_power) return std::nullopt;
  Node extremum = n;
  if (decreasing)
    extremum.op =
        n.op == targets::ReduceOp::kMax ? targets::ReduceOp::kMin : targets::ReduceOp::kMax;
  if (even_power) {
    Node magnitude;
    magnitude.kind = K::kCall;
    magnitude.name = "abs";
    magnitude.args = {at->args[0]};
    extremum.args[keyed ? 1 : 0] = std::move(magnitude);
  } else {
    extremum.args[keyed ? 1 : 0] = *at;
  }
  extremum = reader.read(extremum);
  std::string how =
      keyed ? (decreasing ? "a strictly decreasing function of the key selects the token of "
                            "the opposite extremum"
                          : "a strictly increasing function of the key selects the same token")
      : n.op == targets::ReduceOp::kKth
          ? "a non-decreasing function of the score, at the score's tuple of the same rank"
          : (decreasing ? "a non-increasing function of the score, at the score's opposite "
                          "extremum"
                        : "a non-decreasing function of the score, at the score's extremum");
  if (even_power) how += "; an even power, |E|^p, is so of |E|";
  reader.note(extremum,
              fmt::format(" (written {}: {}, R1)", targets::to_text(n), how));
  if (keyed) return extremum;
  Node out = score;
  Node* slot = &out;
  for (const std::size_t i : path) slot = &slot->args[i];
  if (even_power) slot = &slot->args[0];  // the power stays, of the extremum of |E|
  *slot = std::move(extremum);
  return out;
}

}  // namespace

extern const Reading kMonotoneOutside;  // registered in readings/registry.cpp
const Reading kMonotoneOutside{"R1", "monotone outside", monotone_outside};

}  // namespace infoflow::theorems::detail
