#include "sample.hpp"

#include <climits>
#include <numeric>

#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl::ann {

std::vector<float> hashed_sample(const LocalRows& data, std::int64_t want, std::uint64_t seed,
                                 std::vector<std::uint64_t>& hash) {
  const double share = static_cast<double>(want) / static_cast<double>(data.n);
  std::vector<float> out;
  hash.clear();
  for (std::int64_t l = 0; l < data.local_rows(); ++l) {
    const std::uint64_t h = row_hash(seed, data.begin + l);
    if (in_share(h, share)) {
      out.insert(out.end(), data.row(l), data.row(l) + data.d);
      hash.push_back(h);
    }
  }
  return out;
}

std::vector<float> gather_on_root(MPI_Comm comm, const std::vector<float>& mine) {
  const int size = comm_size(comm);
  const long long bytes = static_cast<long long>(mine.size() * sizeof(float));
  std::vector<long long> all(size);
  MPI_Allgather(&bytes, 1, MPI_LONG_LONG, all.data(), 1, MPI_LONG_LONG, comm);
  const long long total = std::accumulate(all.begin(), all.end(), 0LL);
  collective_check(comm, total < INT_MAX, "candidates: a sample of the rows above 2 GB");
  std::vector<int> counts(size), displs(size, 0);
  for (int r = 0; r < size; ++r) {
    counts[r] = static_cast<int>(all[r]);
    if (r > 0) displs[r] = displs[r - 1] + counts[r - 1];
  }
  std::vector<float> out(comm_rank(comm) == 0 ? static_cast<std::size_t>(total) / sizeof(float)
                                              : 0);
  MPI_Gatherv(mine.data(), static_cast<int>(bytes), MPI_BYTE, out.data(), counts.data(),
              displs.data(), MPI_BYTE, 0, comm);
  return out;
}

}  // namespace lsgl::ann
