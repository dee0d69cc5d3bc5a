// E0: a sum over a range inside a token reduction's body, with no reduction inside it, is the sum
// of its copies, a term each (max(t) sum(i = 1..2) dot(a[i], x[t]) is max(t) of one linear
// score, one retrieval, not a score an FFN computes first). At most 16 copies, with its bounds
// known.
#include <algorithm>
#include <functional>
#include <vector>

#include "infoflow/core/error.hpp"
#include "infoflow/targets/node_algebra.hpp"

#include "readings/reading.hpp"

namespace infoflow::theorems::detail {

namespace {

using targets::Node;
using K = targets::Node::Kind;

/// The most copies the sum may make.
constexpr long kMaxCopies = 16;

std::optional<Node> sum_of_copies(const Node& n, const Node& /*written*/, Reader& reader) {
  if (n.kind != K::kReduce || n.op != targets::ReduceOp::kSum || n.has_key() ||
      !n.constraints.empty() ||
      !std::all_of(n.binders.begin(), n.binders.end(),
                   [&](const targets::Binder& b) { return ranged(b, n); }))
    return std::nullopt;
  bool reads_outer_token = false;
  bool nested = false;
  const std::function<void(const Node&)> visit = [&](const Node& m) {
    nested = nested || m.kind == K::kReduce;
    if (m.kind == K::kRef && m.name == "x" && !m.index.empty() &&
        std::none_of(n.binders.begin(), n.binders.end(),
                     [&](const targets::Binder& b) { return b.name == m.index; }))
      reads_outer_token = true;
    for (const Node& a : m.args) visit(a);
  };
  visit(n.args[0]);
  if (nested || !reads_outer_token) return std::nullopt;
  std::vector<targets::IndexRange> ranges;
  long copies = 1;
  try {
    for (const targets::Binder& b : n.binders) {
      const long low = reader.resolve(b.low, b.column);
      const long high = reader.resolve(b.high, b.column);
      if (high < low || copies * (high - low + 1) > kMaxCopies) return std::nullopt;
      copies *= high - low + 1;
      ranges.push_back({b.name, low, high});
    }
  } catch (const InputError&) {  // a bound with no value: the sum stays
    return std::nullopt;
  }
  return targets::sum_of(targets::copies_over(n.args[0], ranges));
}

}  // namespace

extern const Reading kSumOfCopies;  // registered in readings/registry.cpp
const Reading kSumOfCopies{"E0", "sum of copies", sum_of_copies};

}  // namespace infoflow::theorems::detail
