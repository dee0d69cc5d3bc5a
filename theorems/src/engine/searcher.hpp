#ifndef INFOFLOW_THEOREMS_ENGINE_SEARCHER_HPP_
#define INFOFLOW_THEOREMS_ENGINE_SEARCHER_HPP_

// The exact placement search's state and steps (placement.cpp: the search; placement_bounds.cpp:
// what prunes it). Internal to the engine.

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "placement.hpp"

namespace infoflow::theorems::detail {

inline constexpr double kTolerance = 1e-9;
/// The memo stops taking new states past this many (a bound on its memory); the search stays
/// exact, only slower.
inline constexpr std::size_t kMemoStates = std::size_t{1} << 18;

inline bool same(const Price& a, const Price& b) {
  return std::abs(a.slope - b.slope) <= kTolerance && std::abs(a.constant - b.constant) <= kTolerance;
}

/// Slots in the order copies are placed in: the tokens of layer l, then its readout.
inline long rank_of(const Slot& s) {
  return 2 * s.layer + (s.readout ? 1 : 0);
}

/// Appends a non-negative integer to a memo key, 7 bits a byte.
inline void append(std::string& key, long value) {
  auto v = static_cast<std::uint64_t>(value);
  while (v >= 0x80) {
    key.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  key.push_back(static_cast<char>(v));
}

/// The exact placement search for one program on one architecture (placement.cpp): depth-first
/// over the quantities in dependency order, for each variant of the k-th largests.
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

  PlacementResult run();

 private:
  /// The k-th largests whose Theorem 2 retrieval a variant may take, a bit each (the first 64):
  /// every one, or for a verdict only those whose retrieval does not grow with T in some layer
  /// (a variant with another cannot be efficient; once all 2^groups were set up to see that).
  [[nodiscard]] std::uint64_t variant_groups() const;

  /// The next variant in increasing order whose groups are among `groups`; 0 after the last.
  static std::uint64_t next_variant(std::uint64_t variant, std::uint64_t groups);

  /// Which quantities this variant places, what each needs, and what the search keys on.
  void set_variant(std::uint64_t variant);

  /// `placed`: the floor and the actions placed so far, the costlier of each in turn.
  void dfs(std::size_t i, const Price& placed);

  /// Whether every quantity of this variant has an action whose price does not grow with T in
  /// some layer: a cost is the costliest action's, so a variant with none cannot be efficient
  /// (a k-th retrieval in one layer, Theorem 2, is exponential in T wherever it goes).
  bool can_be_efficient() const;

  bool allowed(std::size_t i, const Quantity& q, const Slot& s) const;

  /// Hall's condition on the heads left, a necessary one: every remaining quantity but a mean
  /// (which may share a head opened already) takes a head of its own, in a slot no earlier
  /// than its placed inputs, its unplaced inputs' earliest slots and its previous copy allow,
  /// of its class (tokens only for a token value; the readout only for what reads a global
  /// held there). For each slot rank r, the quantities that must go at r or later must not
  /// outnumber the free heads there. Without it, a target with more quantities than heads
  /// tried every way to fill the heads before giving up. Also counts, for least_completion(),
  /// the heads each slot must fill.
  bool heads_suffice(std::size_t i);

  /// A lower bound on the cost of any completion of the placement at quantity i (after
  /// heads_suffice(i)): the actions placed, each remaining quantity's cheapest action, and the
  /// decoding of the information sets with the heads each slot must fill filled.
  Price least_completion(const Price& placed, std::size_t i);

  /// Whether the state at quantity i is new, or was searched before at a higher cost: the
  /// actions still to place see only what the key holds (the heads and averaged values used,
  /// what each layer fetched, the slots of the placed quantities still read, the latest layer
  /// whose tokens hold an output), so a state met again at no lower cost has nothing cheaper
  /// below it, nor anything as cheap that the first visit did not meet first.
  bool first_visit(std::size_t i, const Price& partial);

  /// `placed` with the decoding of every information set the placement so far makes.
  Price with_decodings(Price cost) const;

  Price action_price(std::size_t q, const Slot& s) const;

  void leaf(const Price& placed);

  /// Where no placement exists: the quantity that finds no slot, the first one past the
  /// longest run of quantities (in order) that can all be placed, in any variant. (The search
  /// once walked every partial placement to find it; this asks whether each prefix fits.)
  std::string unplaced();

  /// Whether the variant's quantities before `end` can all be placed.
  bool prefix_fits(std::size_t end);

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

}  // namespace infoflow::theorems::detail

#endif  // INFOFLOW_THEOREMS_ENGINE_SEARCHER_HPP_
