#pragma once
// Private to src/ann: the neighbour record shared by both routes and the recall check, the tiny
// interface behind which each search engine (exact, voronoi, FLANN, hnswlib) sits, the choice
// of `--ann auto`, and the block search that turns engine proposals into exact, ordered lists.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "lsgl/ann/candidates.hpp"

namespace lsgl::ann {

// One neighbour: squared distance and global index, ordered by (dist, idx).
struct Neighbor {
  double dist;
  std::int64_t idx;
};
inline bool operator<(const Neighbor& a, const Neighbor& b) {
  return a.dist < b.dist || (a.dist == b.dist && a.idx < b.idx);
}
// The padding of a list that holds fewer than m neighbours.
inline constexpr Neighbor kNoNeighbor{std::numeric_limits<double>::infinity(), -1};

// An index over a block of rows (the caller keeps the rows alive while the engine exists).
class Engine {
 public:
  Engine(const float* base, std::int64_t d) : base_(base), d_(d) {}
  virtual ~Engine() = default;
  // For each of the nq queries (row-major, same d as the block), up to k (<= block rows) local
  // row numbers of near neighbours, in any order, -1 where fewer were found: out[q * k + j].
  virtual void search(const float* queries, std::int64_t nq, int k, std::int64_t* out) const = 0;
  // The same where query q needs only the rows within squared distance bound[q] (its m-th
  // distance so far): an engine may skip farther rows, but returns k rows whenever it can,
  // unless exact_within().
  virtual void search_within(const float* queries, std::int64_t nq, int k, const double*,
                             std::int64_t* out) const {
    search(queries, nq, k, out);
  }
  // True when search_within returns exactly those of the k nearest rows (by distance, then
  // row) that lie within bound[q]: fewer than k rows is then a result, not a shortfall.
  virtual bool exact_within() const { return false; }
  // The same for the indexed rows first, ..., first + nq - 1 themselves (an engine may start
  // from the row's own place in its index).
  virtual void search_own(std::int64_t first, std::int64_t nq, int k, std::int64_t* out) const {
    search(base_ + first * d_, nq, k, out);
  }

 protected:
  const float* base_;
  std::int64_t d_;
};

// Index the block of `rows` (> 0) x `d` floats at `base`; for hnsw, `m` is the number of
// neighbours that will be wanted (the search list is at least m + 1 long) and `own_ef` the
// search list of search_own when it should be longer than that of search (0: the same).
std::unique_ptr<Engine> make_exact_engine(const AnnParams& p, const float* base, std::int64_t rows,
                                          std::int64_t d);
std::unique_ptr<Engine> make_flann_engine(const AnnParams& p, const float* base, std::int64_t rows,
                                          std::int64_t d);
std::unique_ptr<Engine> make_voronoi_engine(const AnnParams& p, const float* base,
                                            std::int64_t rows, std::int64_t d);
std::unique_ptr<Engine> make_hnsw_engine(const AnnParams& p, const float* base, std::int64_t rows,
                                         std::int64_t d, int m, int own_ef);
// The engine named by p.engine (not "auto") over `rows` (> 0) rows at `base`.
std::unique_ptr<Engine> make_engine(const AnnParams& p, const float* base, std::int64_t rows,
                                    std::int64_t d, int m, int own_ef = 0);
// Local. For the block's rows `sampled` and the squared distance from each to its m-th nearest
// row in the block, the number of other ranks' indexes the route would search for them, all
// rows together.
using ExtraRanks = std::function<std::int64_t(const std::vector<std::int64_t>& sampled,
                                              const std::vector<double>& radius2)>;
// Collective. Each rank's engine over its `rows` (>= 0; none where 0) rows at `base`, as
// make_engine; p.engine "auto" is resolved the same on every rank (engine_choice.cpp), with
// `extra_ranks` telling how many other indexes a query visits. Sets report.engine and, for
// "auto", report.auto_rows_per_query and auto_rows_limit.
std::unique_ptr<Engine> build_engine(MPI_Comm comm, const AnnParams& p, const float* base,
                                     std::int64_t rows, std::int64_t d, int m, int own_ef,
                                     const ExtraRanks& extra_ranks, SearchReport& report);
// Local. The voronoi engine's search (out: nq * k local rows, ascending by (distance, row));
// returns the rows it compared with the queries, all together (its cost in row distances).
std::int64_t voronoi_rows_compared(const Engine& voronoi, const float* queries, std::int64_t nq,
                                   int k, std::int64_t* out);

// Brute force: the k local rows nearest to q by (squared_distance, row), row `exclude` left out
// (-1: none); writes k row numbers to out, -1 past the rows available. `scratch` is reused.
void exact_knn(const float* q, const float* base, std::int64_t rows, std::int64_t d, int k,
               std::int64_t exclude, std::vector<Neighbor>& scratch, std::int64_t* out);

// The rows an engine indexes and their global indices (ids[l], or begin + l when ids is null).
struct RowBlock {
  const float* x = nullptr;
  std::int64_t rows = 0, d = 0;
  const std::int64_t* ids = nullptr;
  std::int64_t begin = 0;
  std::int64_t id(std::int64_t l) const { return ids ? ids[l] : begin + l; }
  const float* row(std::int64_t l) const { return x + l * d; }
};

// Counts the queries of a long search and reports them to `monitor` as progress of the
// candidates phase ("[candidates] 40% of <what> (12 s)" on the command line). Local: rank 0
// reports, the other ranks give null_monitor().
class Progress {
 public:
  Progress(Monitor& monitor, std::int64_t total, const char* what);
  void add(std::int64_t done);

 private:
  Monitor& monitor_;
  double start_;
  std::int64_t total_, done_ = 0;
  const char* what_;
};

// Local. Searches qrows queries (rows `qx`) against `engine` over `block` and merges the best m
// per query into `lists` (qrows x m, sorted by (dist, idx), padded with kNoNeighbor). With `own`
// the queries are the block's own rows (query q is row q) and each is left out of its own list.
// Every distance kept is recomputed with squared_distance; a query for which the engine finds
// fewer than it should is searched by brute force. `bound` (may be null; not with `own`): the
// m-th distance each query has so far (search_within). `progress` (may be null) counts the
// queries.
void search_block(const Engine& engine, const RowBlock& block, const float* qx, std::int64_t qrows,
                  bool own, int m, int threads, Neighbor* lists, Progress* progress,
                  const double* bound = nullptr);

}  // namespace lsgl::ann
