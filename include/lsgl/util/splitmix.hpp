#pragma once
// splitmix64 (Steele, Lea, Flood 2014): a fixed, portable 64-bit hash/generator step, so that
// values drawn from it are the same with every compiler and standard library and on any rank.
// The one home of lsgl's random numbers: the output function, the hash of one word, the
// sequence and a sample of distinct integers. Everything here is local (not collective).
#include <cstdint>
#include <vector>

namespace lsgl {

// The golden-ratio increment of the splitmix64 sequence.
inline constexpr std::uint64_t kSplitMixGamma = 0x9e3779b97f4a7c15ULL;

// Local. splitmix64's output function: a bijection of 64-bit words.
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Local. One splitmix64 step: the output for state x (the state advanced by the golden ratio).
inline std::uint64_t splitmix64(std::uint64_t x) { return mix64(x + kSplitMixGamma); }

// Local. The splitmix64 sequence from `state`: each next() advances the state by the golden
// ratio and returns the output function of the new state.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t state) : state_(state) {}
  std::uint64_t next() { return mix64(state_ += kSplitMixGamma); }
  // Uniform in [0, 1): the top 53 bits of next().
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // next() mod n (n >= 1).
  std::uint64_t below(std::uint64_t n) { return next() % n; }

 private:
  std::uint64_t state_;
};

// Local. `count` distinct integers of [0, n), sorted, drawn from `rng` by Floyd's algorithm
// (all of [0, n) when count >= n, drawing nothing).
std::vector<std::int64_t> sample_distinct(std::int64_t n, std::int64_t count, SplitMix64& rng);

}  // namespace lsgl
