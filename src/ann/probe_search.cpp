// PartitionSearch::probe: the projected search's shortlists over its global cells
// (partition_search.hpp). A query's probe list is its `probes` nearest cells; every rank that
// holds rows of one of them scans those rows (projected_distance in the index space) and
// answers with its k nearest by (distance, global index); the answers are merged. The same rows
// are compared whatever the ranks, so the shortlists do not depend on the number of ranks.
// Work per query: the probed cells' rows (about probes x the rows per cell) and one distance per
// centroid. The rank holding the query scans first; the others keep only rows within its k-th
// distance so far, so that a visit elsewhere does not build a list of k from nothing.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "lsgl/util/error.hpp"
#include "partition_search.hpp"
#include "projection.hpp"

namespace lsgl::ann {
namespace {

// Local. The `probes` nearest cells of query q (ties: lowest cell) into `out`, nearest first;
// returns the bound on the other cells' rows (see PartitionSearch::probe).
double probe_cells(const CellLayout& lay, const float* q, int probes,
                   std::vector<std::pair<double, int>>& scratch, int* out) {
  scratch.resize(static_cast<std::size_t>(lay.cells));
  for (int c = 0; c < lay.cells; ++c) {
    scratch[c] = {squared_distance(q, lay.centroids.data() + c * lay.d, lay.d), c};
  }
  const int kept = std::min(probes + 1, lay.cells);
  std::partial_sort(scratch.begin(), scratch.begin() + kept, scratch.end());
  for (int t = 0; t < probes; ++t) out[t] = scratch[t].second;
  if (probes >= lay.cells) return std::numeric_limits<double>::infinity();
  // (a_{probes+1} - a_1) / 2, less a relative 1e-12 for the rounding of the two distances.
  const double near = std::sqrt(scratch[0].first), far = std::sqrt(scratch[probes].first);
  return std::max(0.0, 0.5 * (far - near) * (1.0 - 1e-12) - 1e-12 * near);
}

}  // namespace

void PartitionSearch::scan_cells(const float* q, const int* probed, int n, std::int64_t self,
                                 int k, double bound, ScanScratch& s) const {
  const auto by_id = [&](const Neighbor& a, const Neighbor& b) {
    return a.dist < b.dist || (a.dist == b.dist && ids_[a.idx] < ids_[b.idx]);
  };
  // Candidates at most the k-th smallest so far, cut back to k whenever 2k are kept.
  std::vector<Neighbor>& found = s.found;
  found.clear();
  const double given = bound;
  for (int t = 0; t < n; ++t) {
    const int c = probed[t];
    for (std::int64_t at = cell_lo_[c]; at < cell_hi_[c]; ++at) {
      const double dist = projected_distance(q, block_.row(at), block_.d);
      if (dist > bound) {
        s.beyond += dist > given;
        continue;
      }
      if (ids_[at] == self) continue;
      found.push_back({dist, at});
      if (found.size() == 2 * static_cast<std::size_t>(k)) {
        std::nth_element(found.begin(), found.begin() + (k - 1), found.end(), by_id);
        found.resize(static_cast<std::size_t>(k));
        bound = found.back().dist;
      }
    }
  }
  if (found.size() > static_cast<std::size_t>(k)) {
    std::nth_element(found.begin(), found.begin() + (k - 1), found.end(), by_id);
    found.resize(static_cast<std::size_t>(k));
  }
  std::sort(found.begin(), found.end(), by_id);
  s.found_where.clear();
  for (Neighbor& nb : found) {
    s.found_where.push_back(where_of(self_, nb.idx));
    nb.idx = ids_[nb.idx];
  }
}

void PartitionSearch::probe_remote(const std::vector<std::int64_t>& rows, int k, int probes,
                                   const std::vector<int>& cells,
                                   const std::vector<std::vector<std::int64_t>>& to,
                                   std::vector<Neighbor>& lists, SearchProgress* progress) {
  const CellLayout& lay = cells_.layout;
  const std::int64_t w = block_.d;
  const std::int64_t query_bytes = w * static_cast<std::int64_t>(sizeof(float)) +
                                   (probes + 2) * static_cast<std::int64_t>(sizeof(std::int64_t)) +
                                   3 * k * static_cast<std::int64_t>(sizeof(Neighbor) + 8);
  const std::int64_t per_round =
      std::max<std::int64_t>(1, p_.round_bytes / (std::max(size_ - 1, 1) * query_bytes));
  std::int64_t most = 0;
  for (const auto& t : to) most = std::max(most, static_cast<std::int64_t>(t.size()));
  const std::int64_t rounds = allreduce_max(comm_, (most + per_round - 1) / per_round);
  if (progress) {
    std::vector<std::int64_t> out_count(size_), in_count(size_);
    for (int r = 0; r < size_; ++r) out_count[r] = static_cast<std::int64_t>(to[r].size());
    MPI_Alltoall(out_count.data(), 1, MPI_INT64_T, in_count.data(), 1, MPI_INT64_T, comm_);
    for (std::int64_t c : in_count) progress->remote.extend(c);
  }
  for (std::int64_t round = 0; round < rounds; ++round) {
    std::vector<std::vector<float>> sq(size_);
    std::vector<std::vector<std::int64_t>> shead(size_), scell(size_);  // (self id, count), cells
    std::vector<std::vector<double>> sbound(size_);  // the k-th distance in the list so far
    std::vector<std::vector<std::int64_t>> slice(size_);
    for (int r = 0; r < size_; ++r) {
      const std::int64_t have = static_cast<std::int64_t>(to[r].size());
      const std::int64_t lo = std::min(have, round * per_round);
      const std::int64_t hi = std::min(have, lo + per_round);
      slice[r].assign(to[r].begin() + lo, to[r].begin() + hi);
      for (std::int64_t i : slice[r]) {
        sq[r].insert(sq[r].end(), block_.row(rows[i]), block_.row(rows[i]) + w);
        std::int64_t count = 0;
        for (int t = 0; t < probes; ++t) {
          const int c = cells[i * probes + t];
          if (lay.first_rank[c] <= r && r <= lay.last_rank[c]) scell[r].push_back(c), ++count;
        }
        shead[r].push_back(ids_[rows[i]]);
        shead[r].push_back(count);
        sbound[r].push_back(lists[i * k + k - 1].dist);
      }
    }
    sent_ += remote_bytes(sq, self_) + remote_bytes(shead, self_) + remote_bytes(scell, self_) +
             remote_bytes(sbound, self_);
    const std::vector<float> in_q = alltoallv(comm_, sq);
    sq = {};
    const std::vector<std::int64_t> in_head = alltoallv(comm_, shead);
    const std::vector<std::int64_t> in_cell = alltoallv(comm_, scell);
    const std::vector<double> in_bound = alltoallv(comm_, sbound);
    const std::int64_t in_n = static_cast<std::int64_t>(in_head.size()) / 2;
    std::vector<std::int64_t> first(static_cast<std::size_t>(in_n) + 1, 0);
    for (std::int64_t a = 0; a < in_n; ++a) first[a + 1] = first[a] + in_head[2 * a + 1];
    // Query a's answer: found_count[a] entries at found + a k.
    std::vector<Neighbor> found(static_cast<std::size_t>(in_n * k));
    std::vector<std::int64_t> found_where(found.size()), found_count(in_n);
    std::int64_t beyond = 0;
#pragma omp parallel num_threads(p_.threads) reduction(+ : beyond)
    {
      std::vector<int> probed;
      ScanScratch scratch;
#pragma omp for schedule(dynamic, 64)
      for (std::int64_t a = 0; a < in_n; ++a) {
        probed.assign(in_cell.begin() + first[a], in_cell.begin() + first[a + 1]);
        scan_cells(in_q.data() + a * w, probed.data(), static_cast<int>(probed.size()),
                   in_head[2 * a], k, in_bound[a], scratch);
        found_count[a] = static_cast<std::int64_t>(scratch.found.size());
        std::copy(scratch.found.begin(), scratch.found.end(), found.begin() + a * k);
        std::copy(scratch.found_where.begin(), scratch.found_where.end(),
                  found_where.begin() + a * k);
      }
      beyond += scratch.beyond;
    }
    beyond_ += beyond;
    if (progress) progress->remote.add(in_n);
    // Back to the askers (the queries arrived grouped by source rank, in rank order).
    std::vector<std::int64_t> out_count(size_), in_count(size_);
    for (int r = 0; r < size_; ++r) out_count[r] = static_cast<std::int64_t>(slice[r].size());
    MPI_Alltoall(out_count.data(), 1, MPI_INT64_T, in_count.data(), 1, MPI_INT64_T, comm_);
    return_answers(comm_, in_count, found, found_where, k, &found_count, slice, lists.data(),
                   where_.data(), sent_);
  }
}

void PartitionSearch::probe(const std::vector<std::int64_t>& rows, int k, int probes,
                            std::vector<Neighbor>& lists, std::vector<double>& exact,
                            std::vector<double>& outside, SearchProgress* progress) {
  const CellLayout& lay = cells_.layout;
  const std::int64_t nq = static_cast<std::int64_t>(rows.size());
  probes = std::min(probes, lay.cells);
  std::vector<int> cells(static_cast<std::size_t>(nq * probes));
  outside.assign(static_cast<std::size_t>(nq), 0.0);
  lists.assign(static_cast<std::size_t>(nq * k), kNoNeighbor);
  where_.assign(lists.size(), -1);

  // Probe lists, the bound on the other cells, and the scan of the probed cells held here.
  std::vector<std::vector<std::int64_t>> to(size_);  // rank -> queries with cells there
#pragma omp parallel num_threads(p_.threads)
  {
    std::vector<std::pair<double, int>> order;
    std::vector<int> here;
    ScanScratch scratch;
#pragma omp for schedule(dynamic, 64)
    for (std::int64_t i = 0; i < nq; ++i) {
      const float* q = block_.row(rows[i]);
      int* probed = cells.data() + i * probes;
      outside[i] = probe_cells(lay, q, probes, order, probed);
      here.clear();
      for (int t = 0; t < probes; ++t) {
        if (lay.first_rank[probed[t]] <= self_ && self_ <= lay.last_rank[probed[t]]) {
          here.push_back(probed[t]);
        }
      }
      scan_cells(q, here.data(), static_cast<int>(here.size()), ids_[rows[i]], k,
                 std::numeric_limits<double>::infinity(), scratch);
      merge_into(lists.data() + i * k, where_.data() + i * k, k, scratch.found.data(),
                 scratch.found_where.data(), static_cast<std::int64_t>(scratch.found.size()),
                 scratch.merge);
    }
  }
  if (progress) progress->own.add(nq);
  for (std::int64_t i = 0; i < nq; ++i) {
    std::vector<char> mark(static_cast<std::size_t>(size_), 0);
    for (int t = 0; t < probes; ++t) {
      const int c = cells[i * probes + t];
      for (int r = lay.first_rank[c]; r <= lay.last_rank[c]; ++r) mark[r] = 1;
    }
    mark[self_] = 0;
    int visited = 1;
    for (int r = 0; r < size_; ++r) {
      if (mark[r]) to[r].push_back(i), ++visited;
    }
    ++visits_[std::min(visited, 3) - 1];
  }

  probe_remote(rows, k, probes, cells, to, lists, progress);
  refine(rows, k, where_, exact);
}

}  // namespace lsgl::ann
