#include "lsgl/util/mpi.hpp"

#include <sys/resource.h>

#include <algorithm>

namespace lsgl {

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

namespace detail {

std::vector<char> alltoallv_bytes_raw(MPI_Comm comm, const std::vector<const char*>& data,
                                      const std::vector<std::int64_t>& bytes) {
  const int size = comm_size(comm);
  std::vector<std::int64_t> recv_bytes(size, 0);
  MPI_Alltoall(bytes.data(), 1, MPI_INT64_T, recv_bytes.data(), 1, MPI_INT64_T, comm);
  std::vector<std::int64_t> offset(size + 1, 0);
  for (int p = 0; p < size; ++p) offset[p + 1] = offset[p] + recv_bytes[p];
  std::vector<char> out(static_cast<std::size_t>(offset[size]));

  constexpr std::int64_t kChunk = std::int64_t(1) << 30;
  std::vector<MPI_Request> req;
  for (int p = 0; p < size; ++p) {
    int tag = 0;
    for (std::int64_t at = 0; at < recv_bytes[p]; at += kChunk, ++tag) {
      const int len = static_cast<int>(std::min(kChunk, recv_bytes[p] - at));
      req.emplace_back();
      MPI_Irecv(out.data() + offset[p] + at, len, MPI_BYTE, p, tag, comm, &req.back());
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
  return out;
}

}  // namespace detail
}  // namespace lsgl
