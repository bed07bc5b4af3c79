// Candidate neighbours by a locality partition (cells.hpp).
//
// 1. Rows move to the rank that holds their position in the cell sequence (one all-to-all of
//    rows, global indices and cells); each rank indexes the rows it now holds.
// 2. Every row is searched against its own rank's index: the best m there give a radius, the
//    m-th distance.
// 3. Routing with a certificate: a row of cell j lies at least (||x - c_j||^2 - ||x - c_i||^2) /
//    (2 ||c_i - c_j||) from a query x of cell i; a rank is searched only when one of its cells
//    has that bound within the radius. The radius only shrinks as more ranks are searched, so the
//    rows never searched cannot enter the m nearest: with the exact engine the lists are exact.
// 4. Queries go to those ranks and their best m come back (all-to-alls); the merged lists go home
//    to the input block that owns each row.
// Work per query: one index search plus one per extra rank; memory per rank: the input block,
// the regrouped rows and index, O(rows * (d + m)), and the routed queries of one round with
// their lists, about AnnParams::round_bytes sent and as much received. The index and the
// regrouped rows are freed before the lists go home.
#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "bounds.hpp"
#include "cells.hpp"
#include "engines.hpp"
#include "lsgl/util/error.hpp"
#include "routes.hpp"

namespace lsgl::ann {
namespace {

// hnsw: the own search returns most of a row's m neighbours from one index (where the ring
// gathers them from p searches), so its search list is at least this many times m long.
// Measured on Fashion-MNIST (m = 30, 784 dimensions): recall 0.990 with 40, 0.996 with 60.
constexpr int kOwnEfPerNeighbor = 2;

// The rows a rank holds after the regrouping, with their global indices and cells.
struct Regrouped {
  std::vector<float> x;
  std::vector<std::int64_t> ids;
  std::vector<int> cell;
  std::int64_t rows() const { return static_cast<std::int64_t>(ids.size()); }
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

// Collective. Each local row to the rank holding its sequence position.
Regrouped regroup(MPI_Comm comm, const LocalRows& data, const CellAssignment& a,
                  std::int64_t& sent) {
  const int size = comm_size(comm), self = comm_rank(comm);
  const std::int64_t d = data.d;
  std::vector<std::vector<float>> sx(size);
  std::vector<std::vector<std::int64_t>> sid(size);
  std::vector<std::vector<int>> scell(size);
  for (std::int64_t l = 0; l < data.local_rows(); ++l) {
    const int r = a.layout.owner(a.position[l]);
    sx[r].insert(sx[r].end(), data.row(l), data.row(l) + d);
    sid[r].push_back(data.begin + l);
    scell[r].push_back(a.home[l]);
  }
  sent += remote_bytes(sx, self) + remote_bytes(sid, self) + remote_bytes(scell, self);
  Regrouped g;
  g.x = alltoallv(comm, sx);
  g.ids = alltoallv(comm, sid);
  g.cell = alltoallv(comm, scell);
  return g;
}

// Local. For each held row (its home list searched), the other ranks that may hold one of its
// m nearest, in increasing rank order; counts queries by ranks visited into `visits`.
std::vector<std::vector<std::int64_t>> route(const CellLayout& lay, const Regrouped& g,
                                             const std::vector<Neighbor>& lists, int m, int self,
                                             int size, int threads, std::int64_t visits[3]) {
  const std::int64_t rows = g.rows(), d = lay.d;
  // ||c_i - c_j|| for the few cells held here.
  std::vector<int> held(g.cell);
  std::sort(held.begin(), held.end());
  held.erase(std::unique(held.begin(), held.end()), held.end());
  std::vector<std::vector<double>> gaps(held.size(), std::vector<double>(lay.cells));
  for (std::size_t h = 0; h < held.size(); ++h) lay.gaps(held[h], gaps[h].data());

  std::vector<std::vector<std::int64_t>> to(size);  // rank -> held rows to search there
  std::vector<std::vector<int>> targets(static_cast<std::size_t>(rows));
  constexpr std::int64_t kBlock = 256;
  openblas_set_num_threads(1);  // the threads take blocks of rows
#pragma omp parallel num_threads(threads)
  {
    std::vector<float> approx(static_cast<std::size_t>(kBlock * lay.cells)), gathered;
    std::vector<double> err(approx.size());
    std::vector<char> mark(size);
    std::vector<int> near;
    std::vector<std::int64_t> left;
    const auto mark_cell = [&](int j) {
      for (int r = lay.first_rank[j]; r <= lay.last_rank[j]; ++r) mark[r] = 1;  // none if empty
    };
    const auto keep_marks = [&](std::int64_t q) {
      mark[self] = 0;
      for (int r = 0; r < size; ++r) {
        if (mark[r]) targets[q].push_back(r);
      }
      std::fill(mark.begin(), mark.end(), 0);
    };
#pragma omp for schedule(static)
    for (std::int64_t b = 0; b < rows; b += kBlock) {
      const std::int64_t nb = std::min(kBlock, rows - b);
      // The cells near the home cell's centroid (near_cells_within), where its list suffices;
      // the home cell (which may span ranks) is always searched.
      left.clear();
      for (std::int64_t q = b; q < b + nb; ++q) {
        const double radius = std::sqrt(lists[q * m + m - 1].dist);  // inf while short of m
        near.clear();
        if (!near_cells_within(lay, g.x.data() + q * d, g.cell[q], radius, near)) {
          left.push_back(q);
          continue;
        }
        mark_cell(g.cell[q]);
        for (int j : near) mark_cell(j);
        keep_marks(q);
      }
      if (left.empty()) continue;
      // The other rows: distances to every centroid by one product.
      gathered.clear();
      for (std::int64_t q : left) {
        gathered.insert(gathered.end(), g.x.data() + q * d, g.x.data() + (q + 1) * d);
      }
      approximate_distances(lay, gathered.data(), static_cast<std::int64_t>(left.size()),
                            approx.data(), err.data());
      for (std::size_t t = 0; t < left.size(); ++t) {
        const std::int64_t q = left[t];
        const int i = g.cell[q];
        const double* gap =
            gaps[std::lower_bound(held.begin(), held.end(), i) - held.begin()].data();
        const float* f = approx.data() + t * lay.cells;
        const double* e = err.data() + t * lay.cells;
        const double radius = std::sqrt(lists[q * m + m - 1].dist);
        const double home_far = static_cast<double>(f[i]) + e[i];  // at least ||x - c_i||^2
        for (int j = 0; j < lay.cells; ++j) {
          // The Voronoi bound (cells.hpp) with ||x - c_j||^2 at least f[j] - e[j]; the home
          // cell and coinciding centroids are always searched.
          const double near_j = static_cast<double>(f[j]) - e[j];
          if (j != i && voronoi_excludes(near_j - home_far, gap[j], radius)) continue;
          mark_cell(j);
        }
        keep_marks(q);
      }
    }
  }
  for (std::int64_t q = 0; q < rows; ++q) {
    ++visits[std::min<std::size_t>(targets[q].size(), 2)];
    for (int r : targets[q]) to[r].push_back(q);
  }
  return to;
}

// Collective. One round of search_remote: the queries of rows slice[r] to rank r, the ones
// received searched against `engine`, the lists that come back merged into `lists`.
void search_round(MPI_Comm comm, const Engine* engine, const RowBlock& block,
                  const std::vector<std::vector<std::int64_t>>& slice, int m, const AnnParams& p,
                  std::vector<Neighbor>& lists, std::int64_t& sent, Progress& progress) {
  const int size = comm_size(comm), self = comm_rank(comm);
  const std::int64_t d = block.d;
  std::vector<std::vector<float>> sq(size);
  std::vector<std::vector<double>> sb(size);  // each query's m-th distance so far
  for (int r = 0; r < size; ++r) {
    for (std::int64_t q : slice[r]) {
      sq[r].insert(sq[r].end(), block.row(q), block.row(q) + d);
      sb[r].push_back(lists[q * m + m - 1].dist);
    }
  }
  sent += remote_bytes(sq, self) + remote_bytes(sb, self);
  std::vector<std::int64_t> out_count(size), in_count(size);
  for (int r = 0; r < size; ++r) out_count[r] = static_cast<std::int64_t>(slice[r].size());
  MPI_Alltoall(out_count.data(), 1, MPI_INT64_T, in_count.data(), 1, MPI_INT64_T, comm);
  const std::vector<float> queries = alltoallv(comm, sq);
  const std::vector<double> bounds = alltoallv(comm, sb);
  sq = {};
  const std::int64_t nq = static_cast<std::int64_t>(queries.size()) / d;

  std::vector<Neighbor> found(static_cast<std::size_t>(nq * m), kNoNeighbor);
  collectively(comm, [&] {
    if (nq > 0) {
      if (!engine) throw std::logic_error("candidates: queries routed to a rank without rows");
      search_block(*engine, block, queries.data(), nq, false, m, p.threads, found.data(),
                   &progress, bounds.data());
    }
  });
  std::vector<std::vector<Neighbor>> reply(size);
  std::int64_t at = 0;
  for (int r = 0; r < size; ++r) {
    reply[r].assign(found.begin() + at * m, found.begin() + (at + in_count[r]) * m);
    at += in_count[r];
  }
  sent += remote_bytes(reply, self);
  const std::vector<Neighbor> back = alltoallv(comm, reply);

  std::vector<Neighbor> merged(2 * static_cast<std::size_t>(m));
  at = 0;
  for (int r = 0; r < size; ++r) {
    for (std::int64_t q : slice[r]) {
      Neighbor* list = lists.data() + q * m;
      std::merge(list, list + m, back.begin() + at * m, back.begin() + (at + 1) * m,
                 merged.begin());
      std::copy(merged.begin(), merged.begin() + m, list);
      ++at;
    }
  }
}

// Collective. Sends the routed queries, searches the ones received here against `engine`, and
// merges the lists that come back into `lists`, in rounds: per round a rank sends at most
// p.round_bytes of query rows and their lists (split evenly over the peers). A list is the best m
// of the union of every rank's answer under the (dist, idx) order, so the rounds do not change it.
void search_remote(MPI_Comm comm, const Engine* engine, const RowBlock& block,
                   const std::vector<std::vector<std::int64_t>>& to, int m, const AnnParams& p,
                   std::vector<Neighbor>& lists, std::int64_t& sent) {
  const int size = comm_size(comm), self = comm_rank(comm);
  // A routed row costs its floats and bound here and there, and its list three times (found,
  // reply, back).
  const std::int64_t row_bytes = block.d * static_cast<std::int64_t>(sizeof(float)) +
                                 static_cast<std::int64_t>(sizeof(double)) +
                                 3 * m * static_cast<std::int64_t>(sizeof(Neighbor));
  const std::int64_t per_round =
      std::max<std::int64_t>(1, p.round_bytes / (std::max(size - 1, 1) * row_bytes));
  std::vector<std::int64_t> out_count(size), in_count(size);
  std::int64_t most = 0;
  for (int r = 0; r < size; ++r) {
    out_count[r] = static_cast<std::int64_t>(to[r].size());
    most = std::max(most, out_count[r]);
  }
  MPI_Alltoall(out_count.data(), 1, MPI_INT64_T, in_count.data(), 1, MPI_INT64_T, comm);
  std::int64_t received = 0;
  for (std::int64_t c : in_count) received += c;
  Progress progress(self == 0 ? *p.monitor : null_monitor(), received,
                    "queries from other ranks searched");
  const std::int64_t rounds = allreduce_max(comm, (most + per_round - 1) / per_round);
  std::vector<std::vector<std::int64_t>> slice(size);
  for (std::int64_t round = 0; round < rounds; ++round) {
    for (int r = 0; r < size; ++r) {
      const std::int64_t lo = std::min(out_count[r], round * per_round);
      const std::int64_t hi = std::min(out_count[r], lo + per_round);
      slice[r].assign(to[r].begin() + lo, to[r].begin() + hi);
    }
    search_round(comm, engine, block, slice, m, p, lists, sent, progress);
  }
}

// Collective. The lists of the held rows to the ranks whose input blocks own them (`lists` is
// freed once packed, the send buffers once sent: at most two copies of the lists at a time).
Candidates send_home(MPI_Comm comm, const LocalRows& data, const Regrouped& g,
                     std::vector<Neighbor> lists, int m, std::int64_t& sent) {
  const int size = comm_size(comm), self = comm_rank(comm);
  const std::vector<std::int64_t> begins = allgather_items(comm, std::vector<std::int64_t>{data.begin});
  std::vector<std::vector<std::int64_t>> sid(size);
  std::vector<std::vector<Neighbor>> sl(size);
  for (std::int64_t q = 0; q < g.rows(); ++q) {
    const int r = static_cast<int>(std::upper_bound(begins.begin(), begins.end(), g.ids[q]) -
                                   begins.begin()) - 1;
    sid[r].push_back(g.ids[q]);
    sl[r].insert(sl[r].end(), lists.begin() + q * m, lists.begin() + (q + 1) * m);
  }
  std::vector<Neighbor>().swap(lists);
  sent += remote_bytes(sid, self) + remote_bytes(sl, self);
  const std::vector<std::int64_t> ids = alltoallv(comm, sid);
  const std::vector<Neighbor> in = alltoallv(comm, sl);
  sl = {};
  Candidates c;
  c.begin = data.begin;
  c.m = m;
  c.idx.resize(static_cast<std::size_t>(data.local_rows() * m));
  c.dist.resize(c.idx.size());
  for (std::size_t k = 0; k < ids.size(); ++k) {
    const std::int64_t l = ids[k] - data.begin;
    for (int j = 0; j < m; ++j) {
      c.idx[l * m + j] = in[k * m + j].idx;
      c.dist[l * m + j] = in[k * m + j].dist;
    }
  }
  return c;
}

}  // namespace

Candidates partition_candidates(MPI_Comm comm, const LocalRows& data, int m, const AnnParams& p) {
  const int size = comm_size(comm), self = comm_rank(comm);
  if (size == 1) {  // one index over all rows: nothing to regroup or route
    Candidates c = ring_candidates(comm, data, m, p);
    c.report.route = AnnRoute::kPartition;
    c.report.cells = 1;
    return c;
  }
  SearchReport report;
  report.route = AnnRoute::kPartition;
  std::int64_t sent = 0;

  double t0 = MPI_Wtime();
  const CellAssignment a = assign_cells(comm, data, p);
  report.cells = a.layout.cells;
  Regrouped g = regroup(comm, data, a, sent);
  const RowBlock block{g.x.data(), g.rows(), data.d, g.ids.data(), 0};
  report.seconds_cells = MPI_Wtime() - t0;

  t0 = MPI_Wtime();
  std::unique_ptr<Engine> engine;
  // The route of sampled rows, given their m-th distances in this rank's block.
  const ExtraRanks extra = [&](const std::vector<std::int64_t>& sampled,
                               const std::vector<double>& radius2) {
    Regrouped s;
    std::vector<Neighbor> last;  // route() reads the m-th neighbour's distance only: m = 1
    for (std::size_t i = 0; i < sampled.size(); ++i) {
      const std::int64_t q = sampled[i];
      s.x.insert(s.x.end(), g.x.begin() + q * data.d, g.x.begin() + (q + 1) * data.d);
      s.ids.push_back(g.ids[q]);
      s.cell.push_back(g.cell[q]);
      last.push_back({radius2[i], -1});
    }
    std::int64_t ignored[3] = {0, 0, 0}, visits = 0;
    for (const auto& r : route(a.layout, s, last, 1, self, size, p.threads, ignored)) {
      visits += static_cast<std::int64_t>(r.size());
    }
    return visits;
  };
  engine = build_engine(comm, p, g.x.data(), g.rows(), data.d, m, kOwnEfPerNeighbor * m, extra,
                        report);
  report.seconds_index = MPI_Wtime() - t0;

  t0 = MPI_Wtime();
  std::vector<Neighbor> lists;
  collectively(comm, [&] {
    lists.assign(static_cast<std::size_t>(g.rows() * m), kNoNeighbor);
    Progress progress(self == 0 ? *p.monitor : null_monitor(), g.rows(), "own queries searched");
    if (engine) search_block(*engine, block, g.x.data(), g.rows(), true, m, p.threads,
                             lists.data(), &progress);
  });
  std::int64_t visits[3] = {0, 0, 0};
  const auto to = route(a.layout, g, lists, m, self, size, p.threads, visits);
  search_remote(comm, engine.get(), block, to, m, p, lists, sent);
  engine.reset();
  std::vector<float>().swap(g.x);
  Candidates c = send_home(comm, data, g, std::move(lists), m, sent);
  report.seconds_search = MPI_Wtime() - t0;

  MPI_Allreduce(visits, report.visits, 3, MPI_INT64_T, MPI_SUM, comm);
  report.rows_max = allreduce_max(comm, g.rows());
  report.rows_min = -allreduce_max(comm, -g.rows());
  report.bytes_sent_max = allreduce_max(comm, sent);
  report.bytes_sent_total = allreduce_sum(comm, sent);
  c.report = report;
  return c;
}

}  // namespace lsgl::ann
