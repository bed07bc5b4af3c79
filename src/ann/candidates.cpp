// Candidate neighbours by a ring of query blocks.
//
// Every rank indexes its own block. In step s (0 <= s < P) rank r holds the query block of rank
// r - s (mod P) together with that block's running best-m lists, searches the block against its
// index, merges the results into the lists and passes block and lists to rank r + 1. After the
// last step only the lists make one more hop, which brings them home. Memory per rank: the local
// block and index plus two visiting blocks with their lists, O(local rows * (d + m)).
//
// Engine results are only proposals: each kept neighbour's distance is recomputed with
// squared_distance and lists are ordered by (dist, global index). Merging is exact under that
// order, so the exact engine gives the true m-NN on any number of ranks.
#include "lsgl/ann/candidates.hpp"

#include <algorithm>
#include <limits>
#include <sstream>

#include "engines.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl {

double squared_distance(const float* a, const float* b, std::int64_t d) {
  // Four independent partial sums combined in a fixed order; (a_i - b_i)^2 is exact in double
  // and symmetric, so the result is the same for (a, b) and (b, a).
  double s[4] = {0.0, 0.0, 0.0, 0.0};
  std::int64_t i = 0;
  for (; i + 4 <= d; i += 4) {
    for (int l = 0; l < 4; ++l) {
      const double t = static_cast<double>(a[i + l]) - static_cast<double>(b[i + l]);
      s[l] += t * t;
    }
  }
  for (; i < d; ++i) {
    const double t = static_cast<double>(a[i]) - static_cast<double>(b[i]);
    s[0] += t * t;
  }
  return (s[0] + s[1]) + (s[2] + s[3]);
}

std::string AnnParams::describe() const {
  std::ostringstream out;
  if (engine == "hnsw") {
    out << "hnsw M=" << hnsw_m << " ef_construction=" << hnsw_ef_construction << " ef=" << hnsw_ef
        << " threads=" << threads;
  } else if (engine == "flann") {
    out << "flann kdtree trees=" << flann_trees << " checks=" << flann_checks
        << " threads=" << threads;
  } else {
    out << engine;
  }
  return out.str();
}

namespace {

using ann::Neighbor;

constexpr Neighbor kNoNeighbor{std::numeric_limits<double>::infinity(), -1};
constexpr std::int64_t kQueryChunk = 8192;  // queries handed to an engine at once

void validate(MPI_Comm comm, const LocalRows& data, int m, const AnnParams& p) {
  collective_check(comm, p.engine == "hnsw" || p.engine == "flann" || p.engine == "exact",
                   "candidates: unknown engine '" + p.engine + "' (expected hnsw, flann or exact)");
  collective_check(comm, m > 0, "candidates: m must be positive, got " + std::to_string(m));
  collective_check(comm, m < data.n,
                   "candidates: need more than m points: m = " + std::to_string(m) +
                       ", n = " + std::to_string(data.n));
  collective_check(comm, p.threads > 0, "candidates: threads must be positive");
  if (p.engine == "flann") {
    collective_check(comm, p.flann_trees > 0 && p.flann_checks > 0,
                     "candidates: flann trees and checks must be positive");
  } else if (p.engine == "hnsw") {
    collective_check(comm, p.hnsw_m > 1 && p.hnsw_ef_construction > 0 && p.hnsw_ef > 0,
                     "candidates: need hnsw M > 1, ef_construction > 0 and ef > 0");
  }
}

std::unique_ptr<ann::Engine> make_engine(const AnnParams& p, const LocalRows& data, int m) {
  const std::int64_t rows = data.local_rows();
  if (p.engine == "flann") return ann::make_flann_engine(p, data.x.data(), rows, data.d);
  if (p.engine == "hnsw") return ann::make_hnsw_engine(p, data.x.data(), rows, data.d, m);
  return ann::make_exact_engine(p, data.x.data(), rows, data.d);
}

// Searches the visiting block (rows `qx`, qrows of them; `own`: it is the local block) against
// the local index and merges the best m per query into `lists` (qrows x m, sorted).
void search_block(const ann::Engine& engine, const LocalRows& data, const float* qx,
                  std::int64_t qrows, bool own, int m, int threads, Neighbor* lists) {
  const std::int64_t rows = data.local_rows(), d = data.d;
  // Ask for one more on the local block, where the query itself may come back.
  const int k = static_cast<int>(std::min<std::int64_t>(m + (own ? 1 : 0), rows));
  const std::size_t wanted =
      static_cast<std::size_t>(std::min<std::int64_t>(m, rows - (own ? 1 : 0)));
  std::vector<std::int64_t> found;
  for (std::int64_t c0 = 0; c0 < qrows; c0 += kQueryChunk) {
    const std::int64_t nc = std::min(kQueryChunk, qrows - c0);
    found.resize(static_cast<std::size_t>(nc * k));
    engine.search(qx + c0 * d, nc, k, found.data());
#pragma omp parallel num_threads(threads)
    {
      std::vector<Neighbor> mine, merged, scratch;
#pragma omp for schedule(static)
      for (std::int64_t i = 0; i < nc; ++i) {
        const std::int64_t q = c0 + i, self = own ? q : -1;
        const float* qv = qx + q * d;
        std::int64_t* rows_found = found.data() + i * k;
        const auto collect = [&] {
          mine.clear();
          for (int j = 0; j < k; ++j) {
            const std::int64_t l = rows_found[j];
            if (l >= 0 && l != self) {
              mine.push_back({squared_distance(qv, data.row(l), d), data.begin + l});
            }
          }
        };
        collect();
        if (mine.size() < wanted) {  // the engine came up short: brute force this query
          ann::exact_knn(qv, data.x.data(), rows, d, k, self, scratch, rows_found);
          collect();
        }
        std::sort(mine.begin(), mine.end());
        Neighbor* list = lists + q * m;
        merged.resize(static_cast<std::size_t>(m) + mine.size());
        std::merge(list, list + m, mine.begin(), mine.end(), merged.begin());
        std::copy(merged.begin(), merged.begin() + m, list);
      }
    }
  }
}

// Posts the nonblocking transfer of `send` to `dest` and `recv` from `src` (byte counts known
// on both sides) in messages below 2^30 bytes.
void post_transfer(MPI_Comm comm, const void* send, std::int64_t send_bytes, int dest, void* recv,
                   std::int64_t recv_bytes, int src, std::vector<MPI_Request>& req) {
  constexpr std::int64_t kChunk = std::int64_t(1) << 30;
  for (std::int64_t at = 0; at < recv_bytes; at += kChunk) {
    req.emplace_back();
    MPI_Irecv(static_cast<char*>(recv) + at, static_cast<int>(std::min(kChunk, recv_bytes - at)),
              MPI_BYTE, src, 0, comm, &req.back());
  }
  for (std::int64_t at = 0; at < send_bytes; at += kChunk) {
    req.emplace_back();
    MPI_Isend(static_cast<const char*>(send) + at,
              static_cast<int>(std::min(kChunk, send_bytes - at)), MPI_BYTE, dest, 0, comm,
              &req.back());
  }
}

}  // namespace

Candidates find_candidates(MPI_Comm comm, const LocalRows& data, int m, const AnnParams& p) {
  validate(comm, data, m, p);
  const int size = comm_size(comm), rank = comm_rank(comm);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  const std::int64_t d = data.d, rows = data.local_rows();

  std::unique_ptr<ann::Engine> engine;
  collectively(comm, [&] {
    if (rows > 0) engine = make_engine(p, data, m);
  });

  // The visiting block: global offset, row count, rows (the local rows in step 0), lists.
  std::int64_t vbegin = data.begin, vrows = rows;
  std::vector<float> vx;
  std::vector<Neighbor> lists;
  collectively(comm, [&] { lists.assign(static_cast<std::size_t>(rows * m), kNoNeighbor); });
  for (int step = 0; step < size; ++step) {
    const float* qx = step == 0 ? data.x.data() : vx.data();
    collectively(comm, [&] {
      if (engine) search_block(*engine, data, qx, vrows, step == 0, m, p.threads, lists.data());
    });
    if (size == 1) break;

    std::int64_t head[2] = {vbegin, vrows}, in[2] = {0, 0};
    MPI_Sendrecv(head, 2, MPI_INT64_T, next, 1, in, 2, MPI_INT64_T, prev, 1, comm,
                 MPI_STATUS_IGNORE);
    const bool last = step == size - 1;  // the lists go home, the rows are no longer needed
    std::vector<float> nx;
    std::vector<Neighbor> nlists;
    collectively(comm, [&] {
      nx.resize(last ? 0 : static_cast<std::size_t>(in[1] * d));
      nlists.resize(static_cast<std::size_t>(in[1] * m));
    });
    std::vector<MPI_Request> req;
    if (!last) {
      post_transfer(comm, qx, vrows * d * std::int64_t(sizeof(float)), next, nx.data(),
                    in[1] * d * std::int64_t(sizeof(float)), prev, req);
    }
    post_transfer(comm, lists.data(), vrows * m * std::int64_t(sizeof(Neighbor)), next,
                  nlists.data(), in[1] * m * std::int64_t(sizeof(Neighbor)), prev, req);
    MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
    vbegin = in[0];
    vrows = in[1];
    vx.swap(nx);
    lists.swap(nlists);
  }

  Candidates c;
  c.begin = data.begin;
  c.m = m;
  c.idx.resize(lists.size());
  c.dist.resize(lists.size());
  for (std::size_t i = 0; i < lists.size(); ++i) {
    c.idx[i] = lists[i].idx;
    c.dist[i] = lists[i].dist;
  }
  return c;
}

}  // namespace lsgl
