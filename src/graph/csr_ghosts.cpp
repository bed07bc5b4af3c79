#include "lsgl/graph/csr_ghosts.hpp"

#include <algorithm>

namespace lsgl {

CsrGhosts::CsrGhosts(MPI_Comm comm, const LocalCsr& m)
    : comm_(comm), part_(partition_of_blocks(comm, m.n, m.begin)), local_rows_(m.local_rows()) {
  const std::int64_t lo = m.begin, hi = m.begin + local_rows_;
  for (const std::int64_t j : m.indices)
    if (j < lo || j >= hi) ghosts_.push_back(j);
  std::sort(ghosts_.begin(), ghosts_.end());
  ghosts_.erase(std::unique(ghosts_.begin(), ghosts_.end()), ghosts_.end());

  slot_.resize(m.indices.size());
  for (std::size_t e = 0; e < m.indices.size(); ++e) {
    const std::int64_t j = m.indices[e];
    if (j >= lo && j < hi) {
      slot_[e] = j - lo;
    } else {
      const auto it = std::lower_bound(ghosts_.begin(), ghosts_.end(), j);
      slot_[e] = local_rows_ + (it - ghosts_.begin());
    }
  }

  const int size = comm_size(comm);
  std::vector<std::vector<std::int64_t>> request(size);
  for (const std::int64_t g : ghosts_) request[part_.owner(g)].push_back(g);
  // What every rank asks of this one, grouped by asking rank: a second all-to-all of the counts
  // is avoided by sending each list with its length in front.
  std::vector<std::vector<std::int64_t>> framed(size);
  for (int p = 0; p < size; ++p) {
    framed[p].push_back(static_cast<std::int64_t>(request[p].size()));
    framed[p].insert(framed[p].end(), request[p].begin(), request[p].end());
  }
  const std::vector<std::int64_t> asked = alltoallv(comm, framed);
  send_rows_.assign(size, {});
  std::size_t at = 0;
  for (int p = 0; p < size; ++p) {
    const std::int64_t count = asked[at++];
    send_rows_[p].reserve(static_cast<std::size_t>(count));
    for (std::int64_t k = 0; k < count; ++k) send_rows_[p].push_back(asked[at++] - lo);
  }
}

}  // namespace lsgl
