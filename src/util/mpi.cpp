#include "lsgl/util/mpi.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <climits>
#include <string>

#include "lsgl/util/error.hpp"

namespace lsgl {

std::vector<std::int64_t> fetch_from_owners(MPI_Comm comm, const Partition& part,
                                            const std::vector<std::int64_t>& ids,
                                            const std::vector<std::int64_t>& owned) {
  const int size = comm_size(comm), rank = comm_rank(comm);
  const std::int64_t first = part.begin(rank);
  // This rank's own ids are answered here; the others go to their owners. Counted first, so
  // that no buffer grows by doubling (fresh pages, zeroed by the kernel).
  std::vector<std::int64_t> count(size, 0), asked(size);
  for (const auto id : ids) ++count[part.owner(id)];
  count[rank] = 0;
  std::vector<std::vector<std::int64_t>> ask(size);
  for (int p = 0; p < size; ++p) ask[p].reserve(static_cast<std::size_t>(count[p]));
  for (const auto id : ids) {
    const int p = part.owner(id);
    if (p != rank) ask[p].push_back(id);
  }
  // Questions arrive concatenated by source rank; answers go back in the same order.
  MPI_Alltoall(count.data(), 1, MPI_INT64_T, asked.data(), 1, MPI_INT64_T, comm);
  const std::vector<std::int64_t> questions = alltoallv(comm, ask);
  std::size_t t = 0;
  for (int p = 0; p < size; ++p) {
    ask[p] = std::vector<std::int64_t>();
    ask[p].reserve(static_cast<std::size_t>(asked[p]));
    for (std::int64_t q = 0; q < asked[p]; ++q, ++t) ask[p].push_back(owned[questions[t] - first]);
  }
  const std::vector<std::int64_t> answers = alltoallv(comm, ask);
  std::vector<std::int64_t> at(size, 0), out(ids.size());
  for (int p = 1; p < size; ++p) at[p] = at[p - 1] + count[p - 1];
  for (std::size_t k = 0; k < ids.size(); ++k) {
    const int p = part.owner(ids[k]);
    out[k] = p == rank ? owned[ids[k] - first] : answers[at[p]++];
  }
  return out;
}

Partition partition_of_blocks(MPI_Comm comm, std::int64_t n, std::int64_t begin) {
  const int size = comm_size(comm);
  Partition part(n, size);
  std::vector<std::int64_t> starts(static_cast<std::size_t>(size) + 1, n);
  MPI_Allgather(&begin, 1, MPI_INT64_T, starts.data(), 1, MPI_INT64_T, comm);
  for (int p = 0; p <= size; ++p)
    if (starts[p] != part.begin(p)) {
      part.starts = std::move(starts);
      break;
    }
  return part;
}

int comm_rank(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}

int comm_size(MPI_Comm comm) {
  int s = 1;
  MPI_Comm_size(comm, &s);
  return s;
}

std::int64_t exscan_sum(MPI_Comm comm, std::int64_t local) {
  std::int64_t out = 0;
  MPI_Exscan(&local, &out, 1, MPI_INT64_T, MPI_SUM, comm);
  return comm_rank(comm) == 0 ? 0 : out;
}

std::int64_t allreduce_sum(MPI_Comm comm, std::int64_t local) {
  std::int64_t out = 0;
  MPI_Allreduce(&local, &out, 1, MPI_INT64_T, MPI_SUM, comm);
  return out;
}

std::int64_t allreduce_max(MPI_Comm comm, std::int64_t local) {
  std::int64_t out = 0;
  MPI_Allreduce(&local, &out, 1, MPI_INT64_T, MPI_MAX, comm);
  return out;
}

std::int64_t peak_rss_bytes() {
  struct rusage u {};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<std::int64_t>(u.ru_maxrss) * 1024;
}

double allreduce_max_double(MPI_Comm comm, double v) {
  double out = v;
  MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, comm);
  return out;
}

namespace detail {

void alltoallv_bytes_into(MPI_Comm comm, const std::vector<const char*>& data,
                          const std::vector<std::int64_t>& bytes,
                          const std::function<char*(std::int64_t)>& receive_buffer) {
  const int size = comm_size(comm);
  std::vector<std::int64_t> recv_bytes(size, 0);
  MPI_Alltoall(bytes.data(), 1, MPI_INT64_T, recv_bytes.data(), 1, MPI_INT64_T, comm);
  std::vector<std::int64_t> offset(size + 1, 0);
  for (int p = 0; p < size; ++p) offset[p + 1] = offset[p] + recv_bytes[p];
  char* out = receive_buffer(offset[size]);

  constexpr std::int64_t kChunk = std::int64_t(1) << 30;
  std::vector<MPI_Request> req;
  for (int p = 0; p < size; ++p) {
    int tag = 0;
    for (std::int64_t at = 0; at < recv_bytes[p]; at += kChunk, ++tag) {
      const int len = static_cast<int>(std::min(kChunk, recv_bytes[p] - at));
      req.emplace_back();
      MPI_Irecv(out + offset[p] + at, len, MPI_BYTE, p, tag, comm, &req.back());
    }
  }
  for (int p = 0; p < size; ++p) {
    int tag = 0;
    for (std::int64_t at = 0; at < bytes[p]; at += kChunk, ++tag) {
      const int len = static_cast<int>(std::min(kChunk, bytes[p] - at));
      req.emplace_back();
      MPI_Isend(data[p] + at, len, MPI_BYTE, p, tag, comm, &req.back());
    }
  }
  MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
}

int allgather_layout(MPI_Comm comm, std::int64_t count, std::vector<int>& counts,
                     std::vector<int>& displs) {
  const int size = comm_size(comm);
  std::vector<std::int64_t> all(static_cast<std::size_t>(size));
  MPI_Allgather(&count, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, comm);
  counts.assign(static_cast<std::size_t>(size), 0);
  displs.assign(static_cast<std::size_t>(size), 0);
  std::int64_t total = 0;
  for (int p = 0; p < size; ++p) {
    displs[p] = static_cast<int>(std::min<std::int64_t>(total, INT_MAX));
    counts[p] = static_cast<int>(std::min<std::int64_t>(all[p], INT_MAX));
    total += all[p];
  }
  if (total > INT_MAX)  // every rank sees the same counts, so every rank throws
    throw CollectiveError("an all-gather of " + std::to_string(total) +
                          " items exceeds the MPI count limit of 2^31 - 1");
  return static_cast<int>(total);
}

void allgatherv_items_raw(MPI_Comm comm, const void* local, int count, void* out,
                          const std::vector<int>& counts, const std::vector<int>& displs,
                          std::size_t item_bytes) {
  MPI_Datatype item;
  MPI_Type_contiguous(static_cast<int>(item_bytes), MPI_BYTE, &item);
  MPI_Type_commit(&item);
  MPI_Allgatherv(local, count, item, out, counts.data(), displs.data(), item, comm);
  MPI_Type_free(&item);
}

}  // namespace detail
}  // namespace lsgl
