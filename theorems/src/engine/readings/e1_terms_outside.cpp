// E1: the extremum over t of A + B, A reading none of the reduction's indices, is A plus the
// extremum of B (a k-th largest and a selection likewise: adding A reorders nothing, and the key
// picks the tuple). So the terms of the body that read none of them leave it, each planned on its
// own: max(s) min(t) (y_s + z_t) is max(s) y_s + min(t) z_t, two retrievals. A sum's terms would
// leave it times the count of its tuples, which the language cannot write (T is no number of a
// formula): sums are left as they are.
#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

#include "infoflow/targets/node_algebra.hpp"

#include "readings/reading.hpp"

namespace infoflow::theorems::detail {

namespace {

using targets::Node;
using K = targets::Node::Kind;

std::optional<Node> terms_outside(const Node& n, const Node& /*written*/, Reader& reader) {
  if (n.kind != K::kReduce || n.op == targets::ReduceOp::kSum) return std::nullopt;
  std::vector<std::pair<const Node*, bool>> inside;  // (term, negated)
  std::vector<std::pair<const Node*, bool>> outside;
  const std::function<void(const Node&, bool)> split = [&](const Node& m, bool negated) {
    if (m.kind == K::kAdd || m.kind == K::kSub) {
      split(m.args[0], negated);
      split(m.args[1], m.kind == K::kSub ? !negated : negated);
    } else if (m.kind == K::kNeg) {
      split(m.args[0], !negated);
    } else {
      const bool reads =
          std::any_of(n.binders.begin(), n.binders.end(),
                      [&](const targets::Binder& b) { return targets::names_index(m, b.name); });
      (reads ? inside : outside).emplace_back(&m, negated);
    }
  };
  split(n.args[0], false);
  if (inside.empty() || outside.empty()) return std::nullopt;
  const auto sum = [](const std::vector<std::pair<const Node*, bool>>& terms, Node first) {
    for (const auto& [term, negated] : terms) {
      Node next;
      next.kind = negated ? K::kSub : K::kAdd;
      next.args = {std::move(first), *term};
      first = std::move(next);
    }
    return first;
  };
  const auto leading = [](const std::pair<const Node*, bool>& term) {
    if (!term.second) return *term.first;
    Node negated;
    negated.kind = K::kNeg;
    negated.args = {*term.first};
    return negated;
  };
  Node reduction = n;
  reduction.args[0] = sum({inside.begin() + 1, inside.end()}, leading(inside.front()));
  reader.note(reduction,
              " (written " + targets::to_text(n) +
                  ": a term that reads none of its indices moves out of the extremum, E1)");
  Node out;
  out.kind = K::kAdd;
  out.args = {sum({outside.begin() + 1, outside.end()}, leading(outside.front())),
              std::move(reduction)};
  return out;
}

}  // namespace

extern const Reading kTermsOutside;  // registered in readings/registry.cpp
const Reading kTermsOutside{"E1", "terms outside", terms_outside};

}  // namespace infoflow::theorems::detail
