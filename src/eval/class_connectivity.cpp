// Class connectivity: weight shares between pairs of labels and on wrong edges.
#include "lsgl/eval/class_connectivity.hpp"

#include "lsgl/util/memory.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl {

ClassConnectivity class_connectivity(const CsrGhosts& ghosts, const LocalCsr& m,
                                     const NodeLabels& labels) {
  MPI_Comm comm = ghosts.comm();
  const int C = labels.num_classes();
  const std::int64_t nl = m.local_rows();
  const std::vector<std::int32_t> cls = ghosts.extended(labels.index);
  const auto& slot = ghosts.slot();
  ClassConnectivity out;
  out.classes = labels.classes;
  out.nodes.assign(C, 0);
  check_allocation(comm, 16.0 * C * C, std::to_string(C) + " labels' class-pair table");
  std::vector<double> sum(static_cast<std::size_t>(C) * C + 1, 0.0);  // last: total
  for (std::int64_t r = 0; r < nl; ++r) {
    const int a = labels.index[r];
    if (a < 0) continue;  // unlabelled: its edges are not counted
    ++out.nodes[a];
    double* row = sum.data() + static_cast<std::size_t>(a) * C;
    for (std::int64_t e = m.indptr[r]; e < m.indptr[r + 1]; ++e) {
      if (cls[slot[e]] < 0) continue;
      row[cls[slot[e]]] += m.data[e];
      sum.back() += m.data[e];
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, sum.data(), static_cast<int>(sum.size()), MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(MPI_IN_PLACE, out.nodes.data(), C, MPI_INT64_T, MPI_SUM, comm);
  out.total = sum.back();
  out.share.assign(static_cast<std::size_t>(C) * C, 0.0);
  if (out.total > 0) {
    for (int a = 0; a < C; ++a)
      for (int b = 0; b < C; ++b) {
        // Exactly symmetric: the two directions hold the same weights, summed in other orders.
        const double s =
            0.5 *
            (sum[static_cast<std::size_t>(a) * C + b] + sum[static_cast<std::size_t>(b) * C + a]) /
            out.total;
        out.share[static_cast<std::size_t>(a) * C + b] = s;
        if (a != b) out.wrong_share += s;
      }
  }
  return out;
}

}  // namespace lsgl
