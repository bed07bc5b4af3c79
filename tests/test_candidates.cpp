// Candidate neighbours: the exact engine against an independent brute force (with ties and
// duplicate rows), independence of the rank count, recall of hnsw and FLANN, estimate_recall,
// and the collective errors.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <limits>
#include <set>
#include <utility>
#include <vector>

#include "ann/cells.hpp"
#include "ann/lanes.hpp"
#include "ann/sample.hpp"
#include "candidates_data.hpp"
#include "lsgl/ann/candidates.hpp"
#include "lsgl/cli/choices.hpp"
#include "lsgl/synth/generate.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/splitmix.hpp"
#include "support.hpp"

namespace {

using namespace lsgl::test;
using lsgl::AnnParams;
using lsgl::Candidates;
using lsgl::LocalRows;

using lsgl::splitmix64;

TEST(Candidates, SquaredDistanceIsSymmetricAndAccurate) {
  const Data data = gauss_data(8, 23);
  const std::vector<float> x = data.all();
  for (int a = 0; a < 8; ++a) {
    for (int b = 0; b < 8; ++b) {
      const float *u = x.data() + a * 23, *v = x.data() + b * 23;
      long double ref = 0;
      for (int j = 0; j < 23; ++j) {
        const long double t = static_cast<long double>(u[j]) - v[j];
        ref += t * t;
      }
      EXPECT_EQ(lsgl::squared_distance(u, v, 23), lsgl::squared_distance(v, u, 23));
      EXPECT_NEAR(lsgl::squared_distance(u, v, 23), static_cast<double>(ref), 1e-12 * (1 + ref));
    }
  }
  EXPECT_EQ(lsgl::squared_distance(x.data(), x.data(), 23), 0.0);
}

// The voronoi engine's vector kernels (src/ann/lanes.hpp) against scalar references: the lane
// minima of 1, 2, 4 and 8 panels (8: the transposed halvings), the position of the smallest
// lane, and next_up against std::nextafter, on values with ties, infinities and signed zeros.
TEST(Candidates, LaneKernelsMatchScalarReferences) {
  using lsgl::ann::kPanel;
  using lsgl::ann::Lanes;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  lsgl::SplitMix64 rng(11);
  const auto draw = [&] {
    const std::uint64_t h = rng.next();
    switch (h % 8) {
      case 0:
        return kInf;
      case 1:
        return -0.0f;
      case 2:
        return 0.0f;
      default:
        return static_cast<float>(static_cast<double>(h >> 40) / (1 << 20) - 4.0);
    }
  };
  for (int trial = 0; trial < 2000; ++trial) {
    Lanes v[8];
    float reference[8];
    for (int q = 0; q < 8; ++q) {
      float x[kPanel];
      for (float& e : x) e = draw();
      std::memcpy(&v[q], x, sizeof x);
      reference[q] = *std::min_element(x, x + kPanel);
    }
    float out8[8], out4[8], out2[8], out1[8];
    lsgl::ann::lane_mins<8>(v, out8);
    for (int q = 0; q < 8; q += 4) lsgl::ann::lane_mins<4>(v + q, out4 + q);
    for (int q = 0; q < 8; q += 2) lsgl::ann::lane_mins<2>(v + q, out2 + q);
    for (int q = 0; q < 8; ++q) lsgl::ann::lane_mins<1>(v + q, out1 + q);
    for (int q = 0; q < 8; ++q) {
      ASSERT_EQ(out8[q], reference[q]) << "trial " << trial << " vector " << q;
      ASSERT_EQ(out4[q], reference[q]);
      ASSERT_EQ(out2[q], reference[q]);
      ASSERT_EQ(out1[q], reference[q]);
    }
    float row[4 * kPanel];
    for (float& e : row) e = draw();
    const std::int64_t at = lsgl::ann::smallest_lane(row, 4 * kPanel);
    ASSERT_EQ(at, std::min_element(row, row + 4 * kPanel) - row);
  }
  const float denorm = std::numeric_limits<float>::denorm_min();
  for (const float x : {0.0f, -0.0f, denorm, -denorm, 1.0f, -1.0f, 3.5e-39f, -3.5e-39f,
                        std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(), kInf,
                        -kInf, 123.456f, -7.25e30f}) {
    const float up = lsgl::ann::next_up(x), ref = std::nextafter(x, kInf);
    EXPECT_EQ(up, ref) << x;
    EXPECT_EQ(std::signbit(up), std::signbit(ref)) << x;
  }
  EXPECT_TRUE(std::isnan(lsgl::ann::next_up(std::numeric_limits<float>::quiet_NaN())));
}

TEST(Candidates, ExactEqualsBruteForceWithTiesAndDuplicates) {
  AnnParams p;
  p.engine = lsgl::AnnEngine::kExact;
  for (const auto& [data, m] :
       {std::make_pair(grid_data(300, 5), 12), std::make_pair(gauss_data(257, 7), 10)}) {
    const std::vector<float> all = data.all();
    const LocalRows rows = data.block(MPI_COMM_WORLD);
    for (int threads : {1, 2}) {
      p.threads = threads;
      const Candidates c = lsgl::find_candidates(MPI_COMM_WORLD, rows, m, p);
      expect_valid(data, all, rows, c, m);
      expect_exact(data, all, rows, c, m);
    }
  }
  // The grid data really has duplicates and ties at the m-th place.
  const Data grid = grid_data(300, 5);
  const std::vector<float> all = grid.all();
  int zeros = 0, ties = 0;
  for (std::int64_t g = 0; g < grid.n; ++g) {
    const List l = brute_force(grid, all, g, 13);
    zeros += l[0].first == 0.0;
    ties += l[11].first == l[12].first;
  }
  EXPECT_GT(zeros, 20);
  EXPECT_GT(ties, 100);
}

// FNV-1a over indices and distance bits, in global row order.
std::uint64_t hash_lists(const std::vector<std::int64_t>& idx, const std::vector<double>& dist) {
  std::uint64_t h = 1469598103934665603ULL;
  const auto eat = [&h](const void* p, std::size_t bytes) {
    for (std::size_t i = 0; i < bytes; ++i) {
      h = (h ^ static_cast<const unsigned char*>(p)[i]) * 1099511628211ULL;
    }
  };
  eat(idx.data(), idx.size() * sizeof(std::int64_t));
  eat(dist.data(), dist.size() * sizeof(double));
  return h;
}

template <class T>
std::vector<T> gather_to_root(const std::vector<T>& mine, MPI_Datatype type) {
  const int size = lsgl::comm_size(MPI_COMM_WORLD);
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(size), displs(size, 0);
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 1; r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<T> all(static_cast<std::size_t>(displs[size - 1] + counts[size - 1]));
  MPI_Gatherv(mine.data(), count, type, all.data(), counts.data(), displs.data(), type, 0,
              MPI_COMM_WORLD);
  return all;
}

TEST(Candidates, ExactListsDoNotDependOnRankCount) {
  AnnParams p;
  p.engine = lsgl::AnnEngine::kExact;
  const Data data = grid_data(401, 6);
  const int m = 9;
  const Candidates c = lsgl::find_candidates(MPI_COMM_WORLD, data.block(MPI_COMM_WORLD), m, p);
  const auto idx = gather_to_root(c.idx, MPI_INT64_T);
  const auto dist = gather_to_root(c.dist, MPI_DOUBLE);
  if (lsgl::comm_rank(MPI_COMM_WORLD) == 0) {
    const Candidates serial = lsgl::find_candidates(MPI_COMM_SELF, data.block(MPI_COMM_SELF), m, p);
    EXPECT_EQ(hash_lists(idx, dist), hash_lists(serial.idx, serial.dist));
    EXPECT_EQ(idx, serial.idx);
    EXPECT_EQ(dist, serial.dist);
  }
}

// Fewer local rows than m on some ranks and m = n - 1: every engine must list all other nodes
// (where the approximate engines come up short, the blocks are searched exhaustively).
TEST(Candidates, SmallBlocksAllEngines) {
  const Data data = gauss_data(13, 3);
  const std::vector<float> all = data.all();
  const LocalRows rows = data.block(MPI_COMM_WORLD);
  for (const lsgl::AnnEngine engine : {lsgl::AnnEngine::kExact, lsgl::AnnEngine::kVoronoi,
                                       lsgl::AnnEngine::kFlann, lsgl::AnnEngine::kHnsw}) {
    for (int threads : {1, 2}) {
      AnnParams p;
      p.engine = engine;
      p.threads = threads;
      p.cell_rows = 2;
      for (int m : {1, 5, 12}) {
        const Candidates c = lsgl::find_candidates(MPI_COMM_WORLD, rows, m, p);
        expect_valid(data, all, rows, c, m);
        if (m == 12 || p.engine == lsgl::AnnEngine::kExact ||
            p.engine == lsgl::AnnEngine::kVoronoi) {
          expect_exact(data, all, rows, c, m);
        }
      }
    }
  }
}

// The brute-force lists of the local rows.
std::vector<List> exact_lists(const Data& data, const std::vector<float>& all,
                              const LocalRows& rows, int m) {
  std::vector<List> exact(static_cast<std::size_t>(rows.local_rows()));
  for (std::int64_t i = 0; i < rows.local_rows(); ++i) {
    exact[i] = brute_force(data, all, rows.begin + i, m);
  }
  return exact;
}

// |cand ∩ exact| over the local rows, summed over all ranks.
double own_recall(const Candidates& c, const std::vector<List>& exact, int m) {
  double hits = 0;
  for (std::int64_t i = 0; i < c.local_rows(); ++i) {
    std::set<std::int64_t> want;
    for (const auto& e : exact[i]) want.insert(e.second);
    for (int j = 0; j < m; ++j) hits += want.count(c.idx[i * m + j]);
  }
  double total = 0;
  MPI_Allreduce(&hits, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

TEST(Candidates, ApproximateEnginesRecall) {
  const Data data = mixture_data(12000);
  const int m = 20;
  const std::vector<float> all = data.all();
  const LocalRows rows = data.block(MPI_COMM_WORLD);
  const std::vector<List> exact = exact_lists(data, all, rows, m);
  // Defaults of both engines, and a weak FLANN setting to check estimate_recall below 1.
  AnnParams hnsw, flann, weak;
  hnsw.engine = lsgl::AnnEngine::kHnsw;
  flann.engine = weak.engine = lsgl::AnnEngine::kFlann;
  hnsw.route = flann.route = weak.route = lsgl::AnnRoute::kRing;
  weak.flann_trees = 1;
  weak.flann_checks = 24;
  for (const auto& [p, min_recall] :
       {std::make_pair(hnsw, 0.95), std::make_pair(flann, 0.95), std::make_pair(weak, 0.0)}) {
    const Candidates c = lsgl::find_candidates(MPI_COMM_WORLD, rows, m, p);
    expect_valid(data, all, rows, c, m);
    const double recall = own_recall(c, exact, m) / (static_cast<double>(data.n) * m);
    const double estimate = lsgl::estimate_recall(MPI_COMM_WORLD, rows, c, 500, 3);
    if (lsgl::comm_rank(MPI_COMM_WORLD) == 0) {
      std::printf("%s: recall %.4f, estimate on 500 nodes %.4f\n", p.describe().c_str(), recall,
                  estimate);
    }
    EXPECT_GE(recall, min_recall) << p.describe();
    EXPECT_NEAR(estimate, recall, 0.03) << p.describe();
    // The same value on every rank.
    double lo = 0, hi = 0;
    MPI_Allreduce(&estimate, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&estimate, &hi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_EQ(lo, hi);
  }
}

TEST(Candidates, EstimateRecallOfExactListsIsOne) {
  AnnParams p;
  p.engine = lsgl::AnnEngine::kExact;
  const Data data = grid_data(300, 5);  // ties and duplicates
  const LocalRows rows = data.block(MPI_COMM_WORLD);
  const Candidates c = lsgl::find_candidates(MPI_COMM_WORLD, rows, 12, p);
  EXPECT_EQ(lsgl::estimate_recall(MPI_COMM_WORLD, rows, c, 50, 9), 1.0);
  EXPECT_EQ(lsgl::estimate_recall(MPI_COMM_WORLD, rows, c, 1000, 9, 2), 1.0);  // all nodes
  EXPECT_EQ(lsgl::estimate_recall(MPI_COMM_WORLD, rows, c, 0, 9), -1.0);

  // A list that swaps each node's nearest neighbour for a far node loses that hit unless the
  // nearest one was tied with the m-th.
  Candidates worse = c;
  for (std::int64_t i = 0; i < worse.local_rows(); ++i) {
    worse.idx[i * 12] = (rows.begin + i + 150) % data.n;
    worse.dist[i * 12] = 1e9;
  }
  const double r = lsgl::estimate_recall(MPI_COMM_WORLD, rows, worse, 1000, 9);
  EXPECT_LT(r, 1.0);
  EXPECT_GE(r, 11.0 / 12.0 - 1e-12);
}

// Far from the origin the float expansion |q|^2 + |x|^2 - 2 q.x that ranks the reference lists
// misorders near neighbours (4-d rows at 30 + 0.1 N(0, 1)); estimate_recall re-ranks a margin of
// them exactly. Lists with each row's m-th neighbour replaced by its (m+1)-th score what a
// double-precision brute force says: a reference that lost a true neighbour would count the
// replacement as a hit.
TEST(Candidates, EstimateRecallIsExactFarFromTheOrigin) {
  const Data data{300, 4, [](std::int64_t g, float* row) {
                    for (int j = 0; j < 4; ++j)
                      row[j] = static_cast<float>(30.0 + 0.1 * normal(31, g, j));
                  }};
  const std::vector<float> all = data.all();
  const LocalRows rows = data.block(MPI_COMM_WORLD);
  const int m = 12;
  Candidates c;
  c.begin = rows.begin;
  c.m = m;
  for (std::int64_t i = 0; i < rows.local_rows(); ++i) {
    List l = brute_force(data, all, rows.begin + i, m + 1);
    l.erase(l.begin() + (m - 1));
    for (const auto& [dist, j] : l) c.idx.push_back(j), c.dist.push_back(dist);
  }
  std::int64_t hits = 0;  // the rule of estimate_recall: listed, or within the m-th distance
  for (std::int64_t g = 0; g < data.n; ++g) {
    const List truth = brute_force(data, all, g, m + 1);
    hits += m - 1;
    if (truth[m].first <= truth[m - 1].first) ++hits;
  }
  const double expected = static_cast<double>(hits) / static_cast<double>(data.n * m);
  ASSERT_LT(expected, 1.0);
  EXPECT_NEAR(lsgl::estimate_recall(MPI_COMM_WORLD, rows, c, 1000, 9), expected, 1e-12);
}

TEST(Candidates, CollectiveErrors) {
  const Data data = gauss_data(10, 3);
  const LocalRows rows = data.block(MPI_COMM_WORLD);
  AnnParams p;
  for (const lsgl::AnnEngine engine : {lsgl::AnnEngine::kExact, lsgl::AnnEngine::kVoronoi,
                                       lsgl::AnnEngine::kHnsw, lsgl::AnnEngine::kFlann}) {
    p.engine = engine;
    try {
      lsgl::find_candidates(MPI_COMM_WORLD, rows, 10, p);
      ADD_FAILURE() << "m = n accepted";
    } catch (const lsgl::CollectiveError& e) {
      EXPECT_NE(std::string(e.what()).find("need more than m points"), std::string::npos);
    }
    EXPECT_THROW(lsgl::find_candidates(MPI_COMM_WORLD, rows, 11, p), lsgl::CollectiveError);
    EXPECT_THROW(lsgl::find_candidates(MPI_COMM_WORLD, rows, 0, p), lsgl::CollectiveError);
  }
  // Unknown engines and routes are refused where the option is parsed.
  EXPECT_THROW(lsgl::cli::parse_choice<lsgl::AnnEngine>("ann", "annoy"), std::invalid_argument);
  EXPECT_THROW(lsgl::cli::parse_choice<lsgl::AnnRoute>("ann-route", "star"),
               std::invalid_argument);
  p.engine = lsgl::AnnEngine::kExact;
  p.cells_per_rank = 0;
  EXPECT_THROW(lsgl::find_candidates(MPI_COMM_WORLD, rows, 3, p), lsgl::CollectiveError);
  p.cells_per_rank = 16;
  p.engine = lsgl::AnnEngine::kVoronoi;
  p.cell_rows = 0;
  EXPECT_THROW(lsgl::find_candidates(MPI_COMM_WORLD, rows, 3, p), lsgl::CollectiveError);
}

// Half the rows in one tight blob, the rest spread over a wide box.
Data dominant_cluster_data(std::int64_t n) {
  return {n, 8, [](std::int64_t g, float* row) {
            const bool blob = g % 2 == 0;
            for (int j = 0; j < 8; ++j) {
              row[j] =
                  static_cast<float>(blob ? 0.01 * normal(21, g, j) : 20 * unit(22, g, j) - 10);
            }
          }};
}

// The partition route with the exact engine is exact whatever the cells: ties, duplicates, rows
// on cell boundaries, all rows identical, one cell per rank or many, threads, routed queries
// exchanged at once or a few rows per round.
TEST(Candidates, PartitionRouteIsExactOnHardData) {
  for (const auto& [data, m] :
       {std::make_pair(grid_data(300, 5), 12), std::make_pair(identical_data(60, 4), 7),
        std::make_pair(line_data(), 5), std::make_pair(dominant_cluster_data(400), 10)}) {
    const std::vector<float> all = data.all();
    const LocalRows rows = data.block(MPI_COMM_WORLD);
    for (int cells : {1, 3, 16}) {
      for (int threads : {1, 2}) {
        AnnParams p;
        p.engine = lsgl::AnnEngine::kExact;
        p.route = lsgl::AnnRoute::kPartition;
        p.cells_per_rank = cells;
        p.threads = threads;
        if (threads == 2) p.round_bytes = 2000;  // 1 to 3 rows per peer and round
        const Candidates c = lsgl::find_candidates(MPI_COMM_WORLD, rows, m, p);
        ASSERT_EQ(c.report.route, lsgl::AnnRoute::kPartition);
        expect_valid(data, all, rows, c, m);
        expect_exact(data, all, rows, c, m);
        EXPECT_EQ(c.report.visits[0] + c.report.visits[1] + c.report.visits[2], data.n);
      }
    }
  }
}

// Both routes give the same exact lists; on one rank every query searches one index.
TEST(Candidates, RoutesAgreeWithTheExactEngine) {
  const Data data = mixture_data(3000);
  const LocalRows rows = data.block(MPI_COMM_WORLD);
  AnnParams ring, part;
  ring.engine = part.engine = lsgl::AnnEngine::kExact;
  ring.route = lsgl::AnnRoute::kRing;
  part.route = lsgl::AnnRoute::kPartition;
  const Candidates a = lsgl::find_candidates(MPI_COMM_WORLD, rows, 15, ring);
  const Candidates b = lsgl::find_candidates(MPI_COMM_WORLD, rows, 15, part);
  EXPECT_EQ(a.idx, b.idx);
  EXPECT_EQ(a.dist, b.dist);
  const int size = lsgl::comm_size(MPI_COMM_WORLD);
  EXPECT_EQ(a.report.visits[std::min(size, 3) - 1], data.n);
  if (size == 1) EXPECT_EQ(b.report.visits[0], data.n);
  // Clustered data: most queries stay on their own rank.
  EXPECT_GT(b.report.visits[0], data.n / 2);
  EXPECT_EQ(b.report.cells, size == 1 ? 1 : 16 * size);
}

// The voronoi engine's cells above kFlatCells (local_cells: two levels of k-means) on one
// rank's rows: the wanted number of cells, the same centroids on a second call, and every row's
// cell by nearest_cells is its nearest centroid by brute force (ties: lowest cell).
TEST(Candidates, LocalCellsAssignRowsToTheirNearestCentroid) {
  for (const Data& data : {mixture_data(3000), grid_data(300, 5)}) {
    const LocalRows rows = data.block(MPI_COMM_WORLD);
    std::vector<std::uint64_t> hash;
    for (std::int64_t l = 0; l < rows.local_rows(); ++l) hash.push_back(lsgl::ann::row_hash(7, l));
    AnnParams p;
    const std::int64_t wanted = rows.local_rows() / 3;
    const std::vector<float> x = lsgl::test::values_of(rows);
    const lsgl::ann::CellLayout lay =
        lsgl::ann::local_cells(x, hash, rows.local_rows(), rows.d, wanted, p);
    EXPECT_EQ(lay.cells, wanted);
    EXPECT_EQ(lsgl::ann::local_cells(x, hash, rows.local_rows(), rows.d, wanted, p).centroids,
              lay.centroids);
    const std::vector<int> home = lsgl::ann::nearest_cells(lay, rows.data(), rows.local_rows(), 2);
    std::vector<double> dist(static_cast<std::size_t>(lay.cells));
    for (std::int64_t l = 0; l < rows.local_rows(); ++l) {
      lay.distances(rows.row(l), dist.data());
      ASSERT_EQ(home[l], lsgl::ann::nearest_cell(dist.data(), lay.cells)) << "row " << l;
    }
  }
}

// The cell layout of the partition route against brute force over all centroids, with more
// cells than a near list holds (both the near lists and the products are used): every row's
// cell is its nearest centroid by squared_distance (ties: lowest cell), and the cells
// near_cells_within gives are exactly those whose Voronoi bound is within the radius.
TEST(Candidates, CellLayoutMatchesBruteForce) {
  // (identical rows: every centroid is at the row, so the near lists never suffice)
  for (const auto& [data, spread] :
       {std::make_pair(mixture_data(3000), true), std::make_pair(dominant_cluster_data(2000), true),
        std::make_pair(grid_data(300, 5), true), std::make_pair(identical_data(60, 4), false)}) {
    const LocalRows rows = data.block(MPI_COMM_WORLD);
    AnnParams p;
    p.cells_per_rank = 40;
    const lsgl::ann::CellAssignment a = lsgl::ann::assign_cells(MPI_COMM_WORLD, rows, p);
    const lsgl::ann::CellLayout& lay = a.layout;
    std::vector<double> dist(static_cast<std::size_t>(lay.cells));
    std::int64_t listed = 0;
    for (std::int64_t l = 0; l < rows.local_rows(); ++l) {
      lay.distances(rows.row(l), dist.data());
      const int i = lsgl::ann::nearest_cell(dist.data(), lay.cells);
      ASSERT_EQ(a.home[l], i) << "row " << rows.begin + l;
      for (double radius : {0.0, 0.05, 0.5, 3.0}) {
        std::vector<int> near;
        if (!lsgl::ann::near_cells_within(lay, rows.row(l), i, radius, near)) continue;
        ++listed;
        std::vector<int> want;
        for (int j = 0; j < lay.cells; ++j) {
          const float* ci = lay.centroids.data() + i * lay.d;
          const float* cj = lay.centroids.data() + j * lay.d;
          const double g = std::sqrt(lsgl::squared_distance(ci, cj, lay.d));
          const double a2 = dist[i], b2 = dist[j];
          const bool beyond =
              g > 0 && (b2 - a2) - 1e-12 * (a2 + b2) > 2.0 * g * radius * (1.0 + 1e-12);
          if (j != i && !beyond) want.push_back(j);
        }
        std::sort(near.begin(), near.end());
        ASSERT_EQ(near, want) << "row " << rows.begin + l << " radius " << radius;
      }
    }
    if (spread) EXPECT_GT(lsgl::allreduce_sum(MPI_COMM_WORLD, listed), 0);
  }
}

// Rows per rank within 10% of the mean on skewed data (one dominant cluster, identical rows):
// within 8% and a row by construction (each rank cut moves at most 4% of a rank's rows).
TEST(Candidates, PartitionBalancesSkewedData) {
  const int size = lsgl::comm_size(MPI_COMM_WORLD);
  for (const Data& data : {dominant_cluster_data(3001), identical_data(2000, 3)}) {
    AnnParams p;
    p.engine = lsgl::AnnEngine::kExact;
    p.route = lsgl::AnnRoute::kPartition;
    const Candidates c = lsgl::find_candidates(MPI_COMM_WORLD, data.block(MPI_COMM_WORLD), 5, p);
    const double mean = static_cast<double>(data.n) / size;
    EXPECT_LE(static_cast<double>(c.report.rows_max), 1.08 * mean + 1);
    EXPECT_GE(static_cast<double>(c.report.rows_min), 0.92 * mean - 1);
  }
}

// The defaults of the approximate engines on the partition route, low-dimensional data.
TEST(Candidates, PartitionRouteRecallOfDefaults) {
  const Data data = mixture_data(12000);
  const int m = 20;
  const std::vector<float> all = data.all();
  const LocalRows rows = data.block(MPI_COMM_WORLD);
  const std::vector<List> exact = exact_lists(data, all, rows, m);
  for (const lsgl::AnnEngine engine : {lsgl::AnnEngine::kHnsw, lsgl::AnnEngine::kFlann}) {
    AnnParams p;
    p.engine = engine;
    p.route = lsgl::AnnRoute::kPartition;
    const Candidates c = lsgl::find_candidates(MPI_COMM_WORLD, rows, m, p);
    expect_valid(data, all, rows, c, m);
    const double recall = own_recall(c, exact, m) / (static_cast<double>(data.n) * m);
    if (lsgl::comm_rank(MPI_COMM_WORLD) == 0)
      std::printf("%s partition: recall %.4f\n", lsgl::name_of(engine), recall);
    EXPECT_GE(recall, 0.99) << lsgl::name_of(engine);
  }
}

// [KP19]'s manifold set-up (64 x 64 grid, 240 smooth signals) read in grid order: rows sorted
// along the data are the hard case for HNSW's insertion (0.987 before it was shuffled).
TEST(Candidates, HnswRecallOnGridOrderedManifold) {
  const std::string dir = lsgl::test::shared_tmpdir("lsgl-manifold");
  ASSERT_FALSE(dir.empty());
  lsgl::ManifoldParams mp;
  mp.signals = 240;
  lsgl::generate_manifold(MPI_COMM_WORLD, mp, dir + "/grid.h5");
  const LocalRows rows = lsgl::read_dataset(MPI_COMM_WORLD, dir + "/grid.h5", "/X");
  const Data data{rows.n, rows.d, {}};
  const std::vector<float> all = lsgl::allgather_items(MPI_COMM_WORLD, lsgl::test::values_of(rows));
  const int m = 4;
  const std::vector<List> exact = exact_lists(data, all, rows, m);
  for (const lsgl::AnnRoute route : {lsgl::AnnRoute::kPartition, lsgl::AnnRoute::kRing}) {
    AnnParams p;
    p.engine = lsgl::AnnEngine::kHnsw;
    p.route = route;
    const Candidates c = lsgl::find_candidates(MPI_COMM_WORLD, rows, m, p);
    const double recall = own_recall(c, exact, m) / (static_cast<double>(data.n) * m);
    if (lsgl::comm_rank(MPI_COMM_WORLD) == 0)
      std::printf("hnsw %s grid: recall %.4f\n", lsgl::name_of(route), recall);
    EXPECT_GE(recall, 0.995) << lsgl::name_of(route);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (lsgl::comm_rank(MPI_COMM_WORLD) == 0) std::filesystem::remove_all(dir);
}

TEST(Candidates, Describe) {
  AnnParams p;
  EXPECT_EQ(p.engine, lsgl::AnnEngine::kAuto);
  EXPECT_EQ(p.route, lsgl::AnnRoute::kPartition);
  p.engine = lsgl::AnnEngine::kHnsw;
  EXPECT_EQ(p.describe(), "hnsw M=16 ef_construction=100 ef=40 threads=1");
  p.engine = lsgl::AnnEngine::kFlann;
  EXPECT_EQ(p.describe(), "flann kdtree trees=4 checks=256 threads=1");
  p.engine = lsgl::AnnEngine::kExact;
  EXPECT_EQ(p.describe(), "exact");
  p.engine = lsgl::AnnEngine::kVoronoi;
  EXPECT_EQ(p.describe(), "voronoi cell_rows=2048 threads=1");
  p.engine = lsgl::AnnEngine::kProjected;
  EXPECT_EQ(p.describe(), "projected dims=auto shortlist=auto threads=1");
  p.project_dims = 48;
  p.shortlist = 240;
  p.certify = true;
  EXPECT_EQ(p.describe(), "projected dims=48 shortlist=240 certified threads=1");
  p = AnnParams();
  p.engine = lsgl::AnnEngine::kAuto;
  EXPECT_EQ(p.describe(),
            "auto rows=20000: projected dims=auto shortlist=auto, voronoi cell_rows=2048 or "
            "hnsw M=16 ef_construction=100 ef=40 threads=1");
  p.certify = true;
  EXPECT_EQ(p.describe(),
            "auto rows=20000: projected dims=auto shortlist=auto certified, voronoi "
            "cell_rows=2048 threads=1");
}

// The voronoi engine searches its queries in batches of about 8,192 (the blocks of consecutive
// home cells; each visited cell scanned once for the batch): 20,000 clustered rows, one in five
// a duplicate of its predecessor (ties, and queries whose float selection cannot be certified),
// cells of about 64 rows, so that a rank holds several batches of many home cells. Lists equal
// to the brute force's on both routes.
TEST(Candidates, VoronoiEngineIsExactOverSeveralBatches) {
  const Data mixture = mixture_data(20000);
  const Data data{mixture.n, mixture.d,
                  [&](std::int64_t g, float* row) { mixture.row(g % 5 == 4 ? g - 1 : g, row); }};
  const std::vector<float> all = data.all();
  const LocalRows rows = data.block(MPI_COMM_WORLD);
  const int m = 10;
  std::vector<List> want(static_cast<std::size_t>(rows.local_rows()));
  for (std::int64_t i = 0; i < rows.local_rows(); ++i)
    want[i] = brute_force(data, all, rows.begin + i, m);
  for (const lsgl::AnnRoute route : {lsgl::AnnRoute::kRing, lsgl::AnnRoute::kPartition}) {
    AnnParams p;
    p.engine = lsgl::AnnEngine::kVoronoi;
    p.route = route;
    p.cell_rows = 64;
    p.threads = 2;
    const Candidates c = lsgl::find_candidates(MPI_COMM_WORLD, rows, m, p);
    ASSERT_EQ(c.local_rows(), rows.local_rows());
    for (std::int64_t i = 0; i < c.local_rows(); ++i)
      for (int j = 0; j < m; ++j) {
        ASSERT_EQ(c.idx[i * m + j], want[i][j].second) << "row " << rows.begin + i;
        ASSERT_EQ(c.dist[i * m + j], want[i][j].first) << "row " << rows.begin + i;
      }
  }
}

// The partition route on two or more ranks hands the input rows back once its indexes hold
// them (AnnParams::rows_done, once, with the engine): the lists equal the brute force's when the
// rows are then overwritten with NaN or freed (n, d and begin kept), so the search reads neither
// their values nor their count after the call. On one rank the route does not call it.
TEST(Candidates, PartitionRouteReadsNoInputRowAfterRowsDone) {
  const Data data = mixture_data(3000);
  const std::vector<float> all = data.all();
  const LocalRows block = data.block(MPI_COMM_WORLD);
  const int m = 8, size = lsgl::comm_size(MPI_COMM_WORLD);
  std::vector<List> want(static_cast<std::size_t>(block.local_rows()));
  for (std::int64_t i = 0; i < block.local_rows(); ++i)
    want[i] = brute_force(data, all, block.begin + i, m);
  for (const lsgl::AnnEngine engine : {lsgl::AnnEngine::kVoronoi, lsgl::AnnEngine::kExact}) {
    for (const bool freed : {false, true}) {
      LocalRows rows = block;
      int calls = 0;
      AnnParams p;
      p.engine = engine;
      p.rows_done = [&](lsgl::AnnEngine used) {
        ++calls;
        EXPECT_EQ(used, engine);
        if (!freed) {
          std::vector<float>& v = rows.values();
          std::fill(v.begin(), v.end(), std::numeric_limits<float>::quiet_NaN());
          return;
        }
        LocalRows shape;
        shape.n = rows.n;
        shape.d = rows.d;
        shape.begin = rows.begin;
        rows = std::move(shape);
      };
      const Candidates c = lsgl::find_candidates(MPI_COMM_WORLD, rows, m, p);
      EXPECT_EQ(calls, size > 1 ? 1 : 0);
      ASSERT_EQ(c.local_rows(), block.local_rows());
      for (std::int64_t i = 0; i < c.local_rows(); ++i)
        for (int j = 0; j < m; ++j) {
          ASSERT_EQ(c.idx[i * m + j], want[i][j].second) << "row " << block.begin + i;
          ASSERT_EQ(c.dist[i * m + j], want[i][j].first) << "row " << block.begin + i;
        }
    }
  }
}

// The voronoi engine gives the brute force's lists (the same distances, ties by index) on data
// with ties and duplicate rows, all rows identical, clusters, rows far from the origin, with
// cells of 1 row up to one cell for all rows, both routes, 1 and 2 threads. Above 32
// dimensions (the last four sets) the cells' lower-bound filter is on: clusters of 4 latent
// dimensions (most panels skipped), isotropic rows (few), rows far from the origin, and
// duplicates of every other row (ties at distance 0).
TEST(Candidates, VoronoiEngineIsExact) {
  const Data wide = mixture_data(1200, 48);
  const Data wide_twins{wide.n, wide.d,
                        [&](std::int64_t g, float* row) { wide.row(g - g % 2, row); }};
  for (const auto& [data, m] :
       {std::make_pair(grid_data(300, 5), 12), std::make_pair(gauss_data(257, 7), 10),
        std::make_pair(mixture_data(1500), 15), std::make_pair(identical_data(60, 4), 7),
        std::make_pair(line_data(), 5), std::make_pair(far_data(700), 9), std::make_pair(wide, 15),
        std::make_pair(gauss_data(400, 40), 10), std::make_pair(far_data(700, 48), 9),
        std::make_pair(wide_twins, 6)}) {
    const std::vector<float> all = data.all();
    const LocalRows rows = data.block(MPI_COMM_WORLD);
    for (std::int64_t cell_rows : {1, 7, 60, 100000}) {
      for (const lsgl::AnnRoute route : {lsgl::AnnRoute::kRing, lsgl::AnnRoute::kPartition}) {
        for (int threads : {1, 2}) {
          AnnParams p;
          p.engine = lsgl::AnnEngine::kVoronoi;
          p.route = route;
          p.cell_rows = cell_rows;
          p.threads = threads;
          p.cells_per_rank = 3;
          const Candidates c = lsgl::find_candidates(MPI_COMM_WORLD, rows, m, p);
          expect_valid(data, all, rows, c, m);
          expect_exact(data, all, rows, c, m);
        }
      }
    }
  }
}

// --ann auto: the measure is the closed form where it has one, the choice follows it on every
// rank, and each choice gives that engine's own lists.
TEST(Candidates, AutoEngineChoosesByRowsCompared) {
  {
    // One voronoi cell per rank: a query compares every row of each rank's block it visits, and
    // on the ring it visits all P blocks of n / P rows: n rows per query.
    const Data data = gauss_data(1500, 6);
    AnnParams p;
    p.engine = lsgl::AnnEngine::kAuto;
    p.route = lsgl::AnnRoute::kRing;
    p.cell_rows = 100000;
    const Candidates c = lsgl::find_candidates(MPI_COMM_WORLD, data.block(MPI_COMM_WORLD), 8, p);
    EXPECT_DOUBLE_EQ(c.report.auto_rows_per_query, 1500.0);
    EXPECT_EQ(c.report.engine, lsgl::AnnEngine::kVoronoi);
  }
  const Data data = mixture_data(3000);
  const std::vector<float> all = data.all();
  const LocalRows rows = data.block(MPI_COMM_WORLD);
  const int m = 10;
  for (const lsgl::AnnRoute route : {lsgl::AnnRoute::kRing, lsgl::AnnRoute::kPartition}) {
    AnnParams p;
    p.engine = lsgl::AnnEngine::kAuto;
    p.route = route;
    p.cell_rows = 50;
    // Clustered rows in small cells: a query compares a few cells, far below the default limit,
    // and gets the exact lists.
    const Candidates a = lsgl::find_candidates(MPI_COMM_WORLD, rows, m, p);
    EXPECT_EQ(a.report.engine, lsgl::AnnEngine::kVoronoi) << lsgl::name_of(route);
    EXPECT_GT(a.report.auto_rows_per_query, 50.0) << lsgl::name_of(route);
    EXPECT_LT(a.report.auto_rows_per_query, 0.5 * data.n) << lsgl::name_of(route);
    expect_exact(data, all, rows, a, m);
    // A limit below the measure: hnsw, with the lists of an explicit hnsw search.
    p.auto_rows_per_query = a.report.auto_rows_per_query / 2;
    const Candidates b = lsgl::find_candidates(MPI_COMM_WORLD, rows, m, p);
    EXPECT_EQ(b.report.engine, lsgl::AnnEngine::kHnsw) << lsgl::name_of(route);
    EXPECT_EQ(b.report.auto_rows_per_query, a.report.auto_rows_per_query) << lsgl::name_of(route);
    AnnParams h = p;
    h.engine = lsgl::AnnEngine::kHnsw;
    const Candidates c = lsgl::find_candidates(MPI_COMM_WORLD, rows, m, h);
    EXPECT_EQ(c.report.engine, lsgl::AnnEngine::kHnsw);
    EXPECT_EQ(b.idx, c.idx) << lsgl::name_of(route);
    EXPECT_EQ(b.dist, c.dist) << lsgl::name_of(route);
  }
}

}  // namespace
