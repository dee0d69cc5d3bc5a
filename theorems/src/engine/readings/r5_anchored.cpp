// R5: a reduction over one token index t that reads x only at offsets of t (x[t-1], x[t+1]) is
// the same reduction anchored at one of them (x[t], x[t+2]) where the two take the same values on
// random sequences (the zero vector outside 1..T must leave the boundary terms unchanged, as in a
// dot): each token then fetches one neighbour, not two.
#include <functional>
#include <set>
#include <string>

#include <fmt/format.h>

#include "readings/reading.hpp"

namespace infoflow::theorems::detail {

namespace {

using targets::Node;
using K = targets::Node::Kind;

std::optional<Node> anchored(const Node& n, const Node& /*written*/, Reader& reader) {
  if (n.kind != K::kReduce || n.binders.size() != 1 || n.binders[0].has_range ||
      !n.constraints.empty())
    return std::nullopt;
  const std::string& t = n.binders[0].name;
  std::set<long> offsets;
  std::function<void(const Node&)> collect = [&](const Node& m) {
    if (m.kind == K::kRef && m.name == "x" && m.index == t) offsets.insert(m.offset);
    for (const Node& a : m.args) collect(a);
  };
  for (const Node& a : n.args) collect(a);
  if (offsets.empty() || offsets.count(0) != 0) return std::nullopt;
  std::function<Node(Node, long)> shifted = [&](Node m, long by) {
    if (m.kind == K::kRef && m.name == "x" && m.index == t) m.offset -= by;
    for (Node& a : m.args) a = shifted(std::move(a), by);
    return m;
  };
  for (const long anchor : offsets) {
    Node moved = n;
    for (Node& a : moved.args) a = shifted(std::move(a), anchor);
    const std::optional<bool> same = reader.same_values(n, moved);
    if (!same) return std::nullopt;  // an index bound further out
    if (!*same) continue;
    reader.note(moved, " (written " + targets::to_text(n) +
                                             ": the same values anchored at x[" + t +
                                             fmt::format("{:+}", anchor) + "], R5)");
    return moved;
  }
  return std::nullopt;
}

}  // namespace

extern const Reading kAnchored;  // registered in readings/registry.cpp
const Reading kAnchored{"R5", "anchored", anchored};

}  // namespace infoflow::theorems::detail
