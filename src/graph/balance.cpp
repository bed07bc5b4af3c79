#include "lsgl/graph/balance.hpp"

#include <algorithm>

namespace lsgl {

std::vector<std::int64_t> balanced_starts(MPI_Comm comm, const LocalCsr& m) {
  const int size = comm_size(comm);
  const std::int64_t rows = m.local_rows();
  const std::int64_t work = static_cast<std::int64_t>(m.indices.size()) + rows;
  const std::int64_t before = exscan_sum(comm, work);
  const std::int64_t total = allreduce_sum(comm, work);
  // proposal[p]: the first local row whose work before it reaches ceil(p * total / size), or n.
  std::vector<std::int64_t> proposal(static_cast<std::size_t>(size) + 1, m.n), starts(proposal);
  std::int64_t r = 0;
  for (int p = 1; p < size; ++p) {
    const auto target =
        static_cast<std::int64_t>((static_cast<__int128>(p) * total + size - 1) / size);
    while (r < rows && before + m.indptr[r] + r < target) ++r;
    if (r < rows) proposal[p] = m.begin + r;
  }
  proposal[0] = 0;
  MPI_Allreduce(proposal.data(), starts.data(), size + 1, MPI_INT64_T, MPI_MIN, comm);
  return starts;
}

namespace {

// Row r's destination in `target` is the block holding its global id; rows ascend, so the
// destinations of a rank's rows are contiguous and the received rows arrive in node order.
template <class T, class Take>
std::vector<T> route(MPI_Comm comm, const LocalCsr& m, const Partition& target,
                     std::vector<T>& source, Take&& take) {
  std::vector<std::vector<T>> send(static_cast<std::size_t>(target.size));
  for (std::int64_t r = 0; r < m.local_rows(); ++r) take(send[target.owner(m.begin + r)], r);
  std::vector<T>().swap(source);
  return alltoallv(comm, send);
}

}  // namespace

LocalCsr balance_rows(MPI_Comm comm, LocalCsr m) {
  Partition target(m.n, comm_size(comm));
  target.starts = balanced_starts(comm, m);
  std::vector<std::int64_t> length(static_cast<std::size_t>(m.local_rows()));
  for (std::int64_t r = 0; r < m.local_rows(); ++r) length[r] = m.indptr[r + 1] - m.indptr[r];
  LocalCsr out;
  out.n = m.n;
  out.begin = target.begin(comm_rank(comm));
  out.indices = route(comm, m, target, m.indices, [&](auto& to, std::int64_t r) {
    to.insert(to.end(), m.indices.begin() + m.indptr[r], m.indices.begin() + m.indptr[r + 1]);
  });
  out.data = route(comm, m, target, m.data, [&](auto& to, std::int64_t r) {
    to.insert(to.end(), m.data.begin() + m.indptr[r], m.data.begin() + m.indptr[r + 1]);
  });
  const std::vector<std::int64_t> lengths =
      route(comm, m, target, length, [&](auto& to, std::int64_t r) { to.push_back(length[r]); });
  out.indptr.assign(1, 0);
  out.indptr.reserve(lengths.size() + 1);
  for (const std::int64_t l : lengths) out.indptr.push_back(out.indptr.back() + l);
  return out;
}

}  // namespace lsgl
