#ifndef INFOFLOW_CORE_RANDOM_HPP_
#define INFOFLOW_CORE_RANDOM_HPP_

/// \file
/// Seeded random numbers that are the same on every compiler and standard library: the engine
/// is xoshiro256** seeded through splitmix64, and the distributions are ours (the standard
/// library's distributions are not specified bit for bit). Normal deviates use Marsaglia's
/// polar method, which needs only log and sqrt.

#include <cmath>
#include <cstdint>
#include <initializer_list>

namespace infoflow {

/// One step of splitmix64: a bijective mixer, used to expand and to combine seeds.
inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31U);
}

/// A seed for an independent stream, derived from a base seed and a path of integers
/// (for example {kStreamTrain, step, chunk}); different paths give unrelated streams.
inline std::uint64_t derive_seed(std::uint64_t base, std::initializer_list<std::uint64_t> path) {
  std::uint64_t state = base;
  std::uint64_t out = splitmix64(state);
  for (const std::uint64_t part : path) {
    state = out ^ (part + 0x632BE59BD9B4E019ULL);
    out = splitmix64(state);
  }
  return out;
}

/// xoshiro256** (Blackman and Vigna), with our uniform and normal distributions.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    std::uint64_t state = seed;
    for (std::uint64_t& word : s_) word = splitmix64(state);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17U;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  /// Uniform on [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11U) * 0x1.0p-53; }

  /// Standard normal deviate.
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u = 0;
    double v = 0;
    double r2 = 0;
    do {
      u = 2.0 * uniform() - 1.0;
      v = 2.0 * uniform() - 1.0;
      r2 = u * u + v * v;
    } while (r2 >= 1.0 || r2 == 0.0);
    const double factor = std::sqrt(-2.0 * std::log(r2) / r2);
    spare_ = v * factor;
    has_spare_ = true;
    return u * factor;
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) {
    return (x << static_cast<unsigned>(k)) | (x >> static_cast<unsigned>(64 - k));
  }
  std::uint64_t s_[4]{};
  bool has_spare_ = false;
  double spare_ = 0;
};

}  // namespace infoflow

#endif  // INFOFLOW_CORE_RANDOM_HPP_
