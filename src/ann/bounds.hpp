#pragma once
// Private to src/ann: the bounds that let the partition route (cells.cpp, partition_route.cpp)
// and the voronoi engine skip a cell, with one rounding slack. Local. (The hashed samples both
// draw are in sample.hpp.)
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace lsgl::ann {

// Relative slack on a bound's right-hand side (and on the rounding of squared distances) so
// that a row on the bound is searched.
constexpr double kBoundSlack = 1e-12;

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
