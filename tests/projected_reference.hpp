// The projected search's lists by their definition, serially, for the tests: row g's shortlist
// is its S nearest by (projected_distance, index) among the rows of its `probes` nearest cells
// (by (projected distance to the centroid, cell)); its list is the shortlist re-ranked by (exact
// distance, index).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "ann/cells.hpp"
#include "ann/projection.hpp"
#include "lsgl/ann/candidates.hpp"

namespace lsgl::test {

struct ProjectedRows {
  const float* y;       // n x dims projected rows
  const float* x;       // n x d rows
  std::int64_t n, dims, d;
  const int* home;      // cell of each row
};

// The shortlist of row g, ascending by (projected_distance, index); `own_cell` receives the
// row's nearest cell.
inline std::vector<std::pair<double, std::int64_t>> projected_shortlist(
    const ProjectedRows& r, const lsgl::ann::CellLayout& lay, int probes, int shortlist,
    std::int64_t g, int* own_cell) {
  const float* yg = r.y + g * r.dims;
  std::vector<std::pair<double, int>> cd;
  for (int c = 0; c < lay.cells; ++c) {
    cd.emplace_back(lsgl::squared_distance(yg, lay.centroids.data() + c * r.dims, r.dims), c);
  }
  std::sort(cd.begin(), cd.end());
  *own_cell = cd[0].second;
  std::vector<char> probed(static_cast<std::size_t>(lay.cells), 0);
  for (int t = 0; t < probes && t < lay.cells; ++t) probed[cd[t].second] = 1;
  std::vector<std::pair<double, std::int64_t>> low;
  for (std::int64_t j = 0; j < r.n; ++j) {
    if (j != g && probed[r.home[j]]) {
      low.emplace_back(lsgl::ann::projected_distance(yg, r.y + j * r.dims, r.dims), j);
    }
  }
  const std::size_t s = std::min<std::size_t>(static_cast<std::size_t>(shortlist), low.size());
  std::partial_sort(low.begin(), low.begin() + s, low.end());
  low.resize(s);
  return low;
}

// The re-ranked shortlist of row g, ascending by (exact squared distance, index); `own_cell`
// receives the row's nearest cell.
inline std::vector<std::pair<double, std::int64_t>> projected_definition(
    const ProjectedRows& r, const lsgl::ann::CellLayout& lay, int probes, int shortlist,
    std::int64_t g, int* own_cell) {
  std::vector<std::pair<double, std::int64_t>> want;
  for (const auto& low : projected_shortlist(r, lay, probes, shortlist, g, own_cell)) {
    const std::int64_t j = low.second;
    want.emplace_back(lsgl::squared_distance(r.x + g * r.d, r.x + j * r.d, r.d), j);
  }
  std::sort(want.begin(), want.end());
  return want;
}

}  // namespace lsgl::test
