#pragma once
// Private to src/ann: the neighbour record shared by both routes and the recall check, the tiny
// interface behind which each search engine (exact, voronoi, FLANN, hnswlib) sits, the choice
// of `--ann auto`, and the block search that turns engine proposals into exact, ordered lists.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <utility>
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
  // An order of the indexed rows in which own queries share the engine's work when searched
  // together (rows of one cell next to each other), or null (row order). search_block searches
  // own queries in this order, a chunk at a time, with search_own_rows.
  virtual const std::vector<std::int64_t>* own_order() const { return nullptr; }
  // search_own for the indexed rows rows[0], ..., rows[nq - 1].
  virtual void search_own_rows(const std::int64_t* rows, std::int64_t nq, int k,
                               std::int64_t* out) const {
    std::vector<float> x(static_cast<std::size_t>(nq * d_));
    for (std::int64_t i = 0; i < nq; ++i)
      std::copy(base_ + rows[i] * d_, base_ + (rows[i] + 1) * d_, x.data() + i * d_);
    search(x.data(), nq, k, out);
  }

 protected:
  const float* base_;
  std::int64_t d_;
};

// An engine that can tell the cost of a search: the voronoi engine, which `--ann auto` probes.
class CountingEngine : public Engine {
 public:
  using Engine::Engine;
  // Local. search, with out ascending by (distance, row); returns the rows compared with the
  // queries, all together (the search's cost in row distances).
  virtual std::int64_t search_counted(const float* queries, std::int64_t nq, int k,
                                      std::int64_t* out) const = 0;
};

// Index the block of `rows` (> 0) x `d` floats at `base`; for hnsw, `m` is the number of
// neighbours that will be wanted (the search list is at least m + 1 long) and `own_ef` the
// search list of search_own when it should be longer than that of search (0: the same).
std::unique_ptr<Engine> make_exact_engine(const AnnParams& p, const float* base, std::int64_t rows,
                                          std::int64_t d);
std::unique_ptr<Engine> make_flann_engine(const AnnParams& p, const float* base, std::int64_t rows,
                                          std::int64_t d);
std::unique_ptr<CountingEngine> make_voronoi_engine(const AnnParams& p, const float* base,
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

// Brute force: the k local rows nearest to q by (squared_distance, row), row `exclude` left out
// (-1: none); writes k row numbers to out, -1 past the rows available. `scratch` is reused.
void exact_knn(const float* q, const float* base, std::int64_t rows, std::int64_t d, int k,
               std::int64_t exclude, std::vector<Neighbor>& scratch, std::int64_t* out);

// Collective. Every rank's rows among the sorted global indices `all_ids` (the same on every
// rank), on every rank in global order; `ids` gets their indices (those of all_ids below n).
std::vector<float> gather_rows(MPI_Comm comm, const LocalRows& data,
                               const std::vector<std::int64_t>& all_ids,
                               std::vector<std::int64_t>& ids);

// Collective. The exact m nearest rows (self excluded) of each row `ids` (their rows `q`, the
// same on every rank), on every rank: ids.size() x m, ascending by (squared_distance, index),
// padded with kNoNeighbor. Candidates are ranked by single-precision products, 2m kept per rank
// and recomputed with squared_distance. `threads`: OpenBLAS and OpenMP threads.
std::vector<Neighbor> exact_neighbours(MPI_Comm comm, const LocalRows& data,
                                       const std::vector<std::int64_t>& ids,
                                       const std::vector<float>& q, int m, int threads);

// Local. Lists of m for the rows begin, begin + 1, ... as Candidates (without a report).
Candidates to_candidates(std::int64_t begin, int m, const std::vector<Neighbor>& lists);

// Collective. Each rank's lists of m (ascending by (dist, idx), the same number of lists on
// every rank) replaced by the best m of all ranks' lists at the same position.
void allreduce_lists(MPI_Comm comm, std::vector<Neighbor>& lists, int m);

// The rows an engine indexes and their global indices (ids[l], or begin + l when ids is null),
// held by rank `rank`; for the projected search also the same rows in the full space (full,
// full_d), from which exact distances are computed (PartitionSearch::refine).
struct RowBlock {
  const float* x = nullptr;
  std::int64_t rows = 0, d = 0;
  const std::int64_t* ids = nullptr;
  std::int64_t begin = 0;
  const float* full = nullptr;
  std::int64_t full_d = 0;
  int rank = 0;
  std::int64_t id(std::int64_t l) const { return ids ? ids[l] : begin + l; }
  const float* row(std::int64_t l) const { return x + l * d; }
  const float* full_row(std::int64_t l) const { return full + l * full_d; }
};

// Where a neighbour's row is held: its rank and its position among that rank's rows, in one word.
inline std::int64_t where_of(int rank, std::int64_t pos) {
  return (static_cast<std::int64_t>(rank) << 40) | pos;
}
inline int where_rank(std::int64_t w) { return static_cast<int>(w >> 40); }
inline std::int64_t where_pos(std::int64_t w) { return w & ((std::int64_t{1} << 40) - 1); }

// Counts the queries of a long search and reports them to `monitor` as progress of the
// candidates phase ("[candidates] 40% of <what> (12 s)" on the command line). Local: rank 0
// reports, the other ranks give null_monitor().
class Progress {
 public:
  Progress(Monitor& monitor, std::int64_t total, const char* what);
  void add(std::int64_t done);
  // More to do than the total said (work that arrives in rounds).
  void extend(std::int64_t more) { total_ += more; }

 private:
  Monitor& monitor_;
  double start_;
  std::int64_t total_, done_ = 0;
  const char* what_;
};

// Every rank: an information line to `monitor` when a stage of the search starts,
// "[candidates] <what>".
void stage_line(Monitor& monitor, const char* what);

// The queries of one search_block call: `rows` rows at x (the block's d values each), and
// - own_first >= 0: they are the block's rows own_first, own_first + 1, ... (the engine's
//   search_own), each left out of its own list;
// - exclude (may be null): per query a global index left out of its list (a row of the block
//   searched as an ordinary query);
// - bound (may be null; not with own_first): the m-th distance each query has so far
//   (Engine::search_within).
struct Queries {
  const float* x = nullptr;
  std::int64_t rows = 0;
  std::int64_t own_first = -1;
  const std::int64_t* exclude = nullptr;
  const double* bound = nullptr;
};

// Local. Searches the queries against `engine` over `block` and merges the best m per query
// into `lists` (rows x m, sorted by (dist, idx), padded with kNoNeighbor), and where each kept
// neighbour is held into `where` (rows x m, aligned with lists, where_of(block.rank, row); may
// be null). Every distance kept is recomputed with squared_distance; a query for which the
// engine finds fewer than it should is searched by brute force. `progress` (may be null) counts
// the queries.
void search_block(const Engine& engine, const RowBlock& block, const Queries& q, int m,
                  int threads, Neighbor* lists, std::int64_t* where, Progress* progress);

// Local. Merges the sorted `add` (n entries, held at add_where) into the sorted list of m
// entries at `list` (held at `where`; both where pointers null when not tracked), keeping the
// best m. `scratch` is reused.
void merge_into(Neighbor* list, std::int64_t* where, int m, const Neighbor* add,
                const std::int64_t* add_where, std::int64_t n,
                std::vector<std::pair<Neighbor, std::int64_t>>& scratch);

}  // namespace lsgl::ann
