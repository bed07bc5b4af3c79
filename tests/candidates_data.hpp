#pragma once
// Data sets defined row by row and the brute-force checks shared by the candidate-search tests
// (test_candidates, test_projected).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <utility>
#include <vector>

#include "lsgl/ann/candidates.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/splitmix.hpp"

namespace lsgl::test {

using lsgl::Candidates;
using lsgl::LocalRows;
using lsgl::splitmix64;

// Deterministic uniform in [0, 1) and standard normal from three integers.
inline double unit(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  return static_cast<double>(splitmix64(splitmix64(splitmix64(a) ^ b) ^ c) >> 11) * 0x1.0p-53;
}
inline double normal(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  const double u1 = unit(a, b, 2 * c), u2 = unit(a, b, 2 * c + 1);
  return std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(6.283185307179586 * u2);
}

// A data set defined row by row, so every rank can make its own block or the whole matrix.
struct Data {
  std::int64_t n, d;
  std::function<void(std::int64_t g, float* row)> row;

  LocalRows block(MPI_Comm comm) const {
    const lsgl::Partition part(n, lsgl::comm_size(comm));
    const int rank = lsgl::comm_rank(comm);
    LocalRows r;
    r.n = n;
    r.d = d;
    r.begin = part.begin(rank);
    std::vector<float>& x = r.values();
    x.resize(static_cast<std::size_t>(part.count(rank) * d));
    for (std::int64_t i = 0; i < part.count(rank); ++i) row(r.begin + i, x.data() + i * d);
    return r;
  }
  std::vector<float> all() const {
    std::vector<float> x(static_cast<std::size_t>(n * d));
    for (std::int64_t g = 0; g < n; ++g) row(g, x.data() + g * d);
    return x;
  }
};

// Small integer coordinates (many equal distances) and every 11th row a copy of the previous.
inline Data grid_data(std::int64_t n, std::int64_t d) {
  return {n, d, [d](std::int64_t g, float* row) {
            const std::int64_t src = g % 11 == 5 ? g - 1 : g;
            for (std::int64_t j = 0; j < d; ++j) row[j] = static_cast<float>(splitmix64(src * 31 + j) % 4);
          }};
}

inline Data gauss_data(std::int64_t n, std::int64_t d) {
  return {n, d, [d](std::int64_t g, float* row) {
            for (std::int64_t j = 0; j < d; ++j) row[j] = static_cast<float>(normal(7, g, j));
          }};
}

// 20 Gaussian clusters in 4 dimensions, embedded linearly in d (16 unless given), plus a little
// noise.
inline Data mixture_data(std::int64_t n, std::int64_t d = 16) {
  constexpr int kLatent = 4, kClusters = 20;
  return {n, d, [d](std::int64_t g, float* row) {
            const std::uint64_t k = splitmix64(g ^ 0x51ed) % kClusters;
            double z[kLatent];
            for (int a = 0; a < kLatent; ++a) {
              z[a] = 16.0 * unit(11, k, a) - 8.0 + normal(12, g, a);
            }
            for (std::int64_t j = 0; j < d; ++j) {
              double v = 0.05 * normal(13, g, j);
              for (int a = 0; a < kLatent; ++a) v += normal(14, j, a) * z[a];
              row[j] = static_cast<float>(v);
            }
          }};
}

using List = std::vector<std::pair<double, std::int64_t>>;

// Independent brute force: all n distances of global row g, sorted by (dist, idx), first m.
inline List brute_force(const Data& data, const std::vector<float>& all, std::int64_t g, int m) {
  static thread_local List l;
  l.clear();
  for (std::int64_t j = 0; j < data.n; ++j) {
    if (j != g) {
      l.emplace_back(
          lsgl::squared_distance(all.data() + g * data.d, all.data() + j * data.d, data.d), j);
    }
  }
  std::partial_sort(l.begin(), l.begin() + m, l.end());
  return List(l.begin(), l.begin() + m);
}

// Lists have m entries each, no self, no repeats, sorted by (dist, idx), and every distance is
// squared_distance of the pair.
inline void expect_valid(const Data& data, const std::vector<float>& all, const LocalRows& rows,
                  const Candidates& c, int m) {
  ASSERT_EQ(c.m, m);
  ASSERT_EQ(c.begin, rows.begin);
  ASSERT_EQ(c.local_rows(), rows.local_rows());
  ASSERT_EQ(c.idx.size(), c.dist.size());
  for (std::int64_t i = 0; i < c.local_rows(); ++i) {
    const std::int64_t g = rows.begin + i;
    std::set<std::int64_t> seen;
    for (int j = 0; j < m; ++j) {
      const std::int64_t k = c.idx[i * m + j];
      const double dist = c.dist[i * m + j];
      ASSERT_TRUE(k >= 0 && k < data.n) << "row " << g;
      ASSERT_NE(k, g) << "self in the list of row " << g;
      ASSERT_TRUE(seen.insert(k).second) << "repeat in row " << g;
      ASSERT_EQ(dist, lsgl::squared_distance(rows.row(i), all.data() + k * data.d, data.d));
      if (j > 0) {
        const double pd = c.dist[i * m + j - 1];
        ASSERT_TRUE(pd < dist || (pd == dist && c.idx[i * m + j - 1] < k)) << "row " << g;
      }
    }
  }
}

inline void expect_exact(const Data& data, const std::vector<float>& all, const LocalRows& rows,
                  const Candidates& c, int m) {
  for (std::int64_t i = 0; i < c.local_rows(); ++i) {
    const List want = brute_force(data, all, rows.begin + i, m);
    for (int j = 0; j < m; ++j) {
      ASSERT_EQ(c.idx[i * m + j], want[j].second) << "row " << rows.begin + i << " rank " << j;
      ASSERT_EQ(c.dist[i * m + j], want[j].first) << "row " << rows.begin + i << " rank " << j;
    }
  }
}

// Every row the same: one k-means cell holds all rows and must still be spread over the ranks.
inline Data identical_data(std::int64_t n, std::int64_t d) {
  return {n, d, [d](std::int64_t, float* row) { std::fill(row, row + d, 0.5f); }};
}

// Rows on a line at integer positions -6..6, each position three times, symmetric about 0: the
// k-means centroids split it symmetrically and many rows sit exactly on a cell boundary.
inline Data line_data() {
  return {39, 2, [](std::int64_t g, float* row) {
            row[0] = static_cast<float>(g / 3 - 6);
            row[1] = 0.0f;
          }};
}

// Clustered rows far from the origin: single-precision products of uncentred coordinates would
// lose the neighbour distances (about 1) against the norms (about 10^8).
inline Data far_data(std::int64_t n, std::int64_t d = 16) {
  const Data near = mixture_data(n, d);
  return {n, near.d, [near](std::int64_t g, float* row) {
            near.row(g, row);
            for (std::int64_t j = 0; j < near.d; ++j) row[j] += 1.0e4f;
          }};
}

}  // namespace lsgl::test
