// The elimination-order search: max-sum style, each eliminated index a message over the
// indices it was gathered with.
#include "elimination_order.hpp"

#include <algorithm>
#include <limits>
#include <tuple>
#include <utility>

namespace infoflow::theorems::detail {

bool Elimination::better_than(const Elimination& o) const {
  return std::tie(widest, depth) < std::tie(o.widest, o.depth);
}

Elimination best_order(const std::vector<std::set<std::string>>& factor_scopes,
                       const std::vector<std::string>& bound) {
  auto simulate = [&](const std::vector<std::string>& order) {
    std::vector<std::pair<std::set<std::string>, std::size_t>> scopes;  // with message depth
    for (const std::set<std::string>& s : factor_scopes) scopes.emplace_back(s, 0);
    Elimination e{order, 0, 0};
    for (const std::string& v : order) {
      std::set<std::string> message;
      std::size_t depth = 0;
      std::vector<std::pair<std::set<std::string>, std::size_t>> rest;
      for (auto& s : scopes) {
        if (s.first.count(v) != 0) {
          message.insert(s.first.begin(), s.first.end());
          depth = std::max(depth, s.second);
        } else {
          rest.push_back(std::move(s));
        }
      }
      message.erase(v);
      e.widest = std::max(e.widest, message.size());
      e.depth = std::max(e.depth, depth + 1);
      rest.emplace_back(message, depth + 1);
      scopes = std::move(rest);
    }
    return e;
  };
  Elimination best = simulate(bound);
  if (bound.size() <= kExhaustiveIndices) {
    std::vector<std::string> order = bound;
    std::sort(order.begin(), order.end());
    do {
      const Elimination e = simulate(order);
      if (e.better_than(best)) best = e;
    } while (std::next_permutation(order.begin(), order.end()));
    return best;
  }
  // Beyond, the written order and the greedy one: each step the index whose message is
  // smallest, then shallowest (a chain or tree of pairwise factors, leaves first from every
  // end, is admissible however it is written, as a chain of seven dots in any order).
  std::vector<std::pair<std::set<std::string>, std::size_t>> scopes;  // with message depth
  for (const std::set<std::string>& s : factor_scopes) scopes.emplace_back(s, 0);
  std::vector<std::string> left = bound;
  std::vector<std::string> greedy;
  const auto message_of = [&](const std::string& v) {
    std::pair<std::set<std::string>, std::size_t> m{{}, 0};
    for (const auto& [indices, depth] : scopes) {
      if (indices.count(v) == 0) continue;
      m.first.insert(indices.begin(), indices.end());
      m.second = std::max(m.second, depth + 1);
    }
    m.first.erase(v);
    return m;
  };
  while (!left.empty()) {
    std::size_t pick = 0;
    std::pair<std::size_t, std::size_t> least{std::numeric_limits<std::size_t>::max(), 0};
    for (std::size_t i = 0; i < left.size(); ++i) {
      const auto m = message_of(left[i]);
      const std::pair<std::size_t, std::size_t> cost{m.first.size(), m.second};
      if (cost < least) {
        least = cost;
        pick = i;
      }
    }
    auto message = message_of(left[pick]);
    std::vector<std::pair<std::set<std::string>, std::size_t>> rest;
    for (auto& scope : scopes) {
      if (scope.first.count(left[pick]) == 0) rest.push_back(std::move(scope));
    }
    rest.push_back(std::move(message));
    scopes = std::move(rest);
    greedy.push_back(left[pick]);
    left.erase(left.begin() + static_cast<std::ptrdiff_t>(pick));
  }
  if (const Elimination e = simulate(greedy); e.better_than(best)) best = e;
  return best;
}

}  // namespace infoflow::theorems::detail
