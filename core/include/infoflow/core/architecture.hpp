#ifndef INFOFLOW_CORE_ARCHITECTURE_HPP_
#define INFOFLOW_CORE_ARCHITECTURE_HPP_

/// \file
/// The shape of a Transformer of the model class (docs/theory.md, section 3): heads per layer,
/// the widths E, d and n, and the positional encoding. The engine plans on it
/// (theorems::Architecture) and training builds it (numeric::ModelConfig adds T and the
/// token-wise widths), so the two read, check and print one shape.

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "infoflow/core/error.hpp"
#include "infoflow/core/limits.hpp"

namespace infoflow::core {

/// Every front end's defaults, in one home: the command's options, the Python keywords, a target
/// file's keys, an experiment's profiles and a construction read these, never a literal of their
/// own.
namespace defaults {
inline constexpr long kEmbedding = 16;  ///< E
inline constexpr long kTokenDim = 4;    ///< d
inline constexpr long kTokens = 8;      ///< T, where neither the target nor the run sets it
}  // namespace defaults

enum class PositionalEncoding { kNone, kLearned, kSinusoidal };

inline std::string_view to_string(PositionalEncoding p) {
  switch (p) {
    case PositionalEncoding::kNone:
      return "none";
    case PositionalEncoding::kLearned:
      return "learned";
    case PositionalEncoding::kSinusoidal:
      return "sinusoidal";
  }
  return "none";
}

/// "none" (or "off", as derive prints it), "learned" or "sinusoidal"; InputError otherwise.
inline PositionalEncoding parse_positional_encoding(std::string_view text) {
  if (text == "none" || text == "off") return PositionalEncoding::kNone;
  if (text == "learned") return PositionalEncoding::kLearned;
  if (text == "sinusoidal") return PositionalEncoding::kSinusoidal;
  throw InputError("unknown positional encoding '" + std::string(text) +
                   "' (expected none or off, learned or sinusoidal)");
}

/// A target that reads positions gets a learned encoding unless one is named, as training gives it.
inline PositionalEncoding encoding_for(bool positions) {
  return positions ? PositionalEncoding::kLearned : PositionalEncoding::kNone;
}

struct Architecture {
  std::vector<long> heads{1, 1};  ///< h_l, one entry per layer (L = heads.size())
  long embedding = defaults::kEmbedding;  ///< E
  long token_dim = defaults::kTokenDim;   ///< d
  long head_dim = 0;              ///< n; 0 means n = E / h_l in each layer (which must divide)
  PositionalEncoding positional = PositionalEncoding::kNone;

  /// Throws InputError naming the first field outside its range (core/limits.hpp), or a layer
  /// whose heads do not divide E when n is derived.
  void validate() const {
    in_range(token_dim, 1, limits::kTokenDim, "d");
    in_range(embedding, 1, limits::kWidth, "E");
    if (heads.empty()) throw InputError("at least one layer of heads is needed");
    in_range(layers(), 1, limits::kLayers, "the number of layers L");
    in_range(head_dim, 0, limits::kWidth, "the head dimension n (0: E / h)");
    for (std::size_t l = 0; l < heads.size(); ++l) {
      const std::string layer = "layer " + std::to_string(l + 1);
      in_range(heads[l], 1, limits::kHeads, layer + "'s head count");
      if (head_dim == 0 && embedding % heads[l] != 0) {
        throw InputError(layer + ": " + std::to_string(heads[l]) + " heads do not divide E = " +
                         std::to_string(embedding) + " (set the head dimension n to fix it)");
      }
    }
  }
  [[nodiscard]] long layers() const { return static_cast<long>(heads.size()); }
  [[nodiscard]] long head_dim_of(long layer) const {  ///< 0-based layer
    return head_dim > 0 ? head_dim : embedding / heads[static_cast<std::size_t>(layer)];
  }
  [[nodiscard]] long total_heads() const {
    long total = 0;
    for (const long h : heads) total += h;
    return total;
  }
  [[nodiscard]] long widest() const { return *std::max_element(heads.begin(), heads.end()); }
  [[nodiscard]] bool encodes_positions() const { return positional != PositionalEncoding::kNone; }
  /// "(2,2)"
  [[nodiscard]] std::string heads_text() const {
    std::string out = "(";
    for (std::size_t l = 0; l < heads.size(); ++l) {
      if (l > 0) out += ",";
      out += std::to_string(heads[l]);
    }
    return out + ")";
  }
  /// "L=2 h=(2,2) E=16 d=4 n=8 pe=off": the engine's view, where only whether positions are
  /// encoded matters.
  [[nodiscard]] std::string text() const {
    return "L=" + std::to_string(layers()) + " h=" + heads_text() +
           " E=" + std::to_string(embedding) + " d=" + std::to_string(token_dim) +
           " n=" + (head_dim > 0 ? std::to_string(head_dim) : "E/h") +
           " pe=" + (encodes_positions() ? "on" : "off");
  }

 protected:
  static void in_range(long value, long low, long high, const std::string& what) {
    limits::check_in_range(value, low, high, what);
  }
};

}  // namespace infoflow::core

#endif  // INFOFLOW_CORE_ARCHITECTURE_HPP_
