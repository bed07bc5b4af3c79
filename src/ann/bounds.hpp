#pragma once
// Private to src/ann: the bounds that let the partition route (cells.cpp, partition_route.cpp)
// and the voronoi engine skip a cell, with one rounding slack, and the hashed k-means sample both
// draw. Local.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "lsgl/util/splitmix.hpp"

namespace lsgl::ann {

// Relative slack on a bound's right-hand side (and on the rounding of squared distances) so
// that a row on the bound is searched.
constexpr double kBoundSlack = 1e-12;

constexpr std::int64_t kSamplePerCell = 64;  // k-means sample rows per cell

// The hash of row `index` (global for the partition route, local for the voronoi engine) that
// decides whether it is in the k-means sample.
inline std::uint64_t sample_hash(std::uint64_t seed, std::uint64_t index) {
  return splitmix64(seed ^ splitmix64(index));
}

// Whether a row whose hash is h falls in a sample of `share` of the rows.
inline bool in_share(std::uint64_t h, double share) {
  return share >= 1.0 || h < static_cast<std::uint64_t>(share * 0x1.0p64 - 1.0);
}

// The Voronoi bound: a row of cell j lies at least (||x - c_j||^2 - ||x - c_i||^2) / (2 gap)
// from a query x of cell i, gap = ||c_i - c_j||. True when that is beyond `radius`, given
// `difference` at most ||x - c_j||^2 - ||x - c_i||^2; never for coinciding centroids (gap 0).
inline bool voronoi_excludes(double difference, double gap, double radius) {
  return gap > 0 && difference > 2.0 * gap * radius * (1.0 + kBoundSlack);
}

// The ball bound ||x - y|| >= ||x - c|| - extent for every row y of a cell whose rows lie within
// `extent` of its centroid c: true when that is beyond `radius`, given near2 at most
// ||x - c||^2.
inline bool ball_excludes(double near2, double extent, double radius) {
  return std::sqrt(std::max(0.0, near2)) - extent > radius * (1.0 + kBoundSlack);
}

}  // namespace lsgl::ann
