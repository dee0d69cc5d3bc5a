// What prunes the exact placement search (placement.cpp): capacity (heads_suffice()), the
// least cost of any completion (least_completion()), the memo of the states searched
// (first_visit()), and where a quantity may go at all (allowed(), can_be_efficient()). Each
// prunes only what cannot change the answer.
#include <algorithm>

#include "searcher.hpp"

namespace infoflow::theorems::detail {

bool Searcher::can_be_efficient() const {
  for (std::size_t q = 0; q < p_.quantities.size(); ++q) {
    if (!present_[q]) continue;
    bool flat = false;
    for (long l = 1; l <= layers_ && !flat; ++l)
      flat = std::abs(action_price(q, Slot{l, false}).slope) <= kTolerance;
    if (!flat) return false;
  }
  return true;
}

bool Searcher::allowed(std::size_t i, const Quantity& q, const Slot& s) const {
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

bool Searcher::heads_suffice(std::size_t i) {
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

Price Searcher::least_completion(const Price& placed, std::size_t i) {
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

bool Searcher::first_visit(std::size_t i, const Price& partial) {
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

}  // namespace infoflow::theorems::detail
