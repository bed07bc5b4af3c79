// The locality partition of the rows: Faiss k-means on a hashed sample, nearest-centroid cells,
// cells ordered by recursive bisection and the sequence of rows cut over the ranks at cell
// boundaries near the even cuts.
#include "cells.hpp"

#include <faiss/Clustering.h>
#include <faiss/IndexFlat.h>
#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <numeric>

#include "bounds.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/threads.hpp"
#include "sample.hpp"

namespace lsgl::ann {
namespace {

constexpr int kKmeansIterations = 20;
constexpr int kPowerIterations = 30;
constexpr double kCutSlack = 0.04;  // a rank cut moves at most this share of a rank's rows
constexpr int kNearCells = 32;      // length of each cell's near list
constexpr std::int64_t kRowBlock = 256;  // rows per single-precision product

// Local. `cells` (<= sum of rows) split over groups of rows[g] sample rows in proportion, each
// non-empty group at least one and at most rows[g] (largest remainders, ties: lowest group).
std::vector<int> apportion(const std::vector<std::int64_t>& rows, int cells) {
  const std::int64_t total = std::accumulate(rows.begin(), rows.end(), std::int64_t{0});
  const auto ideal = [&](std::size_t g) {
    return static_cast<double>(cells) * static_cast<double>(rows[g]) / static_cast<double>(total);
  };
  std::vector<int> share(rows.size(), 0);
  std::int64_t sum = 0;
  for (std::size_t g = 0; g < rows.size(); ++g) {
    if (rows[g] == 0) continue;
    const auto floor = static_cast<std::int64_t>(ideal(g));
    share[g] = static_cast<int>(std::clamp<std::int64_t>(floor, 1, rows[g]));
    sum += share[g];
  }
  while (sum != cells) {
    const int step = sum < cells ? 1 : -1;
    std::size_t best = rows.size();
    for (std::size_t g = 0; g < rows.size(); ++g) {
      const bool can = step > 0 ? share[g] < rows[g] : share[g] > 1;
      const auto need = [&](std::size_t h) { return step * (ideal(h) - share[h]); };
      if (can && (best == rows.size() || need(g) > need(best))) best = g;
    }
    share[best] += step;
    sum += step;
  }
  return share;
}

// Collective. lay.cells (wanted, or the sample rows when fewer), lay.centroids, group_centroids
// and group_first by two levels of Faiss k-means on a hashed sample of kSamplePerCell rows per
// cell, so that no rank clusters more than a few groups' share of the cells:
// 1. rank 0 clusters a sub-sample of kSamplePerCell rows per group into `groups` coarse
//    centroids;
// 2. every sample row goes to rank g mod P for its nearest coarse centroid g, which clusters the
//    rows of each of its groups (in global order) into that group's share of the cells
//    (apportion);
// 3. every rank gathers the centroids, in group order.
// Nothing here depends on the number of ranks but who computes what, so with 1 thread per
// k-means (p.threads = 1) and `groups` independent of P the centroids are the same bits on any
// number of ranks.
// The sample is given: `sample` (rows of d floats, with their hashes `hash`) out of `n` rows in
// all.
void two_level_centroids(MPI_Comm comm, const std::vector<float>& sample,
                         const std::vector<std::uint64_t>& hash, std::int64_t n, std::int64_t d,
                         std::int64_t wanted, int groups, const AnnParams& p, CellLayout& lay) {
  const int size = comm_size(comm), self = comm_rank(comm);
  const std::int64_t mine = static_cast<std::int64_t>(hash.size());
  const std::int64_t sample_rows = allreduce_sum(comm, mine);
  collective_check(comm, sample_rows > 0, "candidates: no rows to partition");
  const int cells = static_cast<int>(std::max<std::int64_t>(1, std::min(wanted, sample_rows)));

  // 1. Coarse centroids.
  const double coarse_share =
      static_cast<double>(groups * kSamplePerCell) / static_cast<double>(n);
  const auto row = [&](std::int64_t r) { return sample.data() + r * d; };
  std::vector<float> sub;
  for (std::int64_t r = 0; r < mine; ++r) {
    if (in_share(hash[r], coarse_share)) sub.insert(sub.end(), row(r), row(r + 1));
  }
  const std::vector<float> coarse_sample = gather_on_root(comm, sub);
  const std::int64_t coarse_rows = allreduce_sum(comm, static_cast<std::int64_t>(sub.size()) / d);
  const int coarse_cells = static_cast<int>(std::clamp<std::int64_t>(coarse_rows, 1, groups));
  std::vector<float> coarse(static_cast<std::size_t>(coarse_cells * d), 0.0f);  // centroids
  if (coarse_cells > 1) {
    collectively(comm, [&] {
      if (self == 0) {
        coarse = kmeans(coarse_sample.data(), coarse_rows, d, coarse_cells, p);
      }
    });
    MPI_Bcast(coarse.data(), static_cast<int>(coarse_cells * d), MPI_FLOAT, 0, comm);
  }

  // 2. Sample rows to the ranks of their groups; fine centroids there, group by group.
  const std::vector<int> group =
      coarse_cells > 1 ? nearest_centroids(coarse.data(), coarse_cells, d, sample.data(), mine,
                                           p.threads)
                       : std::vector<int>(static_cast<std::size_t>(mine), 0);
  std::vector<std::int64_t> local_count(coarse_cells, 0), count(coarse_cells);
  std::vector<std::vector<float>> send(size);
  std::vector<std::vector<int>> send_group(size);
  for (std::int64_t r = 0; r < mine; ++r) {
    ++local_count[group[r]];
    send[group[r] % size].insert(send[group[r] % size].end(), row(r), row(r + 1));
    send_group[group[r] % size].push_back(group[r]);
  }
  MPI_Allreduce(local_count.data(), count.data(), coarse_cells, MPI_INT64_T, MPI_SUM, comm);
  const std::vector<float> rows = alltoallv(comm, send);
  const std::vector<int> row_group = alltoallv(comm, send_group);
  const std::vector<int> share = apportion(count, cells);
  std::vector<float> fine;  // this rank's groups' centroids, in group order
  collectively(comm, [&] {
    std::vector<float> members;
    for (int g = self; g < coarse_cells; g += size) {
      if (share[g] == 0) continue;
      members.clear();
      for (std::size_t r = 0; r < row_group.size(); ++r) {
        if (row_group[r] == g) {
          members.insert(members.end(), rows.data() + r * d, rows.data() + (r + 1) * d);
        }
      }
      const std::vector<float> c = kmeans(members.data(), count[g], d, share[g], p);
      fine.insert(fine.end(), c.begin(), c.end());
    }
  });

  // 3. All centroids on every rank, in group order (rank r holds groups r, r + P, ...).
  const std::vector<float> gathered = allgather_items(comm, fine);
  lay.group_first.assign(1, 0);
  for (int s : share) lay.group_first.push_back(lay.group_first.back() + s);
  std::vector<std::int64_t> at(static_cast<std::size_t>(size) + 1, 0);  // each rank's first cell
  for (int g = 0; g < coarse_cells; ++g) at[g % size + 1] += share[g];
  for (int r = 0; r < size; ++r) at[r + 1] += at[r];
  lay.cells = cells;
  lay.centroids.resize(static_cast<std::size_t>(cells * d));
  for (int g = 0; g < coarse_cells; ++g) {
    const std::int64_t from = at[g % size] * d, len = share[g] * d;
    std::copy(gathered.begin() + from, gathered.begin() + from + len,
              lay.centroids.begin() + lay.group_first[g] * d);
    at[g % size] += share[g];
  }
  lay.group_centroids = coarse;
}

// The sample drawn from `data`: kSamplePerCell rows per wanted cell.
void two_level_centroids(MPI_Comm comm, const LocalRows& data, std::int64_t wanted, int groups,
                         const AnnParams& p, CellLayout& lay) {
  std::vector<std::uint64_t> hash;
  const std::vector<float> sample = hashed_sample(data, wanted * kSamplePerCell, p.seed, hash);
  two_level_centroids(comm, sample, hash, data.n, data.d, wanted, groups, p, lay);
}

// Collective. lay.near and lay.near_gap: each rank lists a block of the cells, all gather.
void neighbour_cells(MPI_Comm comm, CellLayout& lay) {
  const Partition part(lay.cells, comm_size(comm));
  const int self = comm_rank(comm);
  lay.near_count = std::min(lay.cells, kNearCells);
  std::vector<int> near;
  std::vector<double> gap;
  std::vector<double> gaps(static_cast<std::size_t>(lay.cells));
  std::vector<std::pair<double, int>> all(static_cast<std::size_t>(lay.cells));
  for (auto i = part.begin(self); i < part.end(self); ++i) {
    lay.gaps(static_cast<int>(i), gaps.data());
    for (int j = 0; j < lay.cells; ++j) all[j] = {gaps[j], j};
    std::partial_sort(all.begin(), all.begin() + lay.near_count, all.end());
    for (int t = 0; t < lay.near_count; ++t) {
      near.push_back(all[t].second);
      gap.push_back(all[t].first);
    }
  }
  lay.near = allgather_items(comm, near);
  lay.near_gap = allgather_items(comm, gap);
}

// Local. Squared distances from x to each of `cells` centroids (out: cells values).
void centroid_distances(const float* centroids, int cells, std::int64_t d, const float* x,
                        double* out) {
  for (int c = 0; c < cells; ++c) out[c] = squared_distance(x, centroids + c * d, d);
}

// Local. nearest_centroids by products for the nb (<= kRowBlock) rows at x: out[r].
void nearest_block(const float* centroids, int cells, std::int64_t d, const float* x,
                   std::int64_t nb, std::vector<float>& approx, std::vector<double>& err,
                   std::vector<double>& exact, int* out) {
  approx.resize(static_cast<std::size_t>(kRowBlock * cells));
  err.resize(approx.size());
  exact.resize(static_cast<std::size_t>(cells));
  approximate_distances(centroids, cells, d, x, nb, approx.data(), err.data());
  for (std::int64_t i = 0; i < nb; ++i) {
    const float* f = approx.data() + i * cells;
    const double* e = err.data() + i * cells;
    int best = 0;
    for (int c = 1; c < cells; ++c) best = f[c] < f[best] ? c : best;
    bool sure = true;  // every other centroid certainly farther
    for (int c = 0; c < cells && sure; ++c) {
      sure = c == best || static_cast<double>(f[c]) - e[c] > static_cast<double>(f[best]) + e[best];
    }
    if (!sure) {
      centroid_distances(centroids, cells, d, x + i * d, exact.data());
      best = nearest_cell(exact.data(), cells);
    }
    out[i] = best;
  }
}

// Local. The nearest cell of row x by the near list of a guess (nearest_cells), or -1 when the
// list ends before 2 ||x - c_b||. `gx` holds x . C_g for the coarse centroids.
int nearest_by_guess(const CellLayout& lay, const float* x, const float* gx,
                     const std::vector<float>& group_norm, const std::vector<float>& norm) {
  const std::int64_t d = lay.d;
  const int groups = static_cast<int>(lay.group_first.size()) - 1;
  int g0 = -1;  // the nearest coarse centroid that has cells
  for (int g = 0; g < groups; ++g) {
    const bool has = lay.group_first[g + 1] > lay.group_first[g];
    if (has && (g0 < 0 || group_norm[g] - 2 * gx[g] < group_norm[g0] - 2 * gx[g0])) g0 = g;
  }
  int b = lay.group_first[g0];
  float vb = INFINITY;
  for (int f = lay.group_first[g0]; f < lay.group_first[g0 + 1]; ++f) {
    const float* c = lay.centroids.data() + static_cast<std::int64_t>(f) * d;
    const float v = norm[f] - 2 * cblas_sdot(static_cast<int>(d), x, 1, c, 1);
    if (v < vb) vb = v, b = f;
  }
  double best = squared_distance(x, lay.centroids.data() + b * d, d);
  const double limit = 2.0 * std::sqrt(best) * (1.0 + 1e-9);
  const int nc = lay.near_count;
  const int* cell = lay.near.data() + static_cast<std::int64_t>(b) * nc;
  const double* gap = lay.near_gap.data() + static_cast<std::int64_t>(b) * nc;
  if (nc < lay.cells && gap[nc - 1] <= limit) return -1;
  int at = b;
  for (int t = 0; t < nc && gap[t] <= limit; ++t) {
    const int j = cell[t];
    if (j == b) continue;
    const double dj = squared_distance(x, lay.centroids.data() + j * d, d);
    if (dj < best || (dj == best && j < at)) best = dj, at = j;
  }
  return at;
}

// Local. Appends the cells of `group` to `order` by recursive bisection: project the centroids
// on their principal direction (weighted by rows), sort, split where half the rows are reached.
void bisect(const CellLayout& lay, std::vector<int> group, std::vector<int>& order) {
  if (group.size() <= 1) {
    order.insert(order.end(), group.begin(), group.end());
    return;
  }
  const std::int64_t d = lay.d;
  double total = 0;
  for (int c : group) total += static_cast<double>(lay.size[c]) + 1e-9;
  std::vector<double> mu(d, 0.0), v(d, 0.0), w(d);
  for (int c : group) {
    const double wc = (static_cast<double>(lay.size[c]) + 1e-9) / total;
    for (std::int64_t j = 0; j < d; ++j) mu[j] += wc * lay.centroids[c * d + j];
  }
  const auto centred = [&](int c, std::int64_t j) { return lay.centroids[c * d + j] - mu[j]; };
  double far = -1;  // start from the direction of the farthest centroid
  for (int c : group) {
    double s = 0;
    for (std::int64_t j = 0; j < d; ++j) s += centred(c, j) * centred(c, j);
    if (s > far) {
      far = s;
      for (std::int64_t j = 0; j < d; ++j) v[j] = centred(c, j);
    }
  }
  for (int it = 0; it < kPowerIterations; ++it) {
    std::fill(w.begin(), w.end(), 0.0);
    for (int c : group) {
      double t = 0;
      for (std::int64_t j = 0; j < d; ++j) t += centred(c, j) * v[j];
      t *= static_cast<double>(lay.size[c]) + 1e-9;
      for (std::int64_t j = 0; j < d; ++j) w[j] += t * centred(c, j);
    }
    double norm = 0;
    for (double x : w) norm += x * x;
    if (!(norm > 0)) break;
    norm = std::sqrt(norm);
    for (std::int64_t j = 0; j < d; ++j) v[j] = w[j] / norm;
  }
  std::vector<std::pair<double, int>> proj;
  for (int c : group) {
    double t = 0;
    for (std::int64_t j = 0; j < d; ++j) t += centred(c, j) * v[j];
    proj.emplace_back(t, c);
  }
  std::sort(proj.begin(), proj.end());
  std::size_t split = 1;
  double acc = 0, best = INFINITY;
  for (std::size_t s = 1; s < proj.size(); ++s) {
    acc += static_cast<double>(lay.size[proj[s - 1].second]) + 1e-9;
    const double miss = std::abs(2 * acc - total);
    if (miss < best) best = miss, split = s;
  }
  std::vector<int> left, right;
  for (std::size_t s = 0; s < proj.size(); ++s) {
    (s < split ? left : right).push_back(proj[s].second);
  }
  bisect(lay, std::move(left), order);
  bisect(lay, std::move(right), order);
}

}  // namespace

std::vector<float> kmeans(const float* x, std::int64_t rows, std::int64_t d, int cells,
                          const AnnParams& p) {
  faiss::ClusteringParameters cp;
  cp.niter = kKmeansIterations;
  cp.seed = static_cast<int>(p.seed & 0x7fffffff);
  cp.verbose = false;
  cp.min_points_per_centroid = 1;          // small samples are expected: no warning
  cp.max_points_per_centroid = INT_MAX / 2;  // the sample is ours: no subsampling
  faiss::Clustering km(static_cast<int>(d), cells, cp);
  faiss::IndexFlatL2 index(d);
  {
    const auto scope = ThreadScope::openmp(p.threads);
    km.train(rows, x, index);
  }
  return km.centroids;
}

int CellLayout::owner(std::int64_t at) const {
  return static_cast<int>(std::upper_bound(cut.begin(), cut.end(), at) - cut.begin()) - 1;
}

void CellLayout::distances(const float* x, double* out) const {
  centroid_distances(centroids.data(), cells, d, x, out);
}

void CellLayout::gaps(int i, double* out) const {
  for (int c = 0; c < cells; ++c) {
    out[c] = std::sqrt(squared_distance(centroids.data() + i * d, centroids.data() + c * d, d));
  }
}

double squared_norm(const float* a, std::int64_t d) {
  double s = 0.0;
  for (std::int64_t j = 0; j < d; ++j) s += static_cast<double>(a[j]) * a[j];
  return s;
}

void approximate_distances(const float* centroids, int cells, std::int64_t d, const float* x,
                           std::int64_t rows, float* out, double* err) {
  std::vector<double> mean(static_cast<std::size_t>(d), 0.0);
  for (int c = 0; c < cells; ++c) {
    for (std::int64_t j = 0; j < d; ++j) mean[j] += centroids[c * d + j];
  }
  std::vector<float> shift(static_cast<std::size_t>(d));
  for (std::int64_t j = 0; j < d; ++j) shift[j] = static_cast<float>(mean[j] / cells);
  const auto shifted = [&](const float* v, std::int64_t n) {
    std::vector<float> s(static_cast<std::size_t>(n * d));
    for (std::int64_t r = 0; r < n; ++r) {
      for (std::int64_t j = 0; j < d; ++j) s[r * d + j] = v[r * d + j] - shift[j];
    }
    return s;
  };
  const std::vector<float> cs = shifted(centroids, cells), xs = shifted(x, rows);
  std::vector<double> cn(static_cast<std::size_t>(cells));
  for (int c = 0; c < cells; ++c) cn[c] = squared_norm(cs.data() + c * d, d);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(rows), cells,
              static_cast<int>(d), -2.0f, xs.data(), static_cast<int>(d), cs.data(),
              static_cast<int>(d), 0.0f, out, cells);
  for (std::int64_t r = 0; r < rows; ++r) {
    const double xn = squared_norm(xs.data() + r * d, d), xr = std::sqrt(xn);
    for (int c = 0; c < cells; ++c) {
      out[r * cells + c] = static_cast<float>(xn + cn[c] + out[r * cells + c]);
      err[r * cells + c] = product_rounding(d, xr, std::sqrt(cn[c]));
    }
  }
}

std::vector<int> nearest_centroids(const float* centroids, int cells, std::int64_t d,
                                   const float* x, std::int64_t rows, int threads) {
  std::vector<int> home(static_cast<std::size_t>(rows));
  const auto scope = ThreadScope::blas(1);  // the threads take blocks of rows
#pragma omp parallel num_threads(threads)
  {
    std::vector<float> approx;
    std::vector<double> err, exact;
#pragma omp for schedule(static)
    for (std::int64_t b = 0; b < rows; b += kRowBlock) {
      const std::int64_t nb = std::min(kRowBlock, rows - b);
      nearest_block(centroids, cells, d, x + b * d, nb, approx, err, exact, home.data() + b);
    }
  }
  return home;
}

std::vector<int> nearest_cells(const CellLayout& lay, const float* x, std::int64_t rows,
                               int threads) {
  const std::int64_t d = lay.d;
  if (lay.near_count == 0 || lay.group_first.size() <= 2) {
    return nearest_centroids(lay.centroids.data(), lay.cells, d, x, rows, threads);
  }
  const int groups = static_cast<int>(lay.group_first.size()) - 1;
  std::vector<float> group_norm(static_cast<std::size_t>(groups)), norm;
  for (int g = 0; g < groups; ++g) {
    group_norm[g] = static_cast<float>(squared_norm(lay.group_centroids.data() + g * d, d));
  }
  for (int c = 0; c < lay.cells; ++c) {
    norm.push_back(static_cast<float>(squared_norm(lay.centroids.data() + c * d, d)));
  }
  std::vector<int> home(static_cast<std::size_t>(rows));
  const auto scope = ThreadScope::blas(1);  // the threads take blocks of rows
#pragma omp parallel num_threads(threads)
  {
    std::vector<float> approx, gx(static_cast<std::size_t>(kRowBlock * groups)), gathered;
    std::vector<double> err, exact;
    std::vector<std::int64_t> left;
    std::vector<int> found;
#pragma omp for schedule(static)
    for (std::int64_t b = 0; b < rows; b += kRowBlock) {
      const std::int64_t nb = std::min(kRowBlock, rows - b);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(nb), groups,
                  static_cast<int>(d), 1.0f, x + b * d, static_cast<int>(d),
                  lay.group_centroids.data(), static_cast<int>(d), 0.0f, gx.data(), groups);
      left.clear();
      for (std::int64_t i = 0; i < nb; ++i) {
        const float* xi = x + (b + i) * d;
        home[b + i] = nearest_by_guess(lay, xi, gx.data() + i * groups, group_norm, norm);
        if (home[b + i] < 0) left.push_back(b + i);
      }
      if (left.empty()) continue;
      gathered.clear();
      for (std::int64_t r : left) gathered.insert(gathered.end(), x + r * d, x + (r + 1) * d);
      found.resize(left.size());
      nearest_block(lay.centroids.data(), lay.cells, d, gathered.data(),
                    static_cast<std::int64_t>(left.size()), approx, err, exact, found.data());
      for (std::size_t t = 0; t < left.size(); ++t) home[left[t]] = found[t];
    }
  }
  return home;
}

bool near_cells_within(const CellLayout& lay, const float* x, int i, double radius,
                       std::vector<int>& out) {
  if (lay.near_count == 0 || !std::isfinite(radius)) return false;
  const std::int64_t d = lay.d;
  const int nc = lay.near_count;
  const int* cell = lay.near.data() + static_cast<std::int64_t>(i) * nc;
  const double* gap = lay.near_gap.data() + static_cast<std::int64_t>(i) * nc;
  const double a2 = squared_distance(x, lay.centroids.data() + i * d, d);
  const double limit = 2.0 * (std::sqrt(a2) + radius) * (1.0 + 1e-9);
  if (nc < lay.cells && gap[nc - 1] <= limit) return false;
  for (int t = 0; t < nc && gap[t] <= limit; ++t) {
    const int j = cell[t];
    if (j == i) continue;
    const double b2 = squared_distance(x, lay.centroids.data() + j * d, d);
    // The Voronoi bound (b2 - a2) / (2 gap), less the rounding of b2 - a2.
    if (!voronoi_excludes((b2 - a2) - kBoundSlack * (a2 + b2), gap[t], radius)) out.push_back(j);
  }
  return true;
}

CellLayout local_cells(const std::vector<float>& sample, const std::vector<std::uint64_t>& hash,
                       std::int64_t n, std::int64_t d, std::int64_t wanted, const AnnParams& p) {
  CellLayout lay;
  lay.d = d;
  const int groups = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(wanted))));
  two_level_centroids(MPI_COMM_SELF, sample, hash, n, d, wanted, groups, p, lay);
  neighbour_cells(MPI_COMM_SELF, lay);
  return lay;
}

int nearest_cell(const double* dist, int cells) {
  return static_cast<int>(std::min_element(dist, dist + cells) - dist);
}

CellAssignment assign_cells(MPI_Comm comm, const LocalRows& data, const AnnParams& p) {
  CellAssignment a;
  a.layout.d = data.d;
  const int size = comm_size(comm);
  two_level_centroids(comm, data, static_cast<std::int64_t>(p.cells_per_rank) * size, size, p,
                      a.layout);
  lay_out_cells(comm, data, p.threads, a);
  return a;
}

CellAssignment assign_global_cells(MPI_Comm comm, const LocalRows& data, std::int64_t cells,
                                   const AnnParams& p) {
  CellAssignment a;
  a.layout.d = data.d;
  AnnParams one = p;
  one.threads = 1;  // Faiss's k-means gives the same bits with the same threads only
  const int groups = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(cells))));
  two_level_centroids(comm, data, cells, groups, one, a.layout);
  lay_out_cells(comm, data, p.threads, a);
  return a;
}

void lay_out_cells(MPI_Comm comm, const LocalRows& data, int threads, CellAssignment& a) {
  const int size = comm_size(comm);
  const std::int64_t rows = data.local_rows();
  CellLayout& lay = a.layout;
  neighbour_cells(comm, lay);

  // Every local row to its nearest centroid; cell sizes over all ranks.
  a.home = nearest_cells(lay, data.data(), rows, threads);
  std::vector<std::int64_t> local(lay.cells, 0), before(lay.cells, 0);
  for (int c : a.home) ++local[c];
  lay.size.resize(lay.cells);
  MPI_Allreduce(local.data(), lay.size.data(), lay.cells, MPI_INT64_T, MPI_SUM, comm);
  MPI_Exscan(local.data(), before.data(), lay.cells, MPI_INT64_T, MPI_SUM, comm);
  if (comm_rank(comm) == 0) std::fill(before.begin(), before.end(), 0);

  // The sequence of cells and its cut over the ranks.
  std::vector<int> all(lay.cells), order;
  std::iota(all.begin(), all.end(), 0);
  bisect(lay, all, order);
  lay.start.assign(lay.cells, 0);
  lay.first_rank.assign(lay.cells, 0);
  lay.last_rank.assign(lay.cells, -1);
  std::vector<std::int64_t> bounds{0};  // cell boundaries in the sequence
  for (int c : order) {
    lay.start[c] = bounds.back();
    bounds.push_back(bounds.back() + lay.size[c]);
  }
  const Partition even(data.n, size);
  const double slack = kCutSlack * static_cast<double>(data.n) / size;
  lay.cut.assign(static_cast<std::size_t>(size) + 1, data.n);
  lay.cut[0] = 0;
  for (int r = 1; r < size; ++r) {
    const std::int64_t want = std::max(even.begin(r), lay.cut[r - 1]);
    auto b = std::lower_bound(bounds.begin(), bounds.end(), want);
    if (b == bounds.end() || (b != bounds.begin() && want - *(b - 1) <= *b - want)) --b;
    const bool near = std::abs(static_cast<double>(*b - want)) <= slack;
    lay.cut[r] = near && *b > lay.cut[r - 1] ? *b : want;
  }
  for (int c : order) {
    if (lay.size[c] > 0) {
      lay.first_rank[c] = lay.owner(lay.start[c]);
      lay.last_rank[c] = lay.owner(lay.start[c] + lay.size[c] - 1);
    }
  }
  a.position.resize(static_cast<std::size_t>(rows));
  for (std::int64_t l = 0; l < rows; ++l) {
    const int c = a.home[l];
    a.position[l] = lay.start[c] + before[c]++;
  }
}

}  // namespace lsgl::ann
