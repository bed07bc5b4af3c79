#pragma once
// Private to src/synth: the random streams of the generators and their common attributes. All
// randomness comes from counter-based splitmix64 streams keyed by (seed, purpose, index), so
// every value depends on the seed and its own index only: the output is identical for any number
// of ranks or OpenMP threads. Local.
#include <cmath>
#include <cstdint>
#include <string>

#include "lsgl/io/h5.hpp"
#include "lsgl/util/splitmix.hpp"
#include "lsgl/util/version.hpp"

namespace lsgl::synth {

// Stream purposes.
constexpr std::uint64_t kCentres = 1, kMixing = 2, kRow = 3, kSignal = 4, kEdge = 5, kCommunity = 6,
                        kPermutation = 7;

// A splitmix64 sequence started from a hash of (seed, purpose, index); normals by Box-Muller.
// Portable: unlike std:: distributions it gives the same numbers with every standard library.
class Rng {
 public:
  Rng(std::uint64_t seed, std::uint64_t purpose, std::uint64_t index)
      : stream_(mix64(mix64(splitmix64(seed) ^ purpose) ^ index)) {}
  std::uint64_t next() { return stream_.next(); }
  // Uniform in [0, 1).
  double uniform() { return stream_.uniform(); }
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double r = std::sqrt(-2.0 * std::log(1.0 - uniform()));  // 1 - u lies in (0, 1]
    const double t = 6.283185307179586 * uniform();                // 2 pi
    spare_ = r * std::sin(t);
    has_spare_ = true;
    return r * std::cos(t);
  }

 private:
  SplitMix64 stream_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

// The attributes on "/" every generated file has: kind, seed and the generator's version.
inline void set_common_attrs(const h5::File& f, const std::string& kind, std::uint64_t seed) {
  h5::set_attr(f, "/", "kind", kind);
  h5::set_attr(f, "/", "seed", seed);
  h5::set_attr(f, "/", "generator", std::string("lsgl ") + version());
}

}  // namespace lsgl::synth
