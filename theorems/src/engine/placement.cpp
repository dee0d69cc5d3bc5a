// The exact placement search: depth-first over the quantities in dependency order. Every rule
// below prunes only what cannot change the answer, so the placement found (and, among equally
// cheap ones, which) is the one an unpruned search finds:
// - capacity and dependencies: a quantity goes only where its inputs are held and a head is
//   free, and a partial placement is abandoned where the heads left cannot hold every remaining
//   quantity (heads_suffice());
// - symmetry: copies of one unrolled template are placed in slot order;
// - branch and bound on the cost: a partial placement's cost only grows, each remaining
//   quantity costs at least its cheapest action, and the heads it must fill enlarge the
//   information sets at least that much (least_completion());
// - a memo of the states searched: identical actions placed in another order (or any other
//   way to the same heads, information sets and held inputs) reach a state searched already.
#include "placement.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "searcher.hpp"

namespace infoflow::theorems::detail {

PlacementResult Searcher::run() {
  PlacementResult out;
  // Each k-th largest is either its chain of masked retrievals or one Theorem 2 retrieval:
  // 2^groups variants, each a node of the budget (past it no variant would search).
  const std::uint64_t groups = variant_groups();
  std::uint64_t variant = 0;
  do {
    if (done_ || ++nodes_ > node_cap_) break;
    set_variant(variant);
    if (first_efficient_ && !can_be_efficient()) continue;
    dfs(0, prices_.floor);
  } while ((variant = next_variant(variant, groups)) != 0);
  if (found_) {
    out.best = best_;
  } else if (!first_efficient_ && nodes_ <= node_cap_) {
    out.unplaced = unplaced();
  }
  out.truncated = nodes_ > node_cap_;
  return out;
}

std::uint64_t Searcher::variant_groups() const {
  const std::size_t groups = p_.ranked.size();
  std::uint64_t out = groups < 64 ? (std::uint64_t{1} << groups) - 1 : ~std::uint64_t{0};
  if (!first_efficient_) return out;
  for (std::size_t g = 0; g < groups && g < 64; ++g) {
    bool flat = false;
    for (long l = 1; l <= layers_ && !flat; ++l)
      flat = std::abs(prices_.kth(l, p_.ranked[g].rank).slope) <= kTolerance;
    if (!flat) out &= ~(std::uint64_t{1} << g);
  }
  return out;
}

std::uint64_t Searcher::next_variant(std::uint64_t variant, std::uint64_t groups) {
  return (variant - groups) & groups;
}

void Searcher::set_variant(std::uint64_t variant) {
  const std::size_t m = p_.quantities.size();
  present_.assign(m, true);
  std::fill(current_.theorem2.begin(), current_.theorem2.end(), false);
  needs_.resize(m);
  for (std::size_t q = 0; q < m; ++q) needs_[q] = &p_.quantities[q].needs;
  merged_needs_.resize(p_.ranked.size());
  for (std::size_t g = 0; g < p_.ranked.size(); ++g) {
    if (g >= 64 || ((variant >> g) & 1u) == 0) continue;
    const Ranked& r = p_.ranked[g];
    for (const int step : r.steps) in_chain_[static_cast<std::size_t>(step)] = true;
    std::vector<int>& merged = merged_needs_[g];
    merged.clear();
    for (const int step : r.steps) {
      for (const int need : *needs_[static_cast<std::size_t>(step)]) {
        if (!in_chain_[static_cast<std::size_t>(need)]) merged.push_back(need);
      }
      present_[static_cast<std::size_t>(step)] = false;
    }
    for (const int step : r.steps) in_chain_[static_cast<std::size_t>(step)] = false;
    const auto last = static_cast<std::size_t>(r.steps.back());
    present_[last] = true;
    current_.theorem2[last] = true;
    std::sort(merged.begin(), merged.end());
    merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
    needs_[last] = &merged;
  }
  // The last quantity that reads each one (its need, or its next copy): a state's key holds
  // the slots of those placed and still read.
  last_reader_.assign(m, -1);
  for (std::size_t j = 0; j < m; ++j) {
    if (!present_[j]) continue;
    for (const int need : *needs_[j]) last_reader_[static_cast<std::size_t>(need)] = static_cast<long>(j);
    if (const int prev = previous_copy_[j]; prev >= 0)
      last_reader_[static_cast<std::size_t>(prev)] = static_cast<long>(j);
  }
  // What the quantities from each one on cost at least: each its cheapest action.
  present_count_ = static_cast<long>(std::count(present_.begin(), present_.end(), true));
  cheapest_after_.assign(m + 1, prices_.floor);
  for (std::size_t j = m; j-- > 0;) {
    cheapest_after_[j] = cheapest_after_[j + 1];
    if (!present_[j]) continue;
    Price cheapest = action_price(j, Slot{1, false});
    for (long l = 2; l <= layers_; ++l) {
      const Price p = action_price(j, Slot{l, false});
      if (cheaper(p, cheapest)) cheapest = p;
    }
    cheapest_after_[j] = costlier(cheapest_after_[j], cheapest);
  }
  memo_.clear();
}

void Searcher::dfs(std::size_t i, const Price& placed) {
  if (done_ || ++nodes_ > node_cap_) return;
  const Price partial = with_decodings(placed);
  // Branch and bound: costs only grow, and every quantity left costs its cheapest action.
  if (found_ && cheaper(best_.cost, costlier(partial, cheapest_after_[std::min(i, limit_)]))) return;
  while (i < limit_ && !present_[i]) ++i;
  if (i == limit_) {
    leaf(placed);
    return;
  }
  if (!first_visit(i, partial) || !heads_suffice(i)) return;
  // Bound again with the heads the remaining quantities must fill: a placement can only tie
  // the best found, which it does not replace, unless it takes fewer actions.
  if (found_ && !cheaper(least_completion(placed, i), best_.cost) &&
      best_.actions <= present_count_)
    return;
  const Quantity& q = p_.quantities[i];
  for (long l = 1; l <= layers_; ++l) {
    for (const bool readout : {true, false}) {
      if (!readout && l == layers_) continue;  // nothing after the last layer reads it
      if (readout && q.holder == Holder::kToken) continue;
      const Slot s{l, readout};
      if (!allowed(i, q, s)) continue;
      const auto layer = static_cast<std::size_t>(l);
      const std::size_t at = readout ? 1 : 0;
      auto& count = used_[layer][at];
      // R6: means at one (layer, token class) share uniform heads, n averaged values a head.
      auto& pooled = pooled_means_[layer][at];
      const long n = a_.head_dim_of(l - 1);
      const long values = q.mode == Mode::kMean ? q.averaged(a_.token_dim) : 0;
      const long heads = q.mode == Mode::kMean ? mean_heads_opened(pooled, values, n) : 1;
      if (count + heads > a_.heads[static_cast<std::size_t>(l - 1)]) continue;
      // The heads write into the E-dimensional stream: no more than E averaged values there,
      // whatever h n is (the search holds n fixed: (1,2) with n = E once pooled 2E means).
      if (pooled + values > a_.embedding) continue;
      const Fetches adds = fetches_of(q);
      Fetches& fetched = fetches_[layer][at];
      count += heads;
      pooled += values;
      fetched.scaled += adds.scaled;
      fetched.single += adds.single;
      current_.slots[i] = s;
      dfs(i + 1, costlier(placed, action_price(i, s)));
      current_.slots[i].reset();
      count -= heads;
      pooled -= values;
      fetched.scaled -= adds.scaled;
      fetched.single -= adds.single;
      if (done_) return;
    }
  }
}

Price Searcher::with_decodings(Price cost) const {
  const Sizes sizes = sizes_from(fetches_, layers_);
  for (long l = 1; l < layers_; ++l) {
    if (used_[static_cast<std::size_t>(l)][0] > 0)
      cost = costlier(cost, prices_.decode(static_cast<double>(sizes.token[static_cast<std::size_t>(l)])));
  }
  return costlier(cost, prices_.decode(static_cast<double>(sizes.readout.back())));
}

Price Searcher::action_price(std::size_t q, const Slot& s) const {
  const Quantity& quantity = p_.quantities[q];
  if (current_.theorem2[q]) return prices_.kth(s.layer, rank_of_step_[q]);
  if (quantity.mode == Mode::kPositions) return prices_.decode(static_cast<double>(quantity.positions));
  if (quantity.mode == Mode::kMean) return prices_.mean;
  return prices_.floor;
}

void Searcher::leaf(const Price& placed) {
  if (prefix_only_) {  // unplaced(): the prefix fits
    found_ = done_ = true;
    return;
  }
  // The readout must hold every output at the end: one it computed, or one every token
  // holds, carried by any readout fetch in a later layer.
  long carry_after = 0;
  for (const int o : p_.outputs) {
    const auto& s = current_.slots[static_cast<std::size_t>(o)];
    if (!s) return;
    if (!s->readout) carry_after = std::max(carry_after, s->layer);
  }
  long last_readout = 0;
  for (long l = 1; l <= layers_; ++l) {
    if (used_[static_cast<std::size_t>(l)][1] > 0) last_readout = l;
  }
  current_.carry.reset();
  if (carry_after > 0 && last_readout <= carry_after) {
    for (long l = layers_; l > carry_after && !current_.carry; --l) {
      if (used_[static_cast<std::size_t>(l)][1] < a_.heads[static_cast<std::size_t>(l - 1)])
        current_.carry = l;
    }
    if (!current_.carry) return;
  }
  if (current_.carry) ++fetches_[static_cast<std::size_t>(*current_.carry)][1].scaled;
  current_.cost = with_decodings(placed);
  if (current_.carry) --fetches_[static_cast<std::size_t>(*current_.carry)][1].scaled;
  current_.actions = (current_.carry ? 1 : 0);
  for (const auto& s : current_.slots) current_.actions += s ? 1 : 0;
  if (!found_ || cheaper(current_.cost, best_.cost) ||
      (same(current_.cost, best_.cost) && current_.actions < best_.actions)) {
    best_ = current_;
    found_ = true;
    // Nothing beats the floor with no action beyond one per quantity.
    if (same(best_.cost, prices_.floor) && best_.actions == present_count_) done_ = true;
    if (first_efficient_ && std::abs(best_.cost.slope) <= kTolerance) done_ = true;
  }
}

std::string Searcher::unplaced() {
  prefix_only_ = true;
  std::size_t deepest = 0;
  const std::uint64_t groups = variant_groups();
  std::uint64_t variant = 0;
  do {
    if (nodes_ > node_cap_) break;
    set_variant(variant);
    std::vector<std::size_t> order;  // the variant's quantities
    for (std::size_t q = 0; q < p_.quantities.size(); ++q) {
      if (present_[q]) order.push_back(q);
    }
    // order[k] is reached where the quantities before it fit (for k = 0 they do). Only one
    // past the deepest another variant reached can change the answer.
    const auto deeper = static_cast<std::size_t>(
        std::upper_bound(order.begin(), order.end(), deepest) - order.begin());
    if (deeper == order.size() || (deeper > 0 && !prefix_fits(order[deeper]))) continue;
    std::size_t fits = deeper;
    std::size_t fails = order.size();
    while (fails - fits > 1) {
      const std::size_t k = (fits + fails) / 2;
      (prefix_fits(order[k]) ? fits : fails) = k;
    }
    deepest = std::max(deepest, order[fits]);
  } while ((variant = next_variant(variant, groups)) != 0);
  prefix_only_ = false;
  limit_ = p_.quantities.size();
  if (deepest < p_.quantities.size()) {
    const Quantity& q = p_.quantities[deepest];
    return q.name + " (" + q.what + ")";
  }
  return "the output (no readout slot left to carry it)";
}

bool Searcher::prefix_fits(std::size_t end) {
  limit_ = end;
  memo_.clear();
  found_ = done_ = false;
  dfs(0, prices_.floor);
  const bool fits = found_;
  found_ = done_ = false;
  return fits;
}

bool cheaper(const Price& a, const Price& b) {
  if (std::abs(a.slope - b.slope) > kTolerance) return a.slope < b.slope;
  return a.constant < b.constant - kTolerance;
}

Price costlier(const Price& a, const Price& b) {
  return cheaper(a, b) ? b : a;
}

Price PriceModel::decode(double size) const {
  return costlier(Price{0, decode_per_token * size + decode_constant}, floor);
}

Price PriceModel::decode_sequence() const {
  return costlier(Price{decode_per_token, decode_constant}, floor);
}

Price PriceModel::kth(long layer, long rank) const {
  Price p = kth_per_layer.at(static_cast<std::size_t>(layer - 1));
  p.constant += kth_rank.at(static_cast<std::size_t>(layer - 1)) * static_cast<double>(rank);
  return costlier(p, floor);
}

Fetches fetches_of(const Quantity& quantity) {
  if (quantity.mode == Mode::kPositions) return {quantity.positions, 0};
  if (quantity.mode == Mode::kMean) return {0, 1};
  return {1, 0};
}

Sizes sizes_from(const FetchTable& fetches, long layers) {
  Sizes s;
  s.token.push_back(1);
  s.readout.push_back(0);
  for (long l = 1; l <= layers; ++l) {
    const long before = s.token.back();
    const auto& f = fetches[static_cast<std::size_t>(l)];
    s.token.push_back(before + f[0].scaled * before + f[0].single);
    s.readout.push_back(s.readout.back() + f[1].scaled * before + f[1].single);
  }
  return s;
}

Sizes sizes_of(const Program& program, const Placement& placement, long layers) {
  FetchTable fetches(static_cast<std::size_t>(layers + 1));
  for (std::size_t q = 0; q < program.quantities.size(); ++q) {
    const auto& slot = placement.slots[q];
    if (!slot) continue;
    const Fetches adds = fetches_of(program.quantities[q]);
    Fetches& f = fetches[static_cast<std::size_t>(slot->layer)][slot->readout ? 1 : 0];
    f.scaled += adds.scaled;
    f.single += adds.single;
  }
  if (placement.carry) ++fetches[static_cast<std::size_t>(*placement.carry)][1].scaled;
  return sizes_from(fetches, layers);
}

PlacementResult place(const Program& program, const Architecture& architecture,
                      const PriceModel& prices, bool first_efficient, long node_cap) {
  return Searcher(program, architecture, prices, first_efficient, node_cap).run();
}

}  // namespace infoflow::theorems::detail
