#include "lsgl/graph/balance.hpp"

#include <algorithm>
#include <numeric>

namespace lsgl {

std::vector<std::int64_t> balanced_starts(MPI_Comm comm, const LocalCsr& m) {
  const int size = comm_size(comm);
  const std::int64_t rows = m.local_rows();
  const std::int64_t at = m.indptr.front();  // 0, or the file offset of the first row's entries
  const std::int64_t work = m.indptr.back() - at + rows;
  const std::int64_t before = exscan_sum(comm, work);
  const std::int64_t total = allreduce_sum(comm, work);
  // proposal[p]: the first local row whose work before it reaches ceil(p * total / size), or n.
  std::vector<std::int64_t> proposal(static_cast<std::size_t>(size) + 1, m.n), starts(proposal);
  std::int64_t r = 0;
  for (int p = 1; p < size; ++p) {
    const auto target =
        static_cast<std::int64_t>((static_cast<__int128>(p) * total + size - 1) / size);
    while (r < rows && before + m.indptr[r] - at + r < target) ++r;
    if (r < rows) proposal[p] = m.begin + r;
  }
  proposal[0] = 0;
  MPI_Allreduce(proposal.data(), starts.data(), size + 1, MPI_INT64_T, MPI_MIN, comm);
  return starts;
}

namespace {

// The rows of `m` go to the block of `target` holding their global ids; rows ascend, so each
// destination gets one contiguous run of rows ([first[p], first[p + 1]) in local rows) and the
// received rows arrive in node order.
std::vector<std::int64_t> destination_runs(const LocalCsr& m, const Partition& target) {
  std::vector<std::int64_t> first(static_cast<std::size_t>(target.size) + 1);
  for (int p = 0; p <= target.size; ++p)
    first[p] = std::clamp(target.begin(p) - m.begin, std::int64_t{0}, m.local_rows());
  return first;
}

// Collective. source[offset[first[p]] .. offset[first[p + 1]]) to rank p, for every p; `source`
// is freed once packed.
template <class T>
std::vector<T> route(MPI_Comm comm, const std::vector<std::int64_t>& first,
                     const std::vector<std::int64_t>& offset, std::vector<T>& source) {
  std::vector<std::vector<T>> send(first.size() - 1);
  for (std::size_t p = 0; p + 1 < first.size(); ++p)
    send[p].assign(source.begin() + offset[first[p]], source.begin() + offset[first[p + 1]]);
  std::vector<T>().swap(source);
  return alltoallv(comm, send);
}

}  // namespace

LocalCsr balance_rows(MPI_Comm comm, LocalCsr m) {
  Partition target(m.n, comm_size(comm));
  target.starts = balanced_starts(comm, m);
  int moved = target.starts[comm_rank(comm)] != m.begin;
  MPI_Allreduce(MPI_IN_PLACE, &moved, 1, MPI_INT, MPI_MAX, comm);
  if (!moved) return m;
  const std::vector<std::int64_t> first = destination_runs(m, target);
  std::vector<std::int64_t> length(static_cast<std::size_t>(m.local_rows())),
      row(length.size() + 1);
  for (std::int64_t r = 0; r < m.local_rows(); ++r) length[r] = m.indptr[r + 1] - m.indptr[r];
  std::iota(row.begin(), row.end(), std::int64_t{0});  // offsets of the lengths: one per row
  LocalCsr out;
  out.n = m.n;
  out.begin = target.begin(comm_rank(comm));
  out.indices = route(comm, first, m.indptr, m.indices);
  out.data = route(comm, first, m.indptr, m.data);
  const std::vector<std::int64_t> lengths = route(comm, first, row, length);
  out.indptr.assign(1, 0);
  out.indptr.reserve(lengths.size() + 1);
  for (const std::int64_t l : lengths) out.indptr.push_back(out.indptr.back() + l);
  return out;
}

}  // namespace lsgl
