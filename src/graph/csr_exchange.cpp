// Gathering a distributed CSR matrix on rank 0 (see csr_exchange.hpp). Point-to-point messages
// in chunks, so counts never overflow an MPI int.
#include "lsgl/graph/csr_exchange.hpp"

#include <algorithm>

namespace lsgl {

namespace {

constexpr std::int64_t kChunk = std::int64_t(1) << 24;  // elements per message

void send_vec(MPI_Comm comm, const std::vector<std::int64_t>& v, int tag) {
  for (std::int64_t at = 0; at < static_cast<std::int64_t>(v.size()); at += kChunk) {
    const int len = static_cast<int>(std::min<std::int64_t>(kChunk, v.size() - at));
    MPI_Send(v.data() + at, len, MPI_INT64_T, 0, tag, comm);
  }
}

// Sends the column indices as 32-bit integers, converted one message at a time.
void send_indices(MPI_Comm comm, const std::vector<std::int64_t>& v, int tag) {
  std::vector<std::uint32_t> buf;
  for (std::int64_t at = 0; at < static_cast<std::int64_t>(v.size()); at += kChunk) {
    const std::int64_t len = std::min<std::int64_t>(kChunk, v.size() - at);
    buf.resize(static_cast<std::size_t>(len));
    std::transform(v.begin() + at, v.begin() + at + len, buf.begin(),
                   [](std::int64_t j) { return static_cast<std::uint32_t>(j); });
    MPI_Send(buf.data(), static_cast<int>(len), MPI_UINT32_T, 0, tag, comm);
  }
}

template <class T>
void recv_into(MPI_Comm comm, T* dst, std::int64_t count, MPI_Datatype type, int src, int tag) {
  for (std::int64_t at = 0; at < count; at += kChunk) {
    const int len = static_cast<int>(std::min<std::int64_t>(kChunk, count - at));
    MPI_Recv(dst + at, len, type, src, tag, comm, MPI_STATUS_IGNORE);
  }
}

}  // namespace

RootCsr gather_rows_to_root(MPI_Comm comm, const LocalCsr& m,
                            const std::vector<std::int64_t>* values) {
  const int size = comm_size(comm), rank = comm_rank(comm);
  const std::int64_t rows = m.local_rows(), nnz = static_cast<std::int64_t>(m.indices.size());
  std::vector<std::int64_t> counts(2 * size);
  const std::int64_t mine[2] = {rows, nnz};
  MPI_Gather(mine, 2, MPI_INT64_T, counts.data(), 2, MPI_INT64_T, 0, comm);
  RootCsr out;
  out.n = m.n;
  if (rank != 0) {
    send_vec(comm, m.indptr, 1);
    send_indices(comm, m.indices, 2);
    if (values) send_vec(comm, *values, 3);
    return out;
  }
  std::int64_t total_nnz = 0;
  for (int p = 0; p < size; ++p) total_nnz += counts[2 * p + 1];
  out.indptr.assign(m.n + 1, 0);
  out.indices.resize(static_cast<std::size_t>(total_nnz));
  if (values) out.values.resize(static_cast<std::size_t>(total_nnz));
  std::int64_t row_at = 0, nnz_at = 0;
  std::vector<std::int64_t> ptr;
  for (int p = 0; p < size; ++p) {
    const std::int64_t pr = counts[2 * p], pn = counts[2 * p + 1];
    if (p == 0) {
      ptr = m.indptr;
      std::transform(m.indices.begin(), m.indices.end(), out.indices.begin(),
                     [](std::int64_t j) { return static_cast<std::uint32_t>(j); });
      if (values) std::copy(values->begin(), values->end(), out.values.begin());
    } else {
      ptr.resize(static_cast<std::size_t>(pr + 1));
      recv_into(comm, ptr.data(), pr + 1, MPI_INT64_T, p, 1);
      recv_into(comm, out.indices.data() + nnz_at, pn, MPI_UINT32_T, p, 2);
      if (values) recv_into(comm, out.values.data() + nnz_at, pn, MPI_INT64_T, p, 3);
    }
    for (std::int64_t r = 0; r <= pr; ++r) out.indptr[row_at + r] = nnz_at + ptr[r];
    row_at += pr;
    nnz_at += pn;
  }
  return out;
}

}  // namespace lsgl
