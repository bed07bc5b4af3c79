#pragma once
// Ghost nodes of a row-distributed sparse matrix (LocalCsr, rows in contiguous blocks in rank
// order, equal or not):
// the columns of this rank's rows that belong to other ranks, and an exchange that copies the
// owners' values of a node vector into them. Used by the eval measures (components, BFS, label
// propagation, class connectivity) on the symmetric weight matrix W.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "lsgl/graph/local_csr.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl {

class CsrGhosts {
 public:
  // Collective. Finds the ghost columns of `m` (global indices outside this rank's block) and
  // agrees with their owners on what to send. The column indices must lie in [0, m.n) (see
  // check_graph). Cost: one all-to-all of the ghost lists.
  CsrGhosts(MPI_Comm comm, const LocalCsr& m);

  MPI_Comm comm() const { return comm_; }
  const Partition& partition() const { return part_; }
  std::int64_t local_rows() const { return local_rows_; }
  // Sorted global indices of the ghost nodes.
  const std::vector<std::int64_t>& ghosts() const { return ghosts_; }
  std::int64_t num_ghosts() const { return static_cast<std::int64_t>(ghosts_.size()); }
  // Per stored entry e of the matrix: its column as a slot, local row index r in
  // [0, local_rows) for a local column, local_rows + g for ghost g. Local.
  const std::vector<std::int64_t>& slot() const { return slot_; }

  // Collective. ghost_out[g] = the owner's local_values[...] of ghost g. T trivially copyable.
  template <class T>
  void exchange(const std::vector<T>& local_values, std::vector<T>& ghost_out) const;

  // Collective. Convenience: local values followed by the ghost values (indexable by slot()).
  template <class T>
  std::vector<T> extended(const std::vector<T>& local_values) const {
    std::vector<T> ghost;
    exchange(local_values, ghost);
    std::vector<T> out(local_values);
    out.insert(out.end(), ghost.begin(), ghost.end());
    return out;
  }

 private:
  MPI_Comm comm_;
  Partition part_;
  std::int64_t local_rows_ = 0;
  std::vector<std::int64_t> ghosts_;
  std::vector<std::int64_t> slot_;
  // For each rank p: local row indices whose values p needs, in p's ghost order.
  std::vector<std::vector<std::int64_t>> send_rows_;
};

template <class T>
void CsrGhosts::exchange(const std::vector<T>& local_values, std::vector<T>& ghost_out) const {
  std::vector<std::vector<T>> send(send_rows_.size());
  for (std::size_t p = 0; p < send_rows_.size(); ++p) {
    send[p].reserve(send_rows_[p].size());
    for (const std::int64_t r : send_rows_[p]) send[p].push_back(local_values[r]);
  }
  // Ghosts are sorted by global index, hence grouped by owner in rank order, which is the
  // order alltoallv concatenates the received blocks in.
  ghost_out = alltoallv(comm_, send);
}

}  // namespace lsgl
