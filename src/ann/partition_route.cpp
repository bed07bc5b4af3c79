// Candidate neighbours by a locality partition (cells.hpp, partition_search.hpp).
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

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "bounds.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/threads.hpp"
#include "partition_search.hpp"
#include "routes.hpp"

namespace lsgl::ann {
namespace {

// hnsw: the own search returns most of a row's m neighbours from one index (where the ring
// gathers them from p searches), so its search list is at least this many times m long.
// Measured on Fashion-MNIST (m = 30, 784 dimensions): recall 0.990 with 40, 0.996 with 60.
constexpr int kOwnEfPerNeighbor = 2;

// Local. For the held rows `rows` (x: the held index rows, cell: their cells), each with its
// list of m (lists, aligned with rows), the other ranks that may hold one of its m nearest:
// to[r] lists the positions in `rows` of the queries for rank r, in increasing order. Counts
// queries by ranks visited into `visits`.
std::vector<std::vector<std::int64_t>> route(const CellLayout& lay, const float* x,
                                             const std::vector<int>& cell,
                                             const std::vector<std::int64_t>& rows,
                                             const std::vector<Neighbor>& lists, int m, int self,
                                             int size, int threads, std::int64_t visits[3]) {
  const std::int64_t nq = static_cast<std::int64_t>(rows.size()), d = lay.d;
  const auto row = [&](std::int64_t i) { return x + rows[i] * d; };
  const auto home = [&](std::int64_t i) { return cell[rows[i]]; };
  // ||c_i - c_j|| for the few cells held here.
  std::vector<int> held(cell);
  std::sort(held.begin(), held.end());
  held.erase(std::unique(held.begin(), held.end()), held.end());
  std::vector<std::vector<double>> gaps(held.size(), std::vector<double>(lay.cells));
  for (std::size_t h = 0; h < held.size(); ++h) lay.gaps(held[h], gaps[h].data());

  std::vector<std::vector<std::int64_t>> to(size);  // rank -> queries to search there
  std::vector<std::vector<int>> targets(static_cast<std::size_t>(nq));
  constexpr std::int64_t kBlock = 256;
  const auto scope = ThreadScope::blas(1);  // the threads take blocks of rows
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
    for (std::int64_t b = 0; b < nq; b += kBlock) {
      const std::int64_t nb = std::min(kBlock, nq - b);
      // The cells near the home cell's centroid (near_cells_within), where its list suffices;
      // the home cell (which may span ranks) is always searched.
      left.clear();
      for (std::int64_t q = b; q < b + nb; ++q) {
        const double radius = std::sqrt(lists[q * m + m - 1].dist);  // inf while short of m
        near.clear();
        if (!near_cells_within(lay, row(q), home(q), radius, near)) {
          left.push_back(q);
          continue;
        }
        mark_cell(home(q));
        for (int j : near) mark_cell(j);
        keep_marks(q);
      }
      if (left.empty()) continue;
      // The other rows: distances to every centroid by one product.
      gathered.clear();
      for (std::int64_t q : left) gathered.insert(gathered.end(), row(q), row(q) + d);
      approximate_distances(lay.centroids.data(), lay.cells, lay.d, gathered.data(),
                            static_cast<std::int64_t>(left.size()), approx.data(), err.data());
      for (std::size_t t = 0; t < left.size(); ++t) {
        const std::int64_t q = left[t];
        const int i = home(q);
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
  for (std::int64_t q = 0; q < nq; ++q) {
    ++visits[std::min<std::size_t>(targets[q].size(), 2)];
    for (int r : targets[q]) to[r].push_back(q);
  }
  return to;
}

// Local. Each rank's routed queries (positions in `rows`, held rows) reordered by the place of
// their rows in the engine's own order (rows of one cell together), when it has one. A round
// then carries the queries of a few cells, which land in a few cells of the receiving index and
// are searched there in blocks; in row order a round's queries (about 16,000) spread over every
// cell and each cell scanned serves a handful of them. The lists do not depend on the order.
void in_own_order(const Engine& engine, const std::vector<std::int64_t>& rows,
                  std::vector<std::vector<std::int64_t>>& to) {
  const std::vector<std::int64_t>* order = engine.own_order();
  if (!order) return;
  std::vector<std::int64_t> place(order->size());
  for (std::size_t t = 0; t < order->size(); ++t) place[(*order)[t]] = static_cast<std::int64_t>(t);
  for (auto& queries : to)
    std::sort(queries.begin(), queries.end(),
              [&](std::int64_t a, std::int64_t b) { return place[rows[a]] < place[rows[b]]; });
}

// The queries of a search on this rank: held rows (positions), their lists of m so far and where
// each neighbour is held (null: not tracked).
struct QueryLists {
  const std::vector<std::int64_t>& rows;
  std::vector<Neighbor>& lists;
  std::vector<std::int64_t>* where;
  int m;
};

// Collective. One round of search_remote: the queries slice[r] (positions in q.rows) to rank r,
// the ones received searched against `engine`, the lists that come back merged into q's lists.
void search_round(MPI_Comm comm, const Engine* engine, const RowBlock& block,
                  const std::vector<std::vector<std::int64_t>>& slice, QueryLists& q,
                  const AnnParams& p, std::int64_t& sent, Progress* progress) {
  const int size = comm_size(comm), self = comm_rank(comm), m = q.m;
  const std::int64_t d = block.d;
  std::vector<std::vector<float>> sq(size);
  std::vector<std::vector<double>> sb(size);  // each query's m-th distance so far
  for (int r = 0; r < size; ++r) {
    for (std::int64_t i : slice[r]) {
      const std::int64_t at = q.rows[i];
      sq[r].insert(sq[r].end(), block.row(at), block.row(at) + d);
      sb[r].push_back(q.lists[i * m + m - 1].dist);
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

  const bool track = q.where != nullptr;
  std::vector<Neighbor> found(static_cast<std::size_t>(nq * m), kNoNeighbor);
  std::vector<std::int64_t> found_where(track ? found.size() : 0, -1);
  collectively(comm, [&] {
    if (nq > 0) {
      if (!engine) throw std::logic_error("candidates: queries routed to a rank without rows");
      Queries routed;
      routed.x = queries.data();
      routed.rows = nq;
      routed.bound = bounds.data();
      search_block(*engine, block, routed, m, p.threads, found.data(),
                   track ? found_where.data() : nullptr, progress);
    }
  });
  return_answers(comm, in_count, found, found_where, m, nullptr, slice, q.lists.data(),
                 track ? q.where->data() : nullptr, sent);
}

// Collective. Sends the routed queries, searches the ones received here against `engine`, and
// merges the lists that come back into q's lists, in rounds: per round a rank sends at most
// p.round_bytes of query rows and their lists (split evenly over the peers). A list is the best m
// of the union of every rank's answer under the (dist, idx) order, so the rounds do not change it.
void search_remote(MPI_Comm comm, const Engine* engine, const RowBlock& block,
                   const std::vector<std::vector<std::int64_t>>& to, QueryLists& q,
                   const AnnParams& p, std::int64_t& sent, Progress* progress) {
  const int size = comm_size(comm);
  // A routed row costs its floats and bound here and there, and its list three times (found,
  // reply, back).
  const std::int64_t entry = static_cast<std::int64_t>(sizeof(Neighbor)) +
                             (q.where ? static_cast<std::int64_t>(sizeof(std::int64_t)) : 0);
  const std::int64_t row_bytes = block.d * static_cast<std::int64_t>(sizeof(float)) +
                                 static_cast<std::int64_t>(sizeof(double)) + 3 * q.m * entry;
  const std::int64_t per_round =
      std::max<std::int64_t>(1, p.round_bytes / (std::max(size - 1, 1) * row_bytes));
  std::vector<std::int64_t> out_count(size), in_count(size);
  std::int64_t most = 0;
  for (int r = 0; r < size; ++r) {
    out_count[r] = static_cast<std::int64_t>(to[r].size());
    most = std::max(most, out_count[r]);
  }
  MPI_Alltoall(out_count.data(), 1, MPI_INT64_T, in_count.data(), 1, MPI_INT64_T, comm);
  if (progress) {
    for (std::int64_t c : in_count) progress->extend(c);
  }
  const std::int64_t rounds = allreduce_max(comm, (most + per_round - 1) / per_round);
  std::vector<std::vector<std::int64_t>> slice(size);
  for (std::int64_t round = 0; round < rounds; ++round) {
    for (int r = 0; r < size; ++r) {
      const std::int64_t lo = std::min(out_count[r], round * per_round);
      const std::int64_t hi = std::min(out_count[r], lo + per_round);
      slice[r].assign(to[r].begin() + lo, to[r].begin() + hi);
    }
    search_round(comm, engine, block, slice, q, p, sent, progress);
  }
}

// Local. Squared distances of pairs: query q (row qrow[q], full_d floats) with the held full rows
// pos[t] for t in [start[q], start[q + 1]), into out[t]. Queries go in tiles of kPairTile; in a
// tile the pairs are taken in the order of the rows they meet, so each row is read from memory
// once per tile while the tile's query rows stay in cache.
void pair_distances(const RowBlock& block, const std::vector<const float*>& qrow,
                    const std::vector<std::int64_t>& start, const std::int64_t* pos, double* out,
                    int threads) {
  constexpr std::int64_t kPairTile = 256;
  struct Pair {
    std::int64_t row, slot, q;
    bool operator<(const Pair& o) const { return row < o.row; }
  };
  const std::int64_t nq = static_cast<std::int64_t>(qrow.size()), fd = block.full_d;
#pragma omp parallel num_threads(threads)
  {
    std::vector<Pair> order;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t t0 = 0; t0 < nq; t0 += kPairTile) {
      const std::int64_t t1 = std::min(nq, t0 + kPairTile);
      order.clear();
      for (std::int64_t q = t0; q < t1; ++q) {
        for (std::int64_t t = start[q]; t < start[q + 1]; ++t) order.push_back({pos[t], t, q});
      }
      std::sort(order.begin(), order.end());
      for (const Pair& pr : order) {
        out[pr.slot] = squared_distance(qrow[pr.q], block.full_row(pr.row), fd);
      }
    }
  }
}

// Collective. The lists of the held rows (global indices `ids`) to the ranks whose input blocks
// own them (`lists` is freed once packed, the send buffers once sent: at most two copies of the
// lists at a time).
Candidates send_home(MPI_Comm comm, std::int64_t begin, std::int64_t rows,
                     const std::vector<std::int64_t>& ids, std::vector<Neighbor> lists, int m,
                     std::int64_t& sent) {
  const int size = comm_size(comm), self = comm_rank(comm);
  const std::vector<std::int64_t> begins = allgather_items(comm, std::vector<std::int64_t>{begin});
  std::vector<std::vector<std::int64_t>> sid(size);
  std::vector<std::vector<Neighbor>> sl(size);
  for (std::size_t q = 0; q < ids.size(); ++q) {
    const int r = static_cast<int>(std::upper_bound(begins.begin(), begins.end(), ids[q]) -
                                   begins.begin()) - 1;
    sid[r].push_back(ids[q]);
    sl[r].insert(sl[r].end(), lists.begin() + q * m, lists.begin() + (q + 1) * m);
  }
  std::vector<Neighbor>().swap(lists);
  sent += remote_bytes(sid, self) + remote_bytes(sl, self);
  const std::vector<std::int64_t> in_ids = alltoallv(comm, sid);
  const std::vector<Neighbor> in = alltoallv(comm, sl);
  sl = {};
  Candidates c;
  c.begin = begin;
  c.m = m;
  c.idx.resize(static_cast<std::size_t>(rows * m));
  c.dist.resize(c.idx.size());
  for (std::size_t k = 0; k < in_ids.size(); ++k) {
    const std::int64_t l = in_ids[k] - begin;
    for (int j = 0; j < m; ++j) {
      c.idx[l * m + j] = in[k * m + j].idx;
      c.dist[l * m + j] = in[k * m + j].dist;
    }
  }
  return c;
}

// Local. Row t of the `width`-wide rows of v becomes row order[t] of before, in place (by cycles,
// one row of scratch).
template <class T>
void permute_rows(const std::vector<std::int64_t>& order, std::int64_t width, std::vector<T>& v) {
  std::vector<char> done(order.size(), 0);
  std::vector<T> keep(static_cast<std::size_t>(width));
  for (std::size_t start = 0; start < order.size(); ++start) {
    if (done[start]) continue;
    std::copy(v.begin() + start * width, v.begin() + (start + 1) * width, keep.begin());
    std::size_t t = start;
    while (static_cast<std::size_t>(order[t]) != start) {
      const std::size_t from = static_cast<std::size_t>(order[t]);
      std::copy(v.begin() + from * width, v.begin() + (from + 1) * width, v.begin() + t * width);
      done[t] = 1;
      t = from;
    }
    std::copy(keep.begin(), keep.end(), v.begin() + t * width);
    done[t] = 1;
  }
}

// Collective. The `width`-wide float rows at `rows` sent to the ranks `dest` names, received
// concatenated by source rank, each source's rows in its local order (as alltoallv of per-rank
// buffers would give them). The rows travel in rounds through send buffers of about
// kExchangeBytes in all, reused: a copy of every row to send would be fresh pages, which the
// kernel zeroes (a quarter of the cells stage at 10M rows). Adds the bytes sent to other ranks
// to `sent`.
constexpr std::int64_t kExchangeBytes = std::int64_t(256) << 20;
std::vector<float> exchange_rows(MPI_Comm comm, const float* rows, std::int64_t width,
                                 const std::vector<int>& dest,
                                 const std::vector<std::int64_t>& rows_to, std::int64_t& sent) {
  const int size = comm_size(comm), self = comm_rank(comm);
  std::vector<std::int64_t> rows_from(size);
  MPI_Alltoall(rows_to.data(), 1, MPI_INT64_T, rows_from.data(), 1, MPI_INT64_T, comm);
  std::vector<std::int64_t> from_at(size + 1, 0), to_at(size + 1, 0);
  for (int r = 0; r < size; ++r) {
    from_at[r + 1] = from_at[r] + rows_from[r];
    to_at[r + 1] = to_at[r] + rows_to[r];
    if (r != self) sent += rows_to[r] * width * static_cast<std::int64_t>(sizeof(float));
  }
  // The local rows by destination, in local order (a counting sort).
  std::vector<std::int64_t> by_dest(dest.size());
  {
    std::vector<std::int64_t> at(to_at.begin(), to_at.end() - 1);
    for (std::size_t l = 0; l < dest.size(); ++l)
      by_dest[at[dest[l]]++] = static_cast<std::int64_t>(l);
  }
  std::vector<float> out(static_cast<std::size_t>(from_at[size] * width));
  const std::int64_t chunk = std::max<std::int64_t>(
      1, kExchangeBytes /
             (size * std::max<std::int64_t>(1, width) * static_cast<std::int64_t>(sizeof(float))));
  std::int64_t rounds = 0;
  for (int r = 0; r < size; ++r)
    rounds = std::max(rounds, (std::max(rows_to[r], rows_from[r]) + chunk - 1) / chunk);
  std::vector<std::vector<float>> buffer(size);
  std::vector<MPI_Request> req;
  for (std::int64_t t = 0; t < rounds; ++t) {
    req.clear();
    const int tag = static_cast<int>(t % 32768);  // messages of one pair arrive in order
    for (int r = 0; r < size; ++r) {
      const std::int64_t first = t * chunk, count = std::min(chunk, rows_from[r] - first);
      if (count <= 0) continue;
      req.emplace_back();
      MPI_Irecv(out.data() + (from_at[r] + first) * width, static_cast<int>(count * width),
                MPI_FLOAT, r, tag, comm, &req.back());
    }
    for (int r = 0; r < size; ++r) {
      const std::int64_t first = t * chunk, count = std::min(chunk, rows_to[r] - first);
      if (count <= 0) continue;
      buffer[r].resize(static_cast<std::size_t>(count * width));
      for (std::int64_t u = 0; u < count; ++u) {
        const float* row = rows + by_dest[to_at[r] + first + u] * width;
        std::copy(row, row + width, buffer[r].data() + u * width);
      }
      req.emplace_back();
      MPI_Isend(buffer[r].data(), static_cast<int>(count * width), MPI_FLOAT, r, tag, comm,
                &req.back());
    }
    MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
  }
  return out;
}

// Collective. Each local row to the rank holding its sequence position: its index row (to x),
// its full row (to full, when `full_rows` is not null), its global index and its cell; the rows
// held in global index order, or in (cell, global index) order when `by_cell`.
void regroup(MPI_Comm comm, const LocalRows& data, const LocalRows* full_rows,
             const CellAssignment& a, std::vector<float>& x, std::vector<float>& full,
             std::vector<std::int64_t>& ids, std::vector<int>& cell, bool by_cell,
             std::int64_t& sent) {
  const int size = comm_size(comm), self = comm_rank(comm);
  std::vector<int> dest(static_cast<std::size_t>(data.local_rows()));
  std::vector<std::int64_t> rows_to(static_cast<std::size_t>(size), 0);
  for (std::int64_t l = 0; l < data.local_rows(); ++l)
    ++rows_to[dest[l] = a.layout.owner(a.position[l])];
  std::vector<std::vector<std::int64_t>> sid(size);
  std::vector<std::vector<int>> scell(size);
  for (int r = 0; r < size; ++r) {
    sid[r].reserve(static_cast<std::size_t>(rows_to[r]));
    scell[r].reserve(static_cast<std::size_t>(rows_to[r]));
  }
  for (std::int64_t l = 0; l < data.local_rows(); ++l) {
    sid[dest[l]].push_back(data.begin + l);
    scell[dest[l]].push_back(a.home[l]);
  }
  sent += remote_bytes(sid, self) + remote_bytes(scell, self);
  x = exchange_rows(comm, data.data(), data.d, dest, rows_to, sent);
  if (full_rows) full = exchange_rows(comm, full_rows->data(), full_rows->d, dest, rows_to, sent);
  ids = alltoallv(comm, sid);
  cell = alltoallv(comm, scell);
  // The rows arrive grouped by source rank, so in global index order, which the engines' ties
  // follow. The projected search's probes need each cell's rows contiguous: (cell, global
  // index) order, so that rows near each other are also near in memory.
  if (!by_cell) return;
  std::vector<std::int64_t> order(ids.size());
  std::iota(order.begin(), order.end(), std::int64_t{0});
  std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return cell[a] != cell[b] ? cell[a] < cell[b] : ids[a] < ids[b];
  });
  permute_rows(order, data.d, x);
  if (full_rows) permute_rows(order, full_rows->d, full);
  permute_rows(order, 1, ids);
  permute_rows(order, 1, cell);
}

}  // namespace

void return_answers(MPI_Comm comm, const std::vector<std::int64_t>& in_count,
                    const std::vector<Neighbor>& found,
                    const std::vector<std::int64_t>& found_where, int k,
                    const std::vector<std::int64_t>* count,
                    const std::vector<std::vector<std::int64_t>>& slice, Neighbor* lists,
                    std::int64_t* where, std::int64_t& sent) {
  const int size = comm_size(comm), self = comm_rank(comm);
  const bool track = where != nullptr;
  std::vector<std::vector<Neighbor>> reply(size);
  std::vector<std::vector<std::int64_t>> reply_where(size), reply_count(size);
  std::int64_t a = 0;
  for (int r = 0; r < size; ++r) {
    for (std::int64_t t = 0; t < in_count[r]; ++t, ++a) {
      const std::int64_t c = count ? (*count)[a] : k;
      reply[r].insert(reply[r].end(), found.begin() + a * k, found.begin() + a * k + c);
      if (track) {
        reply_where[r].insert(reply_where[r].end(), found_where.begin() + a * k,
                              found_where.begin() + a * k + c);
      }
      if (count) reply_count[r].push_back(c);
    }
  }
  sent += remote_bytes(reply, self) + remote_bytes(reply_where, self) +
          remote_bytes(reply_count, self);
  const std::vector<Neighbor> back = alltoallv(comm, reply);
  const std::vector<std::int64_t> back_where = alltoallv(comm, reply_where);
  const std::vector<std::int64_t> back_count =
      count ? alltoallv(comm, reply_count) : std::vector<std::int64_t>();
  std::vector<std::pair<Neighbor, std::int64_t>> scratch;
  std::int64_t at = 0, b = 0;
  for (int r = 0; r < size; ++r) {
    for (std::int64_t i : slice[r]) {
      const std::int64_t c = count ? back_count[b++] : k;
      merge_into(lists + i * k, track ? where + i * k : nullptr, k, back.data() + at,
                 track ? back_where.data() + at : nullptr, c, scratch);
      at += c;
    }
  }
}

PartitionSearch::PartitionSearch(MPI_Comm comm, const LocalRows& data, const LocalRows* full,
                                 const AnnParams& p, SearchReport& report, int)
    : comm_(comm),
      p_(p),
      report_(report),
      size_(comm_size(comm)),
      self_(comm_rank(comm)),
      input_begin_(data.begin),
      input_rows_(data.local_rows()) {
  report_.route = AnnRoute::kPartition;
  block_.d = data.d;
  block_.full_d = full ? full->d : 0;
  block_.rank = self_;
}

PartitionSearch::PartitionSearch(MPI_Comm comm, const LocalRows& data, const LocalRows* full,
                                 const AnnParams& p, SearchReport& report)
    : PartitionSearch(comm, data, full, p, report, 0) {
  const double t0 = MPI_Wtime();
  if (size_ == 1) {  // one index over all rows: nothing to regroup or route
    report_.cells = 1;
    held_ = data.local_rows();
    block_.x = data.data();
    block_.full = full ? full->data() : nullptr;
    block_.begin = data.begin;
    block_.rows = held_;
  } else {
    stage_line(*p.monitor, "k-means cells of the rows and their regrouping by cell");
    hold(data, full, assign_cells(comm, data, p), false);
  }
  report_.seconds_cells = MPI_Wtime() - t0;
}

PartitionSearch::PartitionSearch(MPI_Comm comm, const LocalRows& data, const LocalRows* full,
                                 CellAssignment cells, const AnnParams& p, SearchReport& report)
    : PartitionSearch(comm, data, full, p, report, 0) {
  const double t0 = MPI_Wtime();
  stage_line(*p.monitor, "regrouping of the rows by cell");
  hold(data, full, std::move(cells), true);
  report_.seconds_cells = MPI_Wtime() - t0;
}

void PartitionSearch::hold(const LocalRows& data, const LocalRows* full, CellAssignment cells,
                           bool by_cell) {
  cells_ = std::move(cells);
  report_.cells = cells_.layout.cells;
  regroup(comm_, data, full, cells_, x_, full_, ids_, cell_, by_cell, sent_);
  held_ = static_cast<std::int64_t>(ids_.size());
  block_.x = x_.data();
  block_.full = full ? full_.data() : nullptr;
  block_.ids = ids_.data();
  block_.rows = held_;
  if (!by_cell) return;
  cell_lo_.assign(static_cast<std::size_t>(cells_.layout.cells), 0);
  cell_hi_.assign(cell_lo_.size(), 0);
  for (std::int64_t at = held_ - 1; at >= 0; --at) cell_lo_[cell_[at]] = at;
  for (std::int64_t at = 0; at < held_; ++at) cell_hi_[cell_[at]] = at + 1;
}

void PartitionSearch::build(int m) {
  const double t0 = MPI_Wtime();
  stage_line(*p_.monitor, "index of each rank's rows");
  // The route of sampled held rows, given their m-th distances in this rank's block.
  const ExtraRanks extra = [&](const std::vector<std::int64_t>& sampled,
                               const std::vector<double>& radius2) {
    if (size_ == 1) return std::int64_t{0};
    std::vector<Neighbor> last;  // route() reads the m-th neighbour's distance only: m = 1
    for (double r2 : radius2) last.push_back({r2, -1});
    std::int64_t ignored[3] = {0, 0, 0}, visits = 0;
    for (const auto& r : route(cells_.layout, block_.x, cell_, sampled, last, 1, self_, size_,
                               p_.threads, ignored)) {
      visits += static_cast<std::int64_t>(r.size());
    }
    return visits;
  };
  engine_ = build_engine(comm_, p_, block_.x, held_, block_.d, m, kOwnEfPerNeighbor * m, extra,
                         report_);
  report_.seconds_index = MPI_Wtime() - t0;
}

void PartitionSearch::search(const std::vector<std::int64_t>& rows, int k,
                             std::vector<Neighbor>& lists, std::vector<double>* exact,
                             SearchProgress* progress) {
  const std::int64_t nq = static_cast<std::int64_t>(rows.size());
  const bool contiguous =
      nq > 0 && rows.back() - rows.front() == nq - 1 &&
      std::adjacent_find(rows.begin(), rows.end(),
                         [](std::int64_t a, std::int64_t b) { return b != a + 1; }) == rows.end();
  std::vector<std::int64_t>& where = where_;
  collectively(comm_, [&] {
    lists.assign(static_cast<std::size_t>(nq * k), kNoNeighbor);
    if (exact) where.assign(lists.size(), -1);
    if (!engine_ || nq == 0) return;
    // Own queries: the engine's own search for a run of held rows, else copies of the rows
    // searched as ordinary queries, each leaving itself out.
    std::vector<float> qx;
    std::vector<std::int64_t> self_ids;
    Queries q;
    q.rows = nq;
    if (contiguous) {
      q.own_first = rows.front();
    } else {
      for (std::int64_t at : rows) {
        qx.insert(qx.end(), block_.row(at), block_.row(at) + block_.d);
        self_ids.push_back(id(at));
      }
      q.x = qx.data();
      q.exclude = self_ids.data();
    }
    search_block(*engine_, block_, q, k, p_.threads, lists.data(),
                 exact ? where.data() : nullptr, progress ? &progress->own : nullptr);
  });
  if (size_ == 1) {
    visits_[0] += nq;
  } else {
    auto to =
        route(cells_.layout, block_.x, cell_, rows, lists, k, self_, size_, p_.threads, visits_);
    in_own_order(*engine_, rows, to);
    QueryLists q{rows, lists, exact ? &where : nullptr, k};
    search_remote(comm_, engine_.get(), block_, to, q, p_, sent_,
                  progress ? &progress->remote : nullptr);
  }
  if (exact) refine(rows, k, where, *exact);
}

void PartitionSearch::refine(const std::vector<std::int64_t>& rows, int k,
                             const std::vector<std::int64_t>& where, std::vector<double>& exact) {
  const std::int64_t nq = static_cast<std::int64_t>(rows.size()), fd = block_.full_d;
  exact.assign(where.size(), kNoNeighbor.dist);
  // Pairs with rows held here, and per other rank the queries that have neighbours there.
  std::vector<const float*> local_q;
  std::vector<std::int64_t> local_start{0}, local_pos, local_slot;
  std::vector<std::vector<std::int64_t>> asked(size_);  // rank -> queries (positions in rows)
  for (std::int64_t i = 0; i < nq; ++i) {
    bool mine = false;
    for (int j = 0; j < k; ++j) {
      const std::int64_t w = where[i * k + j];
      if (w < 0) continue;
      const int r = where_rank(w);
      if (r == self_) {
        local_pos.push_back(where_pos(w));
        local_slot.push_back(i * k + j);
        mine = true;
      } else if (asked[r].empty() || asked[r].back() != i) {
        asked[r].push_back(i);
      }
    }
    if (mine) {
      local_q.push_back(full_row(rows[i]));
      local_start.push_back(static_cast<std::int64_t>(local_pos.size()));
    }
  }
  std::vector<double> local_out(local_pos.size());
  pair_distances(block_, local_q, local_start, local_pos.data(), local_out.data(), p_.threads);
  for (std::size_t t = 0; t < local_slot.size(); ++t) exact[local_slot[t]] = local_out[t];

  // The others, in rounds: a query's full row and the positions of its neighbours there go to
  // the holding rank, the distances come back.
  const std::int64_t query_bytes =
      fd * static_cast<std::int64_t>(sizeof(float)) + 3 * k * static_cast<std::int64_t>(8);
  const std::int64_t per_round =
      std::max<std::int64_t>(1, p_.round_bytes / (std::max(size_ - 1, 1) * query_bytes));
  std::int64_t most = 0;
  for (const auto& a : asked) most = std::max(most, static_cast<std::int64_t>(a.size()));
  const std::int64_t rounds = allreduce_max(comm_, (most + per_round - 1) / per_round);
  for (std::int64_t round = 0; round < rounds; ++round) {
    std::vector<std::vector<float>> sq(size_);
    std::vector<std::vector<std::int64_t>> scount(size_), spos(size_), slot(size_);
    for (int r = 0; r < size_; ++r) {
      const std::int64_t have = static_cast<std::int64_t>(asked[r].size());
      const std::int64_t lo = std::min(have, round * per_round);
      const std::int64_t hi = std::min(have, lo + per_round);
      for (std::int64_t a = lo; a < hi; ++a) {
        const std::int64_t i = asked[r][a];
        sq[r].insert(sq[r].end(), full_row(rows[i]), full_row(rows[i]) + fd);
        std::int64_t c = 0;
        for (int j = 0; j < k; ++j) {
          const std::int64_t w = where[i * k + j];
          if (w >= 0 && where_rank(w) == r) {
            spos[r].push_back(where_pos(w));
            slot[r].push_back(i * k + j);
            ++c;
          }
        }
        scount[r].push_back(c);
      }
    }
    sent_ += remote_bytes(sq, self_) + remote_bytes(scount, self_) + remote_bytes(spos, self_);
    const std::vector<float> in_q = alltoallv(comm_, sq);
    sq = {};
    const std::vector<std::int64_t> in_count = alltoallv(comm_, scount);
    const std::vector<std::int64_t> in_pos = alltoallv(comm_, spos);
    // The pairs asked of this rank, in the order received, and their distances.
    std::vector<const float*> qrow(in_count.size());
    std::vector<std::int64_t> start(in_count.size() + 1, 0);
    for (std::size_t a = 0; a < in_count.size(); ++a) {
      qrow[a] = in_q.data() + static_cast<std::int64_t>(a) * fd;
      start[a + 1] = start[a] + in_count[a];
    }
    std::vector<double> out(in_pos.size());
    pair_distances(block_, qrow, start, in_pos.data(), out.data(), p_.threads);
    // Back to the askers: the received pairs came grouped by source rank, in rank order.
    std::vector<std::int64_t> from_count(size_, 0), to_count(size_);
    for (int r = 0; r < size_; ++r) from_count[r] = static_cast<std::int64_t>(spos[r].size());
    MPI_Alltoall(from_count.data(), 1, MPI_INT64_T, to_count.data(), 1, MPI_INT64_T, comm_);
    std::vector<std::vector<double>> reply(size_);
    std::int64_t at = 0;
    for (int r = 0; r < size_; ++r) {
      reply[r].assign(out.begin() + at, out.begin() + at + to_count[r]);
      at += to_count[r];
    }
    sent_ += remote_bytes(reply, self_);
    const std::vector<double> back = alltoallv(comm_, reply);
    at = 0;
    for (int r = 0; r < size_; ++r) {
      for (std::int64_t s : slot[r]) exact[s] = back[at++];
    }
  }
}

Candidates PartitionSearch::finish(std::vector<Neighbor> lists, int m) {
  engine_.reset();
  std::vector<float>().swap(x_);
  std::vector<float>().swap(full_);
  // Rows in input order on one rank, else back to the ranks whose input blocks hold them.
  Candidates c =
      ids_.empty() ? to_candidates(input_begin_, m, lists)
                   : send_home(comm_, input_begin_, input_rows_, ids_, std::move(lists), m, sent_);
  MPI_Allreduce(visits_, report_.visits, 3, MPI_INT64_T, MPI_SUM, comm_);
  report_.rows_max = allreduce_max(comm_, held_);
  report_.rows_min = -allreduce_max(comm_, -held_);
  report_.bytes_sent_max = allreduce_max(comm_, sent_);
  report_.bytes_sent_total = allreduce_sum(comm_, sent_);
  return c;
}

Candidates partition_candidates(MPI_Comm comm, const LocalRows& data, int m, const AnnParams& p) {
  const int size = comm_size(comm), self = comm_rank(comm);
  if (size == 1) {  // one index over all rows: the ring of one rank
    Candidates c = ring_candidates(comm, data, m, p);
    c.report.route = AnnRoute::kPartition;
    c.report.cells = 1;
    return c;
  }
  SearchReport report;
  PartitionSearch search(comm, data, nullptr, p, report);
  search.build(m);
  if (p.rows_done) p.rows_done(report.engine);
  const double t0 = MPI_Wtime();
  std::vector<std::int64_t> rows(static_cast<std::size_t>(search.held()));
  for (std::int64_t i = 0; i < search.held(); ++i) rows[i] = i;
  std::vector<Neighbor> lists;
  SearchProgress progress(self == 0 ? *p.monitor : null_monitor(), search.held());
  search.search(rows, m, lists, nullptr, &progress);
  Candidates c = search.finish(std::move(lists), m);
  report.seconds_search = MPI_Wtime() - t0;
  c.report = report;
  return c;
}

}  // namespace lsgl::ann
