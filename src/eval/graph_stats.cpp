// Degree statistics of a cleaned graph.
#include "lsgl/eval/graph_stats.hpp"

#include <algorithm>
#include <limits>

#include "lsgl/util/mpi.hpp"

namespace lsgl {

GraphStats graph_stats(MPI_Comm comm, const LocalCsr& m) {
  GraphStats s;
  s.n = m.n;
  const std::int64_t nl = m.local_rows();
  std::int64_t imin = std::numeric_limits<std::int64_t>::max(), imax = 0;
  double wmin = std::numeric_limits<double>::infinity(), wmax = 0, wsum = 0;
  std::int64_t counts[2] = {static_cast<std::int64_t>(m.indices.size()), 0};  // nnz, isolated
  for (std::int64_t r = 0; r < nl; ++r) {
    const std::int64_t deg = m.indptr[r + 1] - m.indptr[r];
    double wd = 0;
    for (std::int64_t e = m.indptr[r]; e < m.indptr[r + 1]; ++e) wd += m.data[e];
    imin = std::min(imin, deg);
    imax = std::max(imax, deg);
    wmin = std::min(wmin, wd);
    wmax = std::max(wmax, wd);
    wsum += wd;
    if (deg == 0) ++counts[1];
  }
  MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_INT64_T, MPI_SUM, comm);
  MPI_Allreduce(MPI_IN_PLACE, &imin, 1, MPI_INT64_T, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, &imax, 1, MPI_INT64_T, MPI_MAX, comm);
  MPI_Allreduce(MPI_IN_PLACE, &wmin, 1, MPI_DOUBLE, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, &wmax, 1, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(MPI_IN_PLACE, &wsum, 1, MPI_DOUBLE, MPI_SUM, comm);
  s.nnz = counts[0];
  s.edges = s.nnz / 2;
  s.isolated = counts[1];
  s.degree_min = imin;
  s.degree_max = imax;
  s.weighted_degree_min = wmin;
  s.weighted_degree_max = wmax;
  s.weighted_degree_mean = wsum / static_cast<double>(m.n);
  s.total_weight = wsum / 2;
  s.avg_degree = static_cast<double>(s.nnz) / static_cast<double>(m.n);
  return s;
}

}  // namespace lsgl
