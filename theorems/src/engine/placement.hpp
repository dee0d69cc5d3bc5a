#ifndef INFOFLOW_THEOREMS_ENGINE_PLACEMENT_HPP_
#define INFOFLOW_THEOREMS_ENGINE_PLACEMENT_HPP_

// The exact placement search (docs/infoflow_engine.md, "Search"): every quantity's action in a
// (layer, token class) slot, at most h_l actions per layer and class, each after what it reads;
// the cheapest placement wins. Internal to the engine.

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "infoflow/theorems/engine.hpp"

namespace infoflow::theorems::detail {

/// An exponent of 1/eps as T -> infinity: slope * T + constant.
struct Price {
  double slope = 0;
  double constant = 0;
};
/// Compared as T -> infinity: the slope, then the constant.
bool cheaper(const Price& a, const Price& b);
Price costlier(const Price& a, const Price& b);

/// The catalogue's rates with the architecture's values, as numbers for the search.
struct PriceModel {
  Price floor;                  ///< a retrieval; every cost is at least this
  double decode_per_token = 0;  ///< Theorem 3: T0 * d / E - 1
  double decode_constant = 0;
  Price mean;
  std::vector<Price> kth_per_layer;  ///< Theorem 2 without the rank: (T - 1)/(n_l + 1)
  std::vector<double> kth_rank;      ///< its coefficient of k: -1/(n_l + 1)

  [[nodiscard]] Price decode(double size) const;  ///< floored
  [[nodiscard]] Price decode_sequence() const;    ///< a set of size T
  [[nodiscard]] Price kth(long layer, long rank) const;
};

struct Slot {
  long layer = 1;  ///< 1-based
  bool readout = false;
};

/// R6: means at one (layer, token class) share uniform heads, n averaged values a head. The heads
/// a mean of `values` values opens there when `pooled` values are averaged there already.
inline long mean_heads_opened(long pooled, long values, long head_dim) {
  return (pooled + values + head_dim - 1) / head_dim - (pooled + head_dim - 1) / head_dim;
}

struct Placement {
  std::vector<std::optional<Slot>> slots;  ///< per quantity; empty: not used
  std::vector<bool> theorem2;              ///< per quantity: a k-th retrieval in one layer
  std::optional<long> carry;               ///< a readout fetch that only carries
  Price cost;
  long actions = 0;
};

/// The information-set sizes a placement gives, layer by layer.
struct Sizes {
  std::vector<long> token;    ///< |I(t, l)|, l = 0..L
  std::vector<long> readout;  ///< |I(T+1, l)|
};

/// What the actions of one (layer, token class) add to its information set: `scaled` copies of
/// the tokens' set before the layer (a retrieval fetches one token's set, a gathering of p
/// positions p of them), and `single` values (a mean fetches one).
struct Fetches {
  long scaled = 0;
  long single = 0;
};
/// Per layer 0..L, [tokens, readout].
using FetchTable = std::vector<std::array<Fetches, 2>>;
/// What quantity `quantity` adds where its action is placed.
Fetches fetches_of(const Quantity& quantity);
/// The sizes from what each layer fetches (a carry is one scaled fetch at the readout).
Sizes sizes_from(const FetchTable& fetches, long layers);
Sizes sizes_of(const Program& program, const Placement& placement, long layers);

struct PlacementResult {
  std::optional<Placement> best;
  std::string unplaced;  ///< when none (and the search was complete): the quantity that found no slot
  bool truncated = false;  ///< the search reached its node cap: `best` may not be the cheapest
};

/// The cheapest placement; with `first_efficient`, the first whose cost does not grow with T
/// (enough to decide a verdict; `unplaced` is then left empty). Past `node_cap` nodes the search
/// stops and says so (`truncated`).
PlacementResult place(const Program& program, const Architecture& architecture,
                      const PriceModel& prices, bool first_efficient, long node_cap);

}  // namespace infoflow::theorems::detail

#endif  // INFOFLOW_THEOREMS_ENGINE_PLACEMENT_HPP_
