// The exact placement search: depth-first over the quantities in dependency order, with
// capacity and dependency pruning, symmetry breaking between interchangeable copies, and
// branch and bound on the cost (a partial placement's cost only grows as actions are added).
#include "placement.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace infoflow::theorems::detail {

namespace {

/// The search gives up (and says so) past this many nodes.
constexpr long kNodeBudget = 400000;
constexpr double kTolerance = 1e-9;

bool same(const Price& a, const Price& b) {
  return std::abs(a.slope - b.slope) <= kTolerance && std::abs(a.constant - b.constant) <= kTolerance;
}

long rank_of(const Slot& s) {
  return 2 * s.layer + (s.readout ? 1 : 0);
}

class Searcher {
 public:
  Searcher(const Program& program, const Architecture& a, const PriceModel& prices,
           bool first_efficient)
      : p_(program), a_(a), prices_(prices), layers_(a.layers()), first_efficient_(first_efficient) {
    const std::size_t m = p_.quantities.size();
    current_.slots.assign(m, std::nullopt);
    current_.theorem2.assign(m, false);
    used_.assign(static_cast<std::size_t>(layers_ + 1), {0, 0});
    pooled_means_.assign(static_cast<std::size_t>(layers_ + 1), {0, 0});
    previous_copy_.assign(m, -1);
    for (const std::vector<int>& group : p_.interchangeable) {
      for (std::size_t j = 1; j < group.size(); ++j)
        previous_copy_[static_cast<std::size_t>(group[j])] = group[j - 1];
    }
    rank_of_step_.assign(m, 0);
    for (const Ranked& r : p_.ranked) rank_of_step_[static_cast<std::size_t>(r.steps.back())] = r.rank;
  }

  PlacementResult run() {
    PlacementResult out;
    const std::size_t groups = p_.ranked.size();
    // Each k-th largest is either its chain of masked retrievals or one Theorem 2 retrieval:
    // 2^groups variants, each a node of the budget (past it no variant would search).
    const std::uint64_t variants = groups < 64 ? std::uint64_t{1} << groups : ~std::uint64_t{0};
    for (std::uint64_t variant = 0; variant < variants && !done_ && ++nodes_ <= kNodeBudget;
         ++variant) {
      present_.assign(p_.quantities.size(), true);
      std::fill(current_.theorem2.begin(), current_.theorem2.end(), false);
      needs_ = {};
      for (const Quantity& q : p_.quantities) needs_.push_back(q.needs);
      for (std::size_t g = 0; g < groups; ++g) {
        if (g >= 64 || ((variant >> g) & 1u) == 0) continue;
        const Ranked& r = p_.ranked[g];
        std::vector<int> merged;
        for (const int step : r.steps) {
          for (const int need : needs_[static_cast<std::size_t>(step)]) {
            if (std::find(r.steps.begin(), r.steps.end(), need) == r.steps.end())
              merged.push_back(need);
          }
          present_[static_cast<std::size_t>(step)] = false;
        }
        const auto last = static_cast<std::size_t>(r.steps.back());
        present_[last] = true;
        current_.theorem2[last] = true;
        std::sort(merged.begin(), merged.end());
        merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
        needs_[last] = merged;
      }
      if (first_efficient_ && !can_be_efficient()) continue;
      dfs(0);
    }
    out.truncated = nodes_ > kNodeBudget;
    if (found_) {
      out.best = best_;
    } else if (deepest_ < p_.quantities.size()) {
      const Quantity& q = p_.quantities[deepest_];
      out.unplaced = q.name + " (" + q.what + ")";
    } else {
      out.unplaced = "the output (no readout slot left to carry it)";
    }
    return out;
  }

 private:
  void dfs(std::size_t i) {
    if (done_ || ++nodes_ > kNodeBudget) return;
    if (found_) {
      const Price partial = partial_cost();
      if (cheaper(best_.cost, partial)) return;  // branch and bound: costs only grow
    }
    while (i < p_.quantities.size() && !present_[i]) ++i;
    if (i == p_.quantities.size()) {
      leaf();
      return;
    }
    deepest_ = std::max(deepest_, i);
    const Quantity& q = p_.quantities[i];
    for (long l = 1; l <= layers_; ++l) {
      for (const bool readout : {true, false}) {
        if (!readout && l == layers_) continue;  // nothing after the last layer reads it
        if (readout && q.holder == Holder::kToken) continue;
        const Slot s{l, readout};
        if (!allowed(i, q, s)) continue;
        auto& count = used_[static_cast<std::size_t>(l)][readout ? 1 : 0];
        // R6: means at one (layer, token class) share uniform heads, n averaged values a head.
        auto& pooled = pooled_means_[static_cast<std::size_t>(l)][readout ? 1 : 0];
        const long n = a_.head_dim_of(l - 1);
        const long values = q.mode == Mode::kMean ? q.values : 0;
        const long heads = q.mode == Mode::kMean ? mean_heads_opened(pooled, values, n) : 1;
        if (count + heads > a_.heads[static_cast<std::size_t>(l - 1)]) continue;
        // The heads write into the E-dimensional stream: no more than E averaged values there,
        // whatever h n is (the search holds n fixed: (1,2) with n = E once pooled 2E means).
        if (pooled + values > a_.embedding) continue;
        count += heads;
        pooled += values;
        current_.slots[i] = s;
        dfs(i + 1);
        current_.slots[i].reset();
        count -= heads;
        pooled -= values;
        if (done_) return;
      }
    }
  }

  /// Whether every quantity of this variant has an action whose price does not grow with T in
  /// some layer: a cost is the costliest action's, so a variant with none cannot be efficient
  /// (a k-th retrieval in one layer, Theorem 2, is exponential in T wherever it goes).
  bool can_be_efficient() const {
    for (std::size_t q = 0; q < p_.quantities.size(); ++q) {
      if (!present_[q]) continue;
      bool flat = false;
      for (long l = 1; l <= layers_ && !flat; ++l)
        flat = std::abs(action_price(q, Slot{l, false}).slope) <= kTolerance;
      if (!flat) return false;
    }
    return true;
  }

  bool allowed(std::size_t i, const Quantity& q, const Slot& s) const {
    if (q.needs_ffn && s.layer < 2) return false;  // an FFN computes the value first
    if (const int prev = previous_copy_[i]; prev >= 0) {
      const auto& other = current_.slots[static_cast<std::size_t>(prev)];
      if (other && rank_of(s) < rank_of(*other)) return false;  // copies in slot order
    }
    for (const int need : needs_[i]) {
      const Quantity& n = p_.quantities[static_cast<std::size_t>(need)];
      const auto& at = current_.slots[static_cast<std::size_t>(need)];
      if (!at || at->layer >= s.layer) return false;
      // Token values are held by the tokens; a global one read by tokens must be held by them.
      const bool tokens_read = n.holder == Holder::kToken || !s.readout || q.needs_at_tokens;
      if (tokens_read && at->readout) return false;
    }
    return true;
  }

  /// The cost of what is placed so far (it can only grow).
  Price partial_cost() const {
    Price cost = prices_.floor;
    const Sizes sizes = sizes_of(p_, current_, layers_);
    for (std::size_t q = 0; q < p_.quantities.size(); ++q) {
      if (!current_.slots[q]) continue;
      cost = costlier(cost, action_price(q, *current_.slots[q]));
    }
    for (long l = 1; l < layers_; ++l) {
      if (used_[static_cast<std::size_t>(l)][0] > 0)
        cost = costlier(cost, prices_.decode(static_cast<double>(sizes.token[static_cast<std::size_t>(l)])));
    }
    return costlier(cost, prices_.decode(static_cast<double>(sizes.readout.back())));
  }

  Price action_price(std::size_t q, const Slot& s) const {
    const Quantity& quantity = p_.quantities[q];
    if (current_.theorem2[q]) return prices_.kth(s.layer, rank_of_step_[q]);
    if (quantity.mode == Mode::kPositions) return prices_.decode(static_cast<double>(quantity.positions));
    if (quantity.mode == Mode::kMean) return prices_.mean;
    return prices_.floor;
  }

  void leaf() {
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
      ++used_[static_cast<std::size_t>(*current_.carry)][1];
    }
    current_.cost = partial_cost();
    if (current_.carry) --used_[static_cast<std::size_t>(*current_.carry)][1];
    current_.actions = (current_.carry ? 1 : 0);
    for (const auto& s : current_.slots) current_.actions += s ? 1 : 0;
    if (!found_ || cheaper(current_.cost, best_.cost) ||
        (same(current_.cost, best_.cost) && current_.actions < best_.actions)) {
      best_ = current_;
      found_ = true;
      // Nothing beats the floor with no action beyond one per quantity.
      std::size_t present = 0;
      for (const bool b : present_) present += b ? 1 : 0;
      if (same(best_.cost, prices_.floor) && best_.actions == static_cast<long>(present)) done_ = true;
      if (first_efficient_ && std::abs(best_.cost.slope) <= kTolerance) done_ = true;
    }
  }

  const Program& p_;
  const Architecture& a_;
  const PriceModel& prices_;
  long layers_;
  bool first_efficient_;
  Placement current_;
  Placement best_;
  bool found_ = false;
  bool done_ = false;
  long nodes_ = 0;
  std::size_t deepest_ = 0;
  std::vector<std::array<long, 2>> used_;  // [layer][inputs, readout]
  std::vector<std::array<long, 2>> pooled_means_;  // averaged values placed there, likewise
  std::vector<bool> present_;
  std::vector<std::vector<int>> needs_;
  std::vector<int> previous_copy_;
  std::vector<long> rank_of_step_;
};

}  // namespace

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

Sizes sizes_of(const Program& program, const Placement& placement, long layers) {
  Sizes s;
  s.token.push_back(1);
  s.readout.push_back(0);
  for (long l = 1; l <= layers; ++l) {
    const long before = s.token.back();
    long tokens = before;
    long readout = s.readout.back();
    for (std::size_t q = 0; q < program.quantities.size(); ++q) {
      const auto& slot = placement.slots[q];
      if (!slot || slot->layer != l) continue;
      const Quantity& quantity = program.quantities[q];
      const long fetched = quantity.mode == Mode::kPositions ? quantity.positions * before
                           : quantity.mode == Mode::kMean    ? 1
                                                             : before;
      (slot->readout ? readout : tokens) += fetched;
    }
    if (placement.carry && *placement.carry == l) readout += before;
    s.token.push_back(tokens);
    s.readout.push_back(readout);
  }
  return s;
}

PlacementResult place(const Program& program, const Architecture& architecture,
                      const PriceModel& prices, bool first_efficient) {
  return Searcher(program, architecture, prices, first_efficient).run();
}

}  // namespace infoflow::theorems::detail
