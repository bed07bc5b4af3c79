#pragma once
// Private to src/ann: the partition route's machinery (partition_route.cpp), shared by the plain
// search (partition_candidates) and the projected search (projected.cpp).
//
// The rows are regrouped into k-means cells packed onto ranks by locality (cells.hpp); each rank
// indexes the rows it then holds (its "held" rows). A search of k neighbours for some held rows
// searches each against its own rank's index, then sends it to the ranks whose cells can still
// hold one of its k nearest (the Voronoi bound against its k-th distance so far), and merges
// what comes back. With an exact engine the lists are exact, so they do not depend on the
// number of ranks.
//
// For the projected search the index rows are the projected rows and every held row also keeps
// its row in the full space: once a query's list is complete, the exact squared distance of each
// neighbour is computed by the rank that holds it (refine).
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "cells.hpp"
#include "engines.hpp"

namespace lsgl::ann {

// Rank 0's progress of the searches of a PartitionSearch (the other ranks give null_monitor()):
// own queries out of `own_total`, and the queries that arrive from other ranks.
struct SearchProgress {
  Progress own, remote;
  SearchProgress(Monitor& monitor, std::int64_t own_total)
      : own(monitor, own_total, "own queries searched"),
        remote(monitor, 0, "queries from other ranks searched") {}
};

// Bytes in `send` addressed to ranks other than `self`.
template <class T>
std::int64_t remote_bytes(const std::vector<std::vector<T>>& send, int self) {
  std::int64_t b = 0;
  for (std::size_t r = 0; r < send.size(); ++r) {
    if (static_cast<int>(r) != self) b += static_cast<std::int64_t>(send[r].size() * sizeof(T));
  }
  return b;
}

// Collective. The answers to routed queries back to their ranks: `found` (and `found_where`,
// when `where` is not null) hold k entries per query received, grouped by asking rank in rank
// order (in_count[r] from rank r), of which the first (*count)[a] answer query a (count null:
// all k; null on every rank or on none); each answer is merged into the list (lists + i k,
// where + i k) of the query i of slice[r] that asked it.
void return_answers(MPI_Comm comm, const std::vector<std::int64_t>& in_count,
                    const std::vector<Neighbor>& found,
                    const std::vector<std::int64_t>& found_where, int k,
                    const std::vector<std::int64_t>* count,
                    const std::vector<std::vector<std::int64_t>>& slice, Neighbor* lists,
                    std::int64_t* where, std::int64_t& sent);

class PartitionSearch {
 public:
  // Collective. The k-means cells of `data` (the index rows) and the regrouping of its rows,
  // with their rows of `full` (null: none; else the same rows in the full space). With one rank
  // nothing moves and the rows are not copied. Sets report.cells and seconds_cells.
  PartitionSearch(MPI_Comm comm, const LocalRows& data, const LocalRows* full,
                  const AnnParams& p, SearchReport& report);
  // Collective. The same with the cells given (assign_global_cells for the projected search),
  // the rows regrouped even on one rank (held in cell order: probe reads them by cell).
  PartitionSearch(MPI_Comm comm, const LocalRows& data, const LocalRows* full,
                  CellAssignment cells, const AnnParams& p, SearchReport& report);
  PartitionSearch(const PartitionSearch&) = delete;
  PartitionSearch& operator=(const PartitionSearch&) = delete;

  // Collective. The engine over the held rows for searches of about m neighbours (p.engine;
  // "auto" resolved by build_engine). Sets report.engine and seconds_index.
  void build(int m);

  // Collective. k neighbours of the held rows `rows` (positions among the held rows; every rank
  // passes its own, possibly none): lists gets rows.size() x k neighbours sorted by (index-space
  // distance, global index), exact (with full rows; may be null otherwise) their exact squared
  // distances (refine). Counts the ranks each query visited into the report.
  void search(const std::vector<std::int64_t>& rows, int k, std::vector<Neighbor>& lists,
              std::vector<double>* exact, SearchProgress* progress);

  // Collective. The projected search's shortlists: for each held row rows[i], the k nearest by
  // (index-space distance, global index) among the rows of its `probes` nearest cells (by
  // squared_distance to the centroids, ties by cell; its own cell first), in lists (rows.size()
  // x k, padded with kNoNeighbor), their full-space distances in exact (refine), and in
  // outside[i] a lower bound of the index-space distance (not squared) from row i to every row
  // of the other cells: (a_{probes+1} - a_1) / 2 with a_j its j-th smallest distance to a
  // centroid (a row y of cell j lies beyond the bisector of c_j and the query's nearest centroid
  // c, at least (a_j^2 - a_1^2) / (2 ||c - c_j||) >= (a_j - a_1) / 2 away); +inf when every cell
  // is probed. Each rank scans the rows it holds of the probed cells; the rank holding row i
  // scans first, and sends the other ranks its k-th distance so far as a bound: they answer
  // only with rows at most that far (none farther can enter the k nearest; ties by index stay).
  void probe(const std::vector<std::int64_t>& rows, int k, int probes,
             std::vector<Neighbor>& lists, std::vector<double>& exact,
             std::vector<double>& outside, SearchProgress* progress);

  // Collective. exact[i * k + j]: the full-space squared distance between held row rows[i] and
  // its neighbour j, held at where[i * k + j] (where_of; -1: none, exact +inf). Computed by the
  // rank holding the neighbour, where the query's full row is sent once, in rounds of about
  // p.round_bytes; each rank computes its pairs a tile of queries at a time in the order of the
  // rows they meet, so that a row is loaded once per tile.
  void refine(const std::vector<std::int64_t>& rows, int k, const std::vector<std::int64_t>& where,
              std::vector<double>& exact);

  // Local. Rows held here, and the held row `at` (index and full space) and its global index.
  std::int64_t held() const { return held_; }
  const float* full_row(std::int64_t at) const { return block_.full_row(at); }
  std::int64_t id(std::int64_t at) const { return block_.id(at); }
  // Local. Rows that probe's scans for other ranks' queries skipped as beyond the bound the
  // query's rank sent (0 on one rank), summed over the searches so far.
  std::int64_t beyond_bound() const { return beyond_; }

  // Collective. Frees the index and the held rows, sends `lists` (held rows x m, ascending by
  // (dist, idx)) to the ranks whose input blocks own the rows, and fills the report (visits,
  // rows per rank, bytes sent). The input block's values are not read (they may be freed).
  Candidates finish(std::vector<Neighbor> lists, int m);

 private:
  // Local. The fields both constructors set (the int only tells this one apart).
  PartitionSearch(MPI_Comm comm, const LocalRows& data, const LocalRows* full, const AnnParams& p,
                  SearchReport& report, int);
  // Per-thread buffers of scan_cells, and its count of rows beyond the bound it was given.
  struct ScanScratch {
    std::vector<Neighbor> found;
    std::vector<std::int64_t> found_where;
    std::vector<std::pair<Neighbor, std::int64_t>> merge;
    std::int64_t beyond = 0;
  };
  // Local. The held rows of the n cells `probed`: the k nearest to q by (projected_distance,
  // global index) among those at most `bound` away, the row with global index `self` left out,
  // into s.found (ascending, global indices; at most k) and s.found_where (where_of).
  void scan_cells(const float* q, const int* probed, int n, std::int64_t self, int k,
                  double bound, ScanScratch& s) const;
  // Collective. probe's queries (rows; their probed cells: probes per query in `cells`) to the
  // other ranks holding their cells (to[r]: the queries for rank r), in rounds of about
  // p.round_bytes: the query row, its probed cells there and its k-th distance so far in lists
  // go out, the k nearest of those rows within that distance (with where they are held) come
  // back and are merged into lists / where_.
  void probe_remote(const std::vector<std::int64_t>& rows, int k, int probes,
                    const std::vector<int>& cells,
                    const std::vector<std::vector<std::int64_t>>& to,
                    std::vector<Neighbor>& lists, SearchProgress* progress);
  // Collective. Regroups the rows into `cells` (block_; with `by_cell`, each cell's rows
  // contiguous, from cell_lo_ to cell_hi_, as probe needs).
  void hold(const LocalRows& data, const LocalRows* full, CellAssignment cells, bool by_cell);

  MPI_Comm comm_;
  AnnParams p_;
  SearchReport& report_;
  int size_, self_;
  CellAssignment cells_;
  std::vector<float> x_, full_;        // the held rows (empty with one rank: the input is used)
  std::vector<std::int64_t> ids_;      // their global indices (empty when not regrouped)
  std::vector<int> cell_;              // their cells
  std::vector<std::int64_t> cell_lo_, cell_hi_;  // probe: the held rows of each cell
  std::int64_t held_ = 0;
  std::int64_t input_begin_ = 0, input_rows_ = 0;  // this rank's input block
  RowBlock block_;
  std::unique_ptr<Engine> engine_;
  std::vector<std::int64_t> where_;    // where each neighbour of a search is held (kept between
                                       // searches: a batch's lists reuse its pages)
  std::int64_t sent_ = 0;
  std::int64_t beyond_ = 0;
  std::int64_t visits_[3] = {0, 0, 0};
};

}  // namespace lsgl::ann
