#pragma once
// Private to src/ann: the locality partition of the rows into k-means cells, packed onto ranks.
//
// Centroids come from two levels of Faiss k-means on a sample of the rows chosen by a hash of the
// global index (the same sample on any number of ranks): coarse centroids on rank 0 (P of them
// for the partition route), then the sample rows of each coarse cell are clustered into its
// share of the cells. Every row belongs
// to its nearest centroid by squared_distance (ties: lowest cell), so the cells are exactly the
// Voronoi cells of the centroids and a point x lies at least
//   (||x - c_j||^2 - ||x - c_i||^2) / (2 ||c_i - c_j||)
// from every row of cell j when it is in cell i (cell_bound). The cells are ordered by recursive
// bisection of their centroids along their principal direction (weighted by rows), and that
// sequence of rows is cut into P pieces: rank r holds positions [cut[r], cut[r + 1]). Each cut
// is the cell boundary nearest the even cut when one lies within kCutSlack of a rank's rows
// (then no cell spans the cut), else the even cut (rows per rank within 2 kCutSlack of the mean;
// a cell larger than a piece spans several ranks).
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "lsgl/ann/candidates.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl::ann {

struct CellLayout {
  int cells = 0;
  std::int64_t d = 0;
  std::vector<float> centroids;        // cells x d
  std::vector<std::int64_t> size;      // rows of each cell (all ranks)
  std::vector<std::int64_t> start;     // first position of each cell in the sequence
  std::vector<int> first_rank, last_rank;  // ranks holding rows of each cell (first > last: none)
  std::vector<std::int64_t> cut;       // P + 1 sequence positions: rank r holds [cut[r], cut[r+1])
  // The two levels of two_level_centroids: coarse centroids (groups x d); the cells of coarse
  // cell g are [group_first[g], group_first[g + 1]).
  std::vector<float> group_centroids;
  std::vector<int> group_first;
  // For each cell i, its near_count nearest cells by ||c_i - c_j|| (ties: lowest cell), i among
  // them, in ascending order, near[i * near_count + t], at distances near_gap[i * near_count + t]:
  // every other cell is at least the last of these away (neighbour_cells).
  int near_count = 0;
  std::vector<int> near;
  std::vector<double> near_gap;

  // Local. The rank holding sequence position `at`.
  int owner(std::int64_t at) const;

  // Local. Squared distances from x to every centroid (out: cells values).
  void distances(const float* x, double* out) const;
  // Local. ||c_i - c_j|| for every cell j (out: cells values).
  void gaps(int i, double* out) const;
};

// Local. Faiss k-means of `rows` rows at `x` into `cells` centroids (cells x d), seeded by
// p.seed, on p.threads threads.
std::vector<float> kmeans(const float* x, std::int64_t rows, std::int64_t d, int cells,
                          const AnnParams& p);

// Local. ||a||^2 of d floats, accumulated in double.
double squared_norm(const float* a, std::int64_t d);

// Rounding bound of a squared distance between d-dimensional vectors a and b computed in single
// precision as ||a||^2 + ||b||^2 - 2 a.b (a product, norms, and a shift of both by one vector):
// (2 d + 16) 2^-24 (||a|| + ||b||)^2, with room to spare. Local.
inline double product_rounding(std::int64_t d, double norm_a, double norm_b) {
  return (2.0 * static_cast<double>(d) + 16.0) * 0x1.0p-24 * (norm_a + norm_b) * (norm_a + norm_b);
}

// Local. Squared distances from the `rows` rows at x to each of `cells` centroids (cells x d
// floats) by one single-precision product (OpenBLAS sgemm on coordinates shifted by the
// centroids' mean): out[r * cells + c], within err[r * cells + c] of squared_distance
// (product_rounding of the shifted vectors).
void approximate_distances(const float* centroids, int cells, std::int64_t d, const float* x,
                           std::int64_t rows, float* out, double* err);

// Local. The nearest of `cells` centroids (cells x d floats) to each of the `rows` rows at x by
// squared_distance (ties: lowest cell): approximate_distances decides where the margin between
// the best and the second best exceeds their bounds, squared_distance elsewhere.
std::vector<int> nearest_centroids(const float* centroids, int cells, std::int64_t d,
                                   const float* x, std::int64_t rows, int threads);

// Local. The nearest cell of each of the `rows` rows at x by squared_distance (ties: lowest
// cell), as nearest_cell would give. With the two levels and the near lists (assign_cells), per
// row: a first guess b, the nearest cell of the nearest coarse cell; only the cells within
// 2 ||x - c_b|| of c_b can be nearer (||x - c|| >= ||c_b - c|| - ||x - c_b||), and those are
// compared by squared_distance. Otherwise, and for the rows whose bound reaches past the near
// list: as nearest_centroids.
std::vector<int> nearest_cells(const CellLayout& lay, const float* x, std::int64_t rows,
                               int threads);

// Local. `wanted` k-means centroids (fewer when the sample is smaller) of a sample of `n` rows
// (`sample`: rows of d floats, `hash`: their row_hash values; kSamplePerCell per wanted cell) in
// ceil(sqrt(wanted)) coarse groups, as assign_global_cells makes them on one process, with the
// near lists: nearest_cells then assigns a row in O(sqrt(wanted) + kNearCells) products instead
// of O(wanted). The voronoi engine's cells above a few hundred (issue 27: at 10,000,000 rows on
// 2 ranks, 2,441 cells per rank made the flat k-means and assignment 78x slower per row).
CellLayout local_cells(const std::vector<float>& sample, const std::vector<std::uint64_t>& hash,
                       std::int64_t n, std::int64_t d, std::int64_t wanted, const AnnParams& p);

// Local. For a row x of cell i: the cells j != i whose rows may lie within `radius` of x by the
// Voronoi bound (cells.hpp's head), found from i's near list (a cell j farther than
// 2 (||x - c_i|| + radius) from c_i has a bound above radius); appended to `out`. Returns false,
// appending nothing, when the list ends before that distance.
bool near_cells_within(const CellLayout& lay, const float* x, int i, double radius,
                       std::vector<int>& out);

// Local. The nearest cell given the distances to every centroid (ties: lowest cell).
int nearest_cell(const double* dist, int cells);

// The k-means cells of `data` and where each local row goes.
struct CellAssignment {
  CellLayout layout;
  std::vector<int> home;                // cell of each local row
  std::vector<std::int64_t> position;  // sequence position of each local row
};

// Collective. cells_per_rank * P cells (fewer when there are fewer sample rows), P coarse
// groups.
CellAssignment assign_cells(MPI_Comm comm, const LocalRows& data, const AnnParams& p);

// Collective. `cells` cells in ceil(sqrt(cells)) coarse groups, each k-means on one thread: the
// same centroids, cells and sizes on any number of ranks (only the packing onto ranks depends on
// P). The projected search's cells (projected.cpp).
CellAssignment assign_global_cells(MPI_Comm comm, const LocalRows& data, std::int64_t cells,
                                   const AnnParams& p);

// Collective. Given a.layout's centroids and groups: the near lists, every local row's cell,
// the cell sizes, the sequence of cells and its cut over the ranks, each row's position.
void lay_out_cells(MPI_Comm comm, const LocalRows& data, int threads, CellAssignment& a);

}  // namespace lsgl::ann
