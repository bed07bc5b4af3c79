// Exact engine by Voronoi cells within the block ("voronoi"): the same lists as the brute force,
// with the work of a few cells per query instead of all rows.
//
// Build: Faiss k-means on a hashed sample of the block's rows into cells of about
// AnnParams::cell_rows rows; every row goes to its nearest centroid (exactly:
// nearest_centroids). The rows are kept a second time, grouped by cell and centred at their
// centroid (as hnswlib keeps its own copy).
//
// Search, for the queries of one home cell h at a time (own rows: their cell; other queries: the
// nearest centroid by a single-precision product, any cell would do):
// 1. distances to the rows of h by single-precision products on coordinates centred at c_h
//    (panel_products: the rows are kept in panels of kPanel rows, coordinate-major, built once,
//    so a cell scanned for a few queries is read once instead of copied by sgemm each time);
//    each query keeps its best k + kExtra by that distance;
// 2. the distances to the centroids of the cells that can hold a row within the block's reach
//    (gap_j - extent_j at most max ||x - c_h|| + radius over the block: the triangle and ball
//    bounds with exact gaps, so a query's cost follows the cells near it rather than the number
//    of cells) by a second product; cell j is searched when both the
//    Voronoi bound (cells.hpp) and the ball bound ||x - c_j|| - extent_j, with the products'
//    rounding bound taken against them, are within the query's current k-th distance plus its
//    rounding bound, or within the bound a routed query brings (search_within: then the home
//    cell too is skipped when its ball lies beyond it, and fewer than k rows may come back);
//    the blocks of consecutive home cells go in batches of about kBatchQueries queries, and each
//    cell visited from a batch is scanned once for all the batch's queries that visit it;
// Above 2 kFilterDims dimensions, the scans of steps 1 and 2 first bound each row's distance
// from below over its cell's kFilterDims principal directions (make_filter, scan), and compare
// a query with a panel of rows only while that bound reaches its bar, panels of smallest bound
// first: on data of few local dimensions most panels are never compared.
// 3. the kept candidates are recomputed with squared_distance and sorted by (distance, row). The
//    float selection is certified when the exact k-th distance lies more than twice the rounding
//    bound below the first float distance left out; otherwise (near-ties, duplicates) the query
//    is searched by brute force over the cells it visited.
// Rounding bound of a single-precision squared distance between centred vectors: cells.hpp's
// product_rounding.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

#include "bounds.hpp"
#include "cells.hpp"
#include "engines.hpp"
#include "lanes.hpp"
#include "lsgl/util/dense.hpp"
#include "lsgl/util/threads.hpp"
#include "sample.hpp"

namespace lsgl::ann {
namespace {

constexpr int kExtra = 8;                    // float candidates kept beyond k
constexpr std::int64_t kQueryBlock = 512;    // queries per matrix product
constexpr std::int64_t kBatchQueries = 8192;  // queries whose visited cells are scanned together
constexpr int kFlatCells = 512;               // above: two levels of k-means (make_cells)
constexpr int kFilterDims = 16;              // principal directions per cell (lower bound)
constexpr std::int64_t kFilterChunk = 64;    // queries whose lower bounds are kept together
constexpr std::int64_t kFilterSample = 256;  // rows of a cell for its principal directions

// C (rows_a x rows_b) = alpha A (rows_a x d) * B (rows_b x d)^T, single precision.
void products(const float* a, std::int64_t rows_a, const float* b, std::int64_t rows_b,
              std::int64_t d, float* c, float alpha = 1.0f) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(rows_a),
              static_cast<int>(rows_b), static_cast<int>(d), alpha, a, static_cast<int>(d), b,
              static_cast<int>(d), 0.0f, c, static_cast<int>(rows_b));
}

// A query's best candidates by float distance under the order (f, row), at most `cap`: a
// max-heap, whose top is the bar once it holds cap items (a row enters in O(log cap)).
struct Shortlist {
  struct Item {
    double f;
    std::int64_t row;
    bool operator<(const Item& o) const { return f < o.f || (f == o.f && row < o.row); }
  };
  std::vector<Item> items;  // a max-heap
  std::size_t cap = 0;
  std::int64_t scanned = 0;  // rows compared; more than items.size(): some were left out
  Item bar_item{std::numeric_limits<double>::infinity(), 0};

  void reset(std::size_t c) {
    items.clear();
    cap = c;
    scanned = 0;
    bar_item = {std::numeric_limits<double>::infinity(), 0};
  }
  void add(double f, std::int64_t row) {
    const Item it{f, row};
    if (!(it < bar_item)) return;
    if (items.size() == cap) {
      replace_top(it);
    } else {
      items.push_back(it);
      std::push_heap(items.begin(), items.end());
    }
    if (items.size() == cap) bar_item = items.front();
  }
  // The k-th smallest (k <= items.size()).
  const Item& kth(std::size_t k) {
    select_ = items;
    std::nth_element(select_.begin(), select_.begin() + static_cast<std::ptrdiff_t>(k - 1),
                     select_.end());
    return select_[k - 1];
  }
  // The largest kept (items not empty).
  const Item& largest() const { return items.front(); }
  // Below this float distance a row enters the list.
  double bar() const { return bar_item.f; }

 private:
  // The top replaced by a smaller item, sifted down in one pass (pop_heap + push_heap sift twice).
  void replace_top(const Item& it) {
    const std::size_t n = items.size();
    std::size_t at = 0;
    for (;;) {
      std::size_t child = 2 * at + 1;
      if (child >= n) break;
      if (child + 1 < n && items[child] < items[child + 1]) ++child;
      if (!(it < items[child])) break;
      items[at] = items[child];
      at = child;
    }
    items[at] = it;
  }

  std::vector<Item> select_;
};

class VoronoiEngine final : public CountingEngine {
 public:
  VoronoiEngine(const AnnParams& p, const float* base, std::int64_t rows, std::int64_t d)
      : CountingEngine(base, d), rows_(rows), threads_(p.threads) {
    const auto scope = ThreadScope::blas(1);  // the threads work on different cells
    make_cells(p);
    group_rows();
    make_filter();
  }

  void search(const float* queries, std::int64_t nq, int k, std::int64_t* out) const override {
    search_within(queries, nq, k, nullptr, out);
  }

  void search_within(const float* queries, std::int64_t nq, int k, const double* bound,
                     std::int64_t* out) const override {
    search_queries(queries, nq, k, bound, out);
  }
  std::int64_t search_counted(const float* queries, std::int64_t nq, int k,
                              std::int64_t* out) const override {
    return search_queries(queries, nq, k, nullptr, out);
  }
  bool exact_within() const override { return true; }

  void search_own(std::int64_t first, std::int64_t nq, int k, std::int64_t* out) const override {
    const auto scope = ThreadScope::blas(1);  // the threads work on different cells
    search_homes(base_ + first * d_, home_.data() + first, nullptr, nq, k, out);
  }

  const std::vector<std::int64_t>* own_order() const override { return &order_; }

  void search_own_rows(const std::int64_t* rows, std::int64_t nq, int k,
                       std::int64_t* out) const override {
    const auto scope = ThreadScope::blas(1);  // the threads work on different cells
    std::vector<float> x(static_cast<std::size_t>(nq * d_));
    std::vector<int> home(static_cast<std::size_t>(nq));
    for (std::int64_t i = 0; i < nq; ++i) {
      std::copy(base_ + rows[i] * d_, base_ + (rows[i] + 1) * d_, x.data() + i * d_);
      home[i] = home_[rows[i]];
    }
    search_homes(x.data(), home.data(), nullptr, nq, k, out);
  }

 private:
  // search_within, returning the number of rows compared, all queries together.
  std::int64_t search_queries(const float* queries, std::int64_t nq, int k, const double* bound,
                              std::int64_t* out) const {
    const auto scope = ThreadScope::blas(1);  // the threads work on different blocks and cells
    // Home: the nearest centroid by ||c||^2 - 2 q.c in single precision (any cell is valid).
    std::vector<int> home(static_cast<std::size_t>(nq));
    std::vector<double> cn(static_cast<std::size_t>(cells_));
    for (int c = 0; c < cells_; ++c) cn[c] = squared_norm(centroid(c), d_);
#pragma omp parallel num_threads(threads_)
    {
      std::vector<float> g(static_cast<std::size_t>(kQueryBlock * cells_));
#pragma omp for schedule(static)
      for (std::int64_t b = 0; b < nq; b += kQueryBlock) {
        const std::int64_t nb = std::min(kQueryBlock, nq - b);
        products(queries + b * d_, nb, centroids_.data(), cells_, d_, g.data());
        for (std::int64_t i = 0; i < nb; ++i) {
          double best = std::numeric_limits<double>::infinity();
          for (int c = 0; c < cells_; ++c) {
            const double v = cn[c] - 2.0 * g[i * cells_ + c];
            if (v < best) best = v, home[b + i] = c;
          }
        }
      }
    }
    return search_homes(queries, home.data(), bound, nq, k, out);
  }

  const float* centroid(int c) const {
    return centroids_.data() + static_cast<std::int64_t>(c) * d_;
  }
  std::int64_t cell_rows(int c) const { return start_[c + 1] - start_[c]; }

  // k-means centroids (one cell: the mean) and the exact nearest centroid of every row; above
  // kFlatCells cells, two levels of k-means (local_cells), so that the build costs the same per
  // row at any size.
  void make_cells(const AnnParams& p) {
    const std::int64_t wanted =
        std::clamp<std::int64_t>(rows_ / std::max<std::int64_t>(p.cell_rows, 1), 1, 1 << 16);
    std::vector<float> sample;
    std::vector<std::uint64_t> hash;
    const double share = static_cast<double>(wanted * kSamplePerCell) / static_cast<double>(rows_);
    for (std::int64_t l = 0; l < rows_ && wanted > 1; ++l) {
      const std::uint64_t h = row_hash(p.seed, l);
      if (in_share(h, share)) {
        sample.insert(sample.end(), base_ + l * d_, base_ + (l + 1) * d_);
        hash.push_back(h);
      }
    }
    const std::int64_t sample_rows = static_cast<std::int64_t>(sample.size()) / d_;
    cells_ = static_cast<int>(std::max<std::int64_t>(1, std::min(wanted, sample_rows)));
    if (cells_ > kFlatCells) {
      CellLayout lay = local_cells(sample, hash, rows_, d_, cells_, p);
      cells_ = lay.cells;
      centroids_ = lay.centroids;
      home_ = nearest_cells(lay, base_, rows_, threads_);
      return;
    }
    if (cells_ > 1) {
      centroids_ = kmeans(sample.data(), sample_rows, d_, cells_, p);
    } else {
      std::vector<double> mean(static_cast<std::size_t>(d_), 0.0);
      for (std::int64_t l = 0; l < rows_; ++l) {
        for (std::int64_t j = 0; j < d_; ++j) mean[j] += base_[l * d_ + j];
      }
      centroids_.resize(static_cast<std::size_t>(d_));
      for (std::int64_t j = 0; j < d_; ++j) centroids_[j] = static_cast<float>(mean[j] / rows_);
    }
    assign_rows();
  }

  // home_[l]: the nearest centroid by squared_distance (ties: lowest cell).
  void assign_rows() {
    home_ = nearest_centroids(centroids_.data(), cells_, d_, base_, rows_, threads_);
  }

  // The rows by (cell, row), centred at their centroid in panels (panel_products), with their
  // squared norms and the largest norm of each cell.
  void group_rows() {
    start_.assign(static_cast<std::size_t>(cells_) + 1, 0);
    for (int c : home_) ++start_[c + 1];
    std::partial_sum(start_.begin(), start_.end(), start_.begin());
    order_.resize(static_cast<std::size_t>(rows_));
    std::vector<std::int64_t> at(start_.begin(), start_.end() - 1);
    for (std::int64_t l = 0; l < rows_; ++l) order_[at[home_[l]]++] = l;
    panel_first_.assign(static_cast<std::size_t>(cells_) + 1, 0);
    for (int c = 0; c < cells_; ++c)
      panel_first_[c + 1] = panel_first_[c] + (cell_rows(c) + kPanel - 1) / kPanel;
    panels_.assign(static_cast<std::size_t>(panel_first_[cells_] * d_ * kPanel), 0.0f);
    std::vector<float> y(static_cast<std::size_t>(d_));
    panel_norm2_.assign(static_cast<std::size_t>(panel_first_[cells_] * kPanel),
                        std::numeric_limits<float>::infinity());
    reach_.assign(static_cast<std::size_t>(cells_), 0.0);
    extent_.assign(static_cast<std::size_t>(cells_), 0.0);
    for (int c = 0; c < cells_; ++c) {
      for (std::int64_t t = start_[c]; t < start_[c + 1]; ++t) {
        const float* x = base_ + order_[t] * d_;
        const std::int64_t u = t - start_[c];
        float* panel = panels_.data() + (panel_first_[c] + u / kPanel) * d_ * kPanel + u % kPanel;
        for (std::int64_t j = 0; j < d_; ++j) {
          y[j] = x[j] - centroid(c)[j];
          panel[j * kPanel] = y[j];
        }
        const double n2 = squared_norm(y.data(), d_);
        panel_norm2_[panel_first_[c] * kPanel + u] = static_cast<float>(n2);
        reach_[c] = std::max(reach_[c], std::sqrt(n2));
        extent_[c] = std::max(extent_[c], squared_distance(x, centroid(c), d_));
      }
      extent_[c] = std::sqrt(extent_[c]);
    }
  }

  // Above 2 kFilterDims dimensions: each cell's kFilterDims principal directions V_c (rows of
  // basis_, orthonormal in double) and, per row y (centred, as in panels_), its projection
  // V_c y in panels of kPanel rows like panels_, ||V_c y||^2 and the norm of its residual
  // y - V_c^T V_c y (computed explicitly in double, not as a difference of squares).
  void make_filter() {
    filtered_ = d_ > 2 * kFilterDims;
    if (!filtered_) return;
    constexpr int m = kFilterDims;
    const std::int64_t slots = panel_first_[cells_] * kPanel;
    basis_.assign(static_cast<std::size_t>(cells_ * m * d_), 0.0);
    filter_panels_.assign(static_cast<std::size_t>(slots * m), 0.0f);
    filter_norm2_.assign(static_cast<std::size_t>(slots), std::numeric_limits<float>::infinity());
    residual_.assign(static_cast<std::size_t>(slots), 0.0f);
    std::vector<double> y, py, res;
    for (int c = 0; c < cells_; ++c) {
      const std::int64_t rows_c = cell_rows(c);
      if (rows_c == 0) continue;
      y.resize(static_cast<std::size_t>(rows_c * d_));
      for (std::int64_t u = 0; u < rows_c; ++u) {
        const float* panel = panels_.data() + (panel_first_[c] + u / kPanel) * d_ * kPanel;
        for (std::int64_t j = 0; j < d_; ++j) y[u * d_ + j] = panel[j * kPanel + u % kPanel];
      }
      // The directions from every step-th row (about kFilterSample): any orthonormal basis gives
      // a valid bound, the sample's only has to follow the cell's shape.
      const int n = static_cast<int>(d_), r = static_cast<int>(rows_c);
      const int step = static_cast<int>(std::max<std::int64_t>(1, rows_c / kFilterSample));
      const Mat v = top_eigenvectors(gram(y.data(), (r + step - 1) / step, d_, d_ * step, 1.0), m);
      double* vt = basis_.data() + static_cast<std::int64_t>(c) * m * d_;  // m x d
      for (int k = 0; k < m; ++k)
        for (std::int64_t j = 0; j < d_; ++j) vt[k * d_ + j] = v(j, k);
      py.resize(static_cast<std::size_t>(rows_c * m));
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, r, m, n, 1.0, y.data(), n, vt, n, 0.0,
                  py.data(), m);
      res = y;
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, r, n, m, -1.0, py.data(), m, vt, n,
                  1.0, res.data(), n);
      for (std::int64_t u = 0; u < rows_c; ++u) {
        const std::int64_t slot = panel_first_[c] * kPanel + u;
        float* panel = filter_panels_.data() + (panel_first_[c] + u / kPanel) * m * kPanel;
        double n2 = 0.0;
        for (int k = 0; k < m; ++k) {
          const float x = static_cast<float>(py[u * m + k]);
          panel[k * kPanel + u % kPanel] = x;
          n2 += static_cast<double>(x) * x;
        }
        filter_norm2_[slot] = static_cast<float>(n2);
        double r2 = 0.0;
        for (std::int64_t j = 0; j < d_; ++j) r2 += res[u * d_ + j] * res[u * d_ + j];
        residual_[slot] = static_cast<float>(std::sqrt(r2));
      }
    }
  }

  // Rounding bound of a float squared distance between centred vectors of norms a and b.
  double rounding(double a, double b) const { return product_rounding(d_, a, b); }

  // Cell c can hold a row within `radius` of a query whose squared distance to c_c is at least
  // `near`: the ball bound ||x - y|| >= ||x - c_c|| - extent_c.
  bool within_reach(int c, double near, double radius) const {
    return !ball_excludes(near, extent_[c], radius);
  }

  // Positions [begin, end) of a batch of queries, all of home cell `home`.
  struct Block {
    int home;
    std::int64_t begin, end;
  };

  // Per-thread scratch of search_homes.
  struct Scratch {
    std::vector<float> a, ah, gc;
    std::vector<double> an;                            // ||a_i||^2 of the queries scanned
    std::vector<float> lim;                            // their float bars (scan)
    std::vector<float> pa, pan, rq;                    // V_c a_i, ||V_c a_i||^2, residual norm
    std::vector<double> ad, pad, slack;                // a_i and V_c a_i in double; filter slack
    std::vector<float> flim;                           // bars of the filter's lower bound
    std::vector<float> lower;                          // per query of a chunk and panel
    std::vector<float> shifted;                        // centroids of the near cells - c_h
    std::vector<std::pair<int, double>> near;          // (cell, ||c_c - c_h||) that can be reached
    std::vector<double> radius;                        // per position in the batch
    std::vector<double> qn;                            // ||q - c_home||^2, per position
    std::vector<int> home;                             // home cell, per position
    std::vector<std::pair<int, std::int64_t>> visits;  // (cell, position in the batch)
    std::vector<std::int64_t> visited_first;           // visits by position: CSR offsets
    std::vector<int> visited;                          // and cells
    std::vector<std::int64_t> at;                      // positions scanned together
    std::vector<Shortlist> lists;                      // per position in the batch
    std::vector<double> eps;                           // rounding bound, per position
    std::vector<Neighbor> exact;
    std::int64_t scanned = 0;                          // rows compared, all queries
  };

  // Local. The filter's view of the nb queries scanned in cell c (s.a): their projections
  // V_c a_i, squared norms and residual norms, and the slack of the lower bound (see scan).
  void project_queries(int c, std::int64_t nb, Scratch& s) const {
    constexpr int m = kFilterDims;
    const int n = static_cast<int>(d_), rows = static_cast<int>(nb);
    const double* vt = basis_.data() + static_cast<std::int64_t>(c) * m * d_;
    s.ad.assign(s.a.begin(), s.a.begin() + nb * d_);
    s.pad.resize(static_cast<std::size_t>(nb * m));
    s.pa.resize(static_cast<std::size_t>(nb * m));
    s.pan.resize(static_cast<std::size_t>(nb));
    s.rq.resize(static_cast<std::size_t>(nb));
    s.slack.resize(static_cast<std::size_t>(nb));
    s.flim.resize(static_cast<std::size_t>(nb));
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, m, n, 1.0, s.ad.data(), n, vt, n,
                0.0, s.pad.data(), m);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, n, m, -1.0, s.pad.data(), m, vt, n,
                1.0, s.ad.data(), n);  // s.ad: the residuals a_i - V_c^T V_c a_i
    for (std::int64_t i = 0; i < nb; ++i) {
      double n2 = 0.0, r2 = 0.0;
      for (int k = 0; k < m; ++k) {
        const float x = s.pa[i * m + k] = static_cast<float>(s.pad[i * m + k]);
        n2 += static_cast<double>(x) * x;
      }
      for (std::int64_t j = 0; j < d_; ++j) r2 += s.ad[i * d_ + j] * s.ad[i * d_ + j];
      s.pan[i] = static_cast<float>(n2);
      s.rq[i] = static_cast<float>(std::sqrt(r2));
      s.slack[i] = 2.0 * rounding(std::sqrt(s.an[i]), reach_[c]);
    }
  }

  // Scans the rows of cell c for the block's queries at positions `at` (rows qx + qs[i] * d):
  // products on coordinates centred at c_c, panel by panel, up to eight queries at a time.
  // With the filter (make_filter), a panel is compared with a query only when the lower bound
  //   ||y - a||^2 >= ||V_c (y - a)||^2 + (||r_y|| - ||r_a||)^2   (r: residuals off V_c)
  // reaches the query's bar for some row of it: the bound, computed in float over kFilterDims
  // coordinates, lies within twice the products' rounding bound of its value in exact
  // arithmetic (the basis is stored in double and the residuals computed explicitly), so a
  // skipped row lies beyond the bar and would not have entered the list either.
  void scan(int c, const std::vector<std::int64_t>& at, const std::vector<std::int64_t>& qs,
            const float* qx, Scratch& s) const {
    const std::int64_t rows_c = cell_rows(c), nb = static_cast<std::int64_t>(at.size());
    if (rows_c == 0 || nb == 0) return;
    s.a.resize(static_cast<std::size_t>(nb * d_));
    s.an.resize(static_cast<std::size_t>(nb));
    s.lim.resize(static_cast<std::size_t>(nb));
    // f = an + v with v = ||y||^2 - 2 a.y in float; v above the bar cannot enter the list, nor
    // can a row whose lower bound lies above the bar plus the bound's slack.
    const auto limits = [&](std::int64_t i) {
      const double bar = s.lists[at[i]].bar();
      s.lim[i] = next_up(static_cast<float>(bar - s.an[i]));
      if (filtered_) s.flim[i] = next_up(static_cast<float>(bar + s.slack[i]));
    };
    for (std::int64_t i = 0; i < nb; ++i) {
      const float* q = qx + qs[at[i]] * d_;
      for (std::int64_t j = 0; j < d_; ++j) s.a[i * d_ + j] = q[j] - centroid(c)[j];
      s.an[i] = squared_norm(s.a.data() + i * d_, d_);
      s.eps[at[i]] = std::max(s.eps[at[i]], rounding(std::sqrt(s.an[i]), reach_[c]));
      s.lists[at[i]].scanned += rows_c;
    }
    if (filtered_) project_queries(c, nb, s);
    for (std::int64_t i = 0; i < nb; ++i) limits(i);
    const std::int64_t* rows = order_.data() + start_[c];
    // The candidates of query i in panel p, from its products with the panel's rows.
    const auto candidates = [&](std::int64_t i, std::int64_t p, const Lanes& dot) {
      const std::int64_t t0 = p * kPanel, width = std::min<std::int64_t>(kPanel, rows_c - t0);
      Lanes norms;
      std::memcpy(&norms, panel_norm2_.data() + (panel_first_[c] + p) * kPanel, sizeof norms);
      const Lanes v = norms - 2.0f * dot;
      if (!any_at_most(v, s.lim[i])) return;  // most panels: no row of the 16 enters the list
      for (std::int64_t r = 0; r < width; ++r) {
        if (v[r] <= s.lim[i]) {
          s.lists[at[i]].add(s.an[i] + static_cast<double>(v[r]), rows[t0 + r]);
          limits(i);
        }
      }
    };
    const std::int64_t np = panel_first_[c + 1] - panel_first_[c];
    const std::int64_t stride = (np + kPanel - 1) / kPanel * kPanel;  // s.lower per query
    std::int64_t first = 0;  // the chunk of queries in progress (filter)
    Lanes dot[8];
    // Queries i0 .. i0 + G - 1 against panel p: the products and candidates, or with the filter
    // the smallest lower bound over the panel's rows.
    const auto queries = [&](auto group, std::int64_t p, std::int64_t i0) {
      constexpr int G = decltype(group)::value;
      const std::int64_t panel = panel_first_[c] + p;
      const float* rows_p = panels_.data() + panel * d_ * kPanel;
      if (!filtered_) {
        panel_products<G>(rows_p, s.a.data() + i0 * d_, d_, dot);
        for (int q = 0; q < G; ++q) candidates(i0 + q, p, dot[q]);
        return;
      }
      panel_products<G>(filter_panels_.data() + panel * kFilterDims * kPanel,
                        s.pa.data() + i0 * kFilterDims, kFilterDims, dot);
      Lanes fn, fr;
      std::memcpy(&fn, filter_norm2_.data() + panel * kPanel, sizeof fn);
      std::memcpy(&fr, residual_.data() + panel * kPanel, sizeof fr);
      Lanes bound[G];
      float smallest[G];
      for (int q = 0; q < G; ++q) {
        const Lanes t = s.rq[i0 + q] - fr;
        bound[q] = fn + s.pan[i0 + q] - 2.0f * dot[q] + t * t;
      }
      lane_mins<G>(bound, smallest);
      for (int q = 0; q < G; ++q) s.lower[(i0 + q - first) * stride + p] = smallest[q];
    };
    // Without the filter, all panels for all queries. With it, queries kFilterChunk at a time:
    // the lower bounds of every panel, then each query's panels in increasing order of their
    // smallest bound, as long as that reaches the query's bar (the first panels fill the list
    // with near rows, so the bar is tight early and most panels are never compared).
    const std::int64_t chunk = filtered_ ? kFilterChunk : nb;
    for (first = 0; first < nb; first += chunk) {
      const std::int64_t last = std::min(nb, first + chunk);
      if (filtered_)
        s.lower.assign(static_cast<std::size_t>((last - first) * stride),
                       std::numeric_limits<float>::infinity());
      for (std::int64_t p = 0; p < np; ++p) {
        std::int64_t i = first;
        for (; i + 8 <= last; i += 8) queries(std::integral_constant<int, 8>(), p, i);
        if (i + 4 <= last) queries(std::integral_constant<int, 4>(), p, i), i += 4;
        if (i + 2 <= last) queries(std::integral_constant<int, 2>(), p, i), i += 2;
        if (i < last) queries(std::integral_constant<int, 1>(), p, i);
      }
      if (!filtered_) continue;
      for (std::int64_t i = first; i < last; ++i) {
        float* lower = s.lower.data() + (i - first) * stride;
        const auto compare = [&](std::int64_t p) {
          Lanes full[1];
          panel_products<1>(panels_.data() + (panel_first_[c] + p) * d_ * kPanel,
                            s.a.data() + i * d_, d_, full);
          candidates(i, p, full[0]);
        };
        // The panels in increasing order of their smallest bound while it reaches the bar (a
        // compared panel's bound becomes infinite).
        for (;;) {
          const std::int64_t p = smallest_lane(lower, stride);
          const float lb = lower[p];
          if (!(lb < std::numeric_limits<float>::infinity() && lb <= s.flim[i])) break;
          lower[p] = std::numeric_limits<float>::infinity();
          compare(p);
        }
      }
    }
  }

  // The queries at positions [begin, end) of the batch qs, all of home cell h (rows qx + q * d,
  // bound[q] as in search_within or null): home scan, then the other cells each query must visit
  // by the Voronoi and ball bounds, appended to s.visits. With a bound, a cell (the home one too)
  // whose rows all lie beyond it is not scanned.
  void scan_home(int h, std::int64_t begin, std::int64_t end, const std::vector<std::int64_t>& qs,
                 const float* qx, const double* bound, int k, Scratch& s) const {
    const std::int64_t nb = end - begin;
    s.ah.resize(static_cast<std::size_t>(nb * d_));
    s.at.clear();
    for (std::int64_t i = begin; i < end; ++i) {
      s.lists[i].reset(static_cast<std::size_t>(k + kExtra));
      s.eps[i] = 0.0;
      s.home[i] = h;
      const float* q = qx + qs[i] * d_;
      float* a = s.ah.data() + (i - begin) * d_;
      for (std::int64_t j = 0; j < d_; ++j) a[j] = q[j] - centroid(h)[j];
      const double qn = s.qn[i] = squared_norm(a, d_);
      if (!bound || within_reach(h, qn - rounding(std::sqrt(qn), 0.0), std::sqrt(bound[qs[i]]))) {
        s.at.push_back(i);
      }
    }
    scan(h, s.at, qs, qx, s);

    // Each query's radius: its own bound, or the k-th kept so far (rows beyond are not needed).
    double reach = 0.0;  // the largest ||q - c_h|| + radius in the block
    for (std::int64_t i = begin; i < end; ++i) {
      Shortlist& list = s.lists[i];
      double radius = bound ? std::sqrt(bound[qs[i]]) : std::numeric_limits<double>::infinity();
      if (list.items.size() >= static_cast<std::size_t>(k)) {
        radius = std::min(radius, std::sqrt(std::max(0.0, list.kth(k).f) + s.eps[i]));
      }
      s.radius[i] = radius;
      const double qn = s.qn[i];
      reach = std::max(reach, std::sqrt(qn + rounding(std::sqrt(qn), 0.0)) + radius);
    }
    // The cells that can hold a row within reach: a row y of cell c lies at least
    // gap_c - ||q - c_h|| - extent_c from q (triangle and ball bounds, exact gaps). Only those
    // are compared, so that a query's cost follows the cells near it, not the number of cells.
    s.near.clear();
    for (int c = 0; c < cells_; ++c) {
      if (c == h || cell_rows(c) == 0) continue;
      const double g = std::sqrt(squared_distance(centroid(c), centroid(h), d_));
      if (!(g - extent_[c] > reach * (1.0 + kBoundSlack))) s.near.emplace_back(c, g);
    }
    const std::int64_t nc = static_cast<std::int64_t>(s.near.size());
    // Float distances to those centroids, centred at c_h.
    s.shifted.resize(static_cast<std::size_t>(nc * d_));
    for (std::int64_t t = 0; t < nc; ++t) {
      const float* cc = centroid(s.near[t].first);
      for (std::int64_t j = 0; j < d_; ++j) s.shifted[t * d_ + j] = cc[j] - centroid(h)[j];
    }
    s.gc.resize(static_cast<std::size_t>(nb * nc));
    if (nc > 0) products(s.ah.data(), nb, s.shifted.data(), nc, d_, s.gc.data());
    for (std::int64_t i = begin; i < end; ++i) {
      const double qn = s.qn[i], qr = std::sqrt(qn);
      const double radius = s.radius[i];
      const double home_far = qn + rounding(qr, 0.0);  // at least ||q - c_h||^2
      for (std::int64_t t = 0; t < nc; ++t) {
        const auto [c, g] = s.near[t];
        const double near = qn + g * g - 2.0 * static_cast<double>(s.gc[(i - begin) * nc + t]) -
                            rounding(qr, g);  // at most ||q - c_c||^2
        if (!voronoi_excludes(near - home_far, g, radius) && within_reach(c, near, radius)) {
          s.visits.emplace_back(c, i);
        }
      }
    }
  }

  // The batch qs of queries (blocks of one home cell each): home scans, then each visited cell
  // scanned once for all the batch's queries that visit it (a cell near several home cells is
  // read once, not once per block), exact lists into out + q * k.
  void search_batch(const std::vector<std::int64_t>& qs, const std::vector<Block>& blocks,
                    const float* qx, const double* bound, int k, std::int64_t* out,
                    Scratch& s) const {
    const std::size_t nb = qs.size();
    s.lists.resize(nb);
    s.eps.resize(nb);
    s.radius.resize(nb);
    s.qn.resize(nb);
    s.home.resize(nb);
    s.visits.clear();
    for (const Block& b : blocks) scan_home(b.home, b.begin, b.end, qs, qx, bound, k, s);
    std::sort(s.visits.begin(), s.visits.end());
    for (std::size_t v = 0; v < s.visits.size();) {
      const int c = s.visits[v].first;
      s.at.clear();
      for (; v < s.visits.size() && s.visits[v].first == c; ++v) s.at.push_back(s.visits[v].second);
      scan(c, s.at, qs, qx, s);
    }
    // The cells each query visited, by position (finish's brute force needs them).
    s.visited_first.assign(nb + 1, 0);
    for (const auto& v : s.visits) ++s.visited_first[v.second + 1];
    std::partial_sum(s.visited_first.begin(), s.visited_first.end(), s.visited_first.begin());
    s.visited.resize(s.visits.size());
    std::vector<std::int64_t> next(s.visited_first.begin(), s.visited_first.end() - 1);
    for (const auto& v : s.visits) s.visited[next[v.second]++] = v.first;
    for (std::size_t i = 0; i < nb; ++i) {
      finish(static_cast<std::int64_t>(i), qs[i], qx, k, out, s);
      s.scanned += s.lists[i].scanned;
    }
  }

  // Exact distances for the kept candidates of the batch's query i (number q); brute force over
  // its cells when the float selection cannot be certified. Writes k rows to out + q * k,
  // ascending by (distance, row), -1 past the rows available.
  void finish(std::int64_t i, std::int64_t q, const float* qx, int k, std::int64_t* out,
              Scratch& s) const {
    const float* x = qx + q * d_;
    Shortlist& list = s.lists[i];
    s.exact.clear();
    for (const auto& it : list.items) {
      s.exact.push_back({squared_distance(x, base_ + it.row * d_, d_), it.row});
    }
    std::sort(s.exact.begin(), s.exact.end());
    const bool dropped = list.scanned > static_cast<std::int64_t>(list.items.size());
    const bool certified = !dropped || s.exact.size() < static_cast<std::size_t>(k) ||
                           s.exact[k - 1].dist < list.largest().f - 2.0 * s.eps[i];
    if (!certified) {
      s.exact.clear();
      const auto add_cell = [&](int c) {
        for (std::int64_t t = start_[c]; t < start_[c + 1]; ++t) {
          s.exact.push_back({squared_distance(x, base_ + order_[t] * d_, d_), order_[t]});
        }
      };
      add_cell(s.home[i]);
      for (std::int64_t t = s.visited_first[i]; t < s.visited_first[i + 1]; ++t)
        add_cell(s.visited[t]);
      const std::size_t kept = std::min(s.exact.size(), static_cast<std::size_t>(k));
      std::partial_sort(s.exact.begin(), s.exact.begin() + kept, s.exact.end());
    }
    std::int64_t* o = out + q * k;
    for (int j = 0; j < k; ++j) {
      o[j] = static_cast<std::size_t>(j) < s.exact.size() ? s.exact[j].idx : -1;
    }
  }

  // The nq queries at qx with their home cells: grouped by home in blocks of at most
  // kQueryBlock, the blocks of consecutive home cells in batches of about kBatchQueries, one
  // batch per task. Returns the number of rows compared, all queries together.
  std::int64_t search_homes(const float* qx, const int* home, const double* bound, std::int64_t nq,
                            int k, std::int64_t* out) const {
    std::vector<std::vector<std::int64_t>> by_home(static_cast<std::size_t>(cells_));
    for (std::int64_t q = 0; q < nq; ++q) by_home[home[q]].push_back(q);
    struct Batch {
      std::vector<std::int64_t> qs;
      std::vector<Block> blocks;
    };
    std::vector<Batch> batches(1);
    for (int h = 0; h < cells_; ++h) {
      const auto& mine = by_home[h];
      for (std::size_t b = 0; b < mine.size(); b += kQueryBlock) {
        if (static_cast<std::int64_t>(batches.back().qs.size()) >= kBatchQueries)
          batches.emplace_back();
        Batch& batch = batches.back();
        const std::int64_t begin = static_cast<std::int64_t>(batch.qs.size());
        batch.qs.insert(batch.qs.end(), mine.begin() + b,
                        mine.begin() + std::min(mine.size(), b + kQueryBlock));
        batch.blocks.push_back({h, begin, static_cast<std::int64_t>(batch.qs.size())});
      }
      std::vector<std::int64_t>().swap(by_home[h]);
    }
    std::int64_t scanned = 0;
#pragma omp parallel num_threads(threads_) reduction(+ : scanned)
    {
      Scratch s;
#pragma omp for schedule(dynamic, 1)
      for (std::size_t b = 0; b < batches.size(); ++b) {
        search_batch(batches[b].qs, batches[b].blocks, qx, bound, k, out, s);
      }
      scanned += s.scanned;
    }
    return scanned;
  }

  std::int64_t rows_;
  int threads_;
  int cells_ = 1;
  std::vector<float> centroids_;     // cells x d
  std::vector<int> home_;            // cell of each row
  std::vector<std::int64_t> start_;  // first position of each cell in order_ (cells + 1)
  std::vector<std::int64_t> order_;  // rows by (cell, row)
  std::vector<std::int64_t> panel_first_;  // first panel of each cell (cells + 1)
  std::vector<float> panels_;        // per panel, d x kPanel: rows order_[t] minus their centroid
  std::vector<float> panel_norm2_;   // squared norms of the centred rows, by panel (padding: inf)
  std::vector<double> reach_;        // largest centred norm of each cell
  std::vector<double> extent_;       // largest distance from c_c to a row of cell c
  bool filtered_ = false;            // make_filter: lower bounds before the products
  std::vector<double> basis_;        // per cell, kFilterDims x d: its principal directions
  std::vector<float> filter_panels_;  // per panel, kFilterDims x kPanel: V_c y of its rows
  std::vector<float> filter_norm2_;   // ||V_c y||^2, by panel (padding: inf)
  std::vector<float> residual_;       // ||y - V_c^T V_c y||, by panel
};

}  // namespace

std::unique_ptr<CountingEngine> make_voronoi_engine(const AnnParams& p, const float* base,
                                                    std::int64_t rows, std::int64_t d) {
  return std::make_unique<VoronoiEngine>(p, base, rows, d);
}

}  // namespace lsgl::ann
