// Candidate neighbours by a ring of query blocks.
//
// Every rank indexes its own block. In step s (0 <= s < P) rank r holds the query block of rank
// r - s (mod P) together with that block's running best-m lists, searches the block against its
// index, merges the results into the lists and passes block and lists to rank r + 1. After the
// last step only the lists make one more hop, which brings them home. Memory per rank: the local
// block and index plus two visiting blocks with their lists, O(local rows * (d + m)). Work per
// query: a search of all P indexes.
#include <algorithm>

#include "engines.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"
#include "routes.hpp"

namespace lsgl::ann {
namespace {

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

Candidates ring_candidates(MPI_Comm comm, const LocalRows& data, int m, const AnnParams& p) {
  const int size = comm_size(comm), rank = comm_rank(comm);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  const std::int64_t d = data.d, rows = data.local_rows();
  const RowBlock block{data.data(), rows, d, nullptr, data.begin};
  SearchReport report;
  report.route = AnnRoute::kRing;

  std::unique_ptr<Engine> engine;
  double t0 = MPI_Wtime();
  // Every query visits every rank's index.
  const ExtraRanks extra = [size](const std::vector<std::int64_t>& sampled,
                                  const std::vector<double>&) {
    return static_cast<std::int64_t>(sampled.size()) * (size - 1);
  };
  engine = build_engine(comm, p, data.data(), rows, d, m, 0, extra, report);
  report.seconds_index = MPI_Wtime() - t0;
  t0 = MPI_Wtime();

  // The visiting block: global offset, row count, rows (the local rows in step 0), lists.
  std::int64_t vbegin = data.begin, vrows = rows, sent = 0;
  std::vector<float> vx;
  std::vector<Neighbor> lists;
  collectively(comm, [&] { lists.assign(static_cast<std::size_t>(rows * m), kNoNeighbor); });
  Progress progress(rank == 0 ? *p.monitor : null_monitor(), rows * size,
                    "rank 0's ring steps searched");
  std::vector<double> bound;  // the visiting queries' m-th distances so far
  for (int step = 0; step < size; ++step) {
    const float* qx = step == 0 ? data.data() : vx.data();
    collectively(comm, [&] {
      bound.resize(static_cast<std::size_t>(vrows));
      for (std::int64_t q = 0; q < vrows; ++q) bound[q] = lists[q * m + m - 1].dist;
      Queries q;
      q.x = qx;
      q.rows = vrows;
      if (step == 0) {
        q.own_first = 0;
      } else {
        q.bound = bound.data();
      }
      if (engine) search_block(*engine, block, q, m, p.threads, lists.data(), nullptr, &progress);
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
    const std::int64_t row_bytes = last ? 0 : vrows * d * std::int64_t(sizeof(float));
    const std::int64_t list_bytes = vrows * m * std::int64_t(sizeof(Neighbor));
    if (!last) {
      post_transfer(comm, qx, row_bytes, next, nx.data(), in[1] * d * std::int64_t(sizeof(float)),
                    prev, req);
    }
    post_transfer(comm, lists.data(), list_bytes, next, nlists.data(),
                  in[1] * m * std::int64_t(sizeof(Neighbor)), prev, req);
    MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
    sent += row_bytes + list_bytes;
    vbegin = in[0];
    vrows = in[1];
    vx.swap(nx);
    lists.swap(nlists);
  }
  report.seconds_search = MPI_Wtime() - t0;
  report.visits[std::min(size, 3) - 1] = data.n;
  report.rows_max = allreduce_max(comm, rows);
  report.rows_min = -allreduce_max(comm, -rows);
  report.bytes_sent_max = allreduce_max(comm, sent);
  report.bytes_sent_total = allreduce_sum(comm, sent);

  Candidates c = to_candidates(data.begin, m, lists);
  c.report = report;
  return c;
}

}  // namespace lsgl::ann
