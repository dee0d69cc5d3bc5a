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
#include <unordered_map>

namespace infoflow::theorems::detail {

namespace {

constexpr double kTolerance = 1e-9;
/// The memo stops taking new states past this many (a bound on its memory); the search stays
/// exact, only slower.
constexpr std::size_t kMemoStates = std::size_t{1} << 18;

bool same(const Price& a, const Price& b) {
  return std::abs(a.slope - b.slope) <= kTolerance && std::abs(a.constant - b.constant) <= kTolerance;
}

/// Slots in the order copies are placed in: the tokens of layer l, then its readout.
long rank_of(const Slot& s) {
  return 2 * s.layer + (s.readout ? 1 : 0);
}

/// Appends a non-negative integer to a memo key, 7 bits a byte.
void append(std::string& key, long value) {
  auto v = static_cast<std::uint64_t>(value);
  while (v >= 0x80) {
    key.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  key.push_back(static_cast<char>(v));
}

class Searcher {
 public:
  Searcher(const Program& program, const Architecture& a, const PriceModel& prices,
           bool first_efficient, long node_cap)
      : p_(program),
        a_(a),
        prices_(prices),
        layers_(a.layers()),
        first_efficient_(first_efficient),
        node_cap_(node_cap) {
    const std::size_t m = p_.quantities.size();
    current_.slots.assign(m, std::nullopt);
    current_.theorem2.assign(m, false);
    used_.assign(static_cast<std::size_t>(layers_ + 1), {0, 0});
    pooled_means_.assign(static_cast<std::size_t>(layers_ + 1), {0, 0});
    fetches_.assign(static_cast<std::size_t>(layers_ + 1), {});
    previous_copy_.assign(m, -1);
    for (const std::vector<int>& group : p_.interchangeable) {
      for (std::size_t j = 1; j < group.size(); ++j)
        previous_copy_[static_cast<std::size_t>(group[j])] = group[j - 1];
    }
    rank_of_step_.assign(m, 0);
    for (const Ranked& r : p_.ranked) rank_of_step_[static_cast<std::size_t>(r.steps.back())] = r.rank;
    in_chain_.assign(m, false);
    earliest_.assign(m, 0);
    limit_ = m;
  }

  PlacementResult run() {
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

 private:
  /// The k-th largests whose Theorem 2 retrieval a variant may take, a bit each (the first 64):
  /// every one, or for a verdict only those whose retrieval does not grow with T in some layer
  /// (a variant with another cannot be efficient; once all 2^groups were set up to see that).
  [[nodiscard]] std::uint64_t variant_groups() const {
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

  /// The next variant in increasing order whose groups are among `groups`; 0 after the last.
  static std::uint64_t next_variant(std::uint64_t variant, std::uint64_t groups) {
    return (variant - groups) & groups;
  }

  /// Which quantities this variant places, what each needs, and what the search keys on.
  void set_variant(std::uint64_t variant) {
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

  /// `placed`: the floor and the actions placed so far, the costlier of each in turn.
  void dfs(std::size_t i, const Price& placed) {
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
    for (const int need : *needs_[i]) {
      const Quantity& n = p_.quantities[static_cast<std::size_t>(need)];
      const auto& at = current_.slots[static_cast<std::size_t>(need)];
      if (!at || at->layer >= s.layer) return false;
      // Token values are held by the tokens; a global one read by tokens must be held by them.
      const bool tokens_read = n.holder == Holder::kToken || !s.readout || q.needs_at_tokens;
      if (tokens_read && at->readout) return false;
    }
    return true;
  }

  /// Hall's condition on the heads left, a necessary one: every remaining quantity but a mean
  /// (which may share a head opened already) takes a head of its own, in a slot no earlier
  /// than its placed inputs, its unplaced inputs' earliest slots and its previous copy allow,
  /// of its class (tokens only for a token value; the readout only for what reads a global
  /// held there). For each slot rank r, the quantities that must go at r or later must not
  /// outnumber the free heads there. Without it, a target with more quantities than heads
  /// tried every way to fill the heads before giving up. Also counts, for least_completion(),
  /// the heads each slot must fill.
  bool heads_suffice(std::size_t i) {
    const long top = 2 * layers_ + 1;  // the readout of the last layer
    demand_.assign(static_cast<std::size_t>(top + 1), {0, 0, 0});
    long fetch_nothing = 0;  // remaining quantities that take a head but add nothing to a set
    for (std::size_t j = i; j < limit_; ++j) {
      if (!present_[j]) continue;
      const Quantity& q = p_.quantities[j];
      long layer = q.needs_ffn ? 2 : 1;
      bool readout_only = false;
      for (const int need : *needs_[j]) {
        const auto n = static_cast<std::size_t>(need);
        if (n < i) {
          const auto& at = current_.slots[n];
          if (!at) return false;  // never placed: allowed() refuses j
          layer = std::max(layer, at->layer + 1);
          if (at->readout) {  // a global at the readout is read only there
            if (q.holder == Holder::kToken || q.needs_at_tokens) return false;
            readout_only = true;
          }
        } else {
          if (!present_[n]) return false;
          layer = std::max(layer, earliest_[n] / 2 + 1);
        }
      }
      long rank = 2 * layer;
      if (const int prev = previous_copy_[j]; prev >= 0) {
        const auto pr = static_cast<std::size_t>(prev);
        if (pr < i && current_.slots[pr]) rank = std::max(rank, rank_of(*current_.slots[pr]));
        if (pr >= i && present_[pr]) rank = std::max(rank, earliest_[pr]);
      }
      const bool tokens_only = q.holder == Holder::kToken;
      if ((tokens_only && rank % 2 == 1) || (readout_only && rank % 2 == 0)) ++rank;
      if (rank > (tokens_only ? 2 * (layers_ - 1) : top)) return false;
      earliest_[j] = rank;
      if (q.mode != Mode::kMean) {
        ++demand_[static_cast<std::size_t>(rank)][tokens_only ? 0 : readout_only ? 1 : 2];
        if (fetches_of(q).scaled == 0) ++fetch_nothing;
      }
    }
    long tokens_only = 0;
    long readout_only = 0;
    long all = 0;
    long free_tokens = 0;
    long free_readout = 0;
    free_at_.assign(static_cast<std::size_t>(top + 1), 0);
    demand_from_.assign(static_cast<std::size_t>(top + 2), 0);
    for (long r = top; r >= 2; --r) {
      const auto& d = demand_[static_cast<std::size_t>(r)];
      tokens_only += d[0];
      readout_only += d[1];
      all += d[0] + d[1] + d[2];
      const long l = r / 2;
      const long heads = a_.heads[static_cast<std::size_t>(l - 1)];
      long& free = free_at_[static_cast<std::size_t>(r)];
      if (r % 2 == 1) {
        free = heads - used_[static_cast<std::size_t>(l)][1];
        free_readout += free;
      } else if (l < layers_) {
        free = heads - used_[static_cast<std::size_t>(l)][0];
        free_tokens += free;
      }
      demand_from_[static_cast<std::size_t>(r)] = all;
      if (tokens_only > free_tokens || readout_only > free_readout ||
          all > free_tokens + free_readout)
        return false;
    }
    // The heads each slot must fill: what does not fit in the other slots, and what must go at
    // or after it and does not fit after it. Each adds one token's set at least, but those
    // that add nothing.
    const long free_all = free_tokens + free_readout;
    forced_.assign(static_cast<std::size_t>(top + 1), 0);
    long free_after = 0;
    for (long r = top; r >= 2; --r) {
      const auto at = static_cast<std::size_t>(r);
      const long must = std::max({0L, all - (free_all - free_at_[at]), demand_from_[at] - free_after});
      forced_[at] = std::max(0L, must - fetch_nothing);
      free_after += free_at_[at];
    }
    return true;
  }

  /// A lower bound on the cost of any completion of the placement at quantity i (after
  /// heads_suffice(i)): the actions placed, each remaining quantity's cheapest action, and the
  /// decoding of the information sets with the heads each slot must fill filled.
  Price least_completion(const Price& placed, std::size_t i) {
    FetchTable& least = least_fetches_;
    least = fetches_;
    std::vector<bool> token_actions(static_cast<std::size_t>(layers_ + 1), false);
    for (long l = 1; l <= layers_; ++l) {
      const auto layer = static_cast<std::size_t>(l);
      least[layer][0].scaled += forced_[static_cast<std::size_t>(2 * l)];
      least[layer][1].scaled += forced_[static_cast<std::size_t>(2 * l + 1)];
      token_actions[layer] = used_[layer][0] > 0 || forced_[static_cast<std::size_t>(2 * l)] > 0;
    }
    const Sizes sizes = sizes_from(least, layers_);
    Price cost = costlier(placed, cheapest_after_[i]);
    for (long l = 1; l < layers_; ++l) {
      if (token_actions[static_cast<std::size_t>(l)])
        cost = costlier(cost, prices_.decode(static_cast<double>(sizes.token[static_cast<std::size_t>(l)])));
    }
    return costlier(cost, prices_.decode(static_cast<double>(sizes.readout.back())));
  }

  /// Whether the state at quantity i is new, or was searched before at a higher cost: the
  /// actions still to place see only what the key holds (the heads and averaged values used,
  /// what each layer fetched, the slots of the placed quantities still read, the latest layer
  /// whose tokens hold an output), so a state met again at no lower cost has nothing cheaper
  /// below it, nor anything as cheap that the first visit did not meet first.
  bool first_visit(std::size_t i, const Price& partial) {
    key_.clear();
    append(key_, static_cast<long>(i));
    for (long l = 1; l <= layers_; ++l) {
      const auto layer = static_cast<std::size_t>(l);
      for (std::size_t at = 0; at < 2; ++at) {
        append(key_, used_[layer][at]);
        append(key_, pooled_means_[layer][at]);
        append(key_, fetches_[layer][at].scaled);
        append(key_, fetches_[layer][at].single);
      }
    }
    long outputs_at_tokens = 0;
    for (const int o : p_.outputs) {
      const auto& s = current_.slots[static_cast<std::size_t>(o)];
      if (s && !s->readout) outputs_at_tokens = std::max(outputs_at_tokens, s->layer);
    }
    append(key_, outputs_at_tokens);
    for (std::size_t q = 0; q < i; ++q) {
      if (last_reader_[q] >= static_cast<long>(i) && current_.slots[q])
        append(key_, rank_of(*current_.slots[q]));
    }
    const auto hit = memo_.find(key_);
    if (hit == memo_.end()) {
      if (memo_.size() < kMemoStates) memo_.emplace(key_, partial);
      return true;
    }
    if (!cheaper(partial, hit->second)) return false;
    hit->second = partial;
    return true;
  }

  /// `placed` with the decoding of every information set the placement so far makes.
  Price with_decodings(Price cost) const {
    const Sizes sizes = sizes_from(fetches_, layers_);
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

  void leaf(const Price& placed) {
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

  /// Where no placement exists: the quantity that finds no slot, the first one past the
  /// longest run of quantities (in order) that can all be placed, in any variant. (The search
  /// once walked every partial placement to find it; this asks whether each prefix fits.)
  std::string unplaced() {
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

  /// Whether the variant's quantities before `end` can all be placed.
  bool prefix_fits(std::size_t end) {
    limit_ = end;
    memo_.clear();
    found_ = done_ = false;
    dfs(0, prices_.floor);
    const bool fits = found_;
    found_ = done_ = false;
    return fits;
  }

  const Program& p_;
  const Architecture& a_;
  const PriceModel& prices_;
  long layers_;
  bool first_efficient_;
  long node_cap_;
  Placement current_;
  Placement best_;
  bool found_ = false;
  bool done_ = false;
  bool prefix_only_ = false;
  long nodes_ = 0;
  std::size_t limit_;  // the quantities searched are those before this one
  std::vector<std::array<long, 2>> used_;  // [layer][inputs, readout]
  std::vector<std::array<long, 2>> pooled_means_;  // averaged values placed there, likewise
  FetchTable fetches_;
  std::vector<bool> present_;
  std::vector<const std::vector<int>*> needs_;  // per quantity, in this variant
  std::vector<std::vector<int>> merged_needs_;   // per k-th largest in one retrieval: its needs
  std::vector<int> previous_copy_;
  std::vector<long> rank_of_step_;
  std::vector<bool> in_chain_;
  std::vector<long> last_reader_;
  std::vector<Price> cheapest_after_;
  std::vector<long> earliest_;  // heads_suffice(): each remaining quantity's earliest slot rank
  std::vector<std::array<long, 3>> demand_;  // per rank: tokens only, readout only, either
  std::vector<long> demand_from_;  // per rank: the quantities that must go there or later
  std::vector<long> free_at_;      // per rank: free heads
  std::vector<long> forced_;       // per rank: heads that must be filled
  FetchTable least_fetches_;
  long present_count_ = 0;
  std::string key_;
  std::unordered_map<std::string, Price> memo_;
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
