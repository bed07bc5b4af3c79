#include "lsgl/learn/solvers/knn.hpp"

#include <cmath>

#include "lsgl/util/error.hpp"

namespace lsgl {

Candidates first_k(const Candidates& cand, int k) {
  if (k >= cand.m) return cand;
  Candidates out;
  out.begin = cand.begin;
  out.m = k;
  const std::int64_t rows = cand.local_rows();
  out.idx.reserve(rows * k);
  out.dist.reserve(rows * k);
  for (std::int64_t r = 0; r < rows; ++r)
    for (int c = 0; c < k; ++c) {
      out.idx.push_back(cand.idx[r * cand.m + c]);
      out.dist.push_back(cand.dist[r * cand.m + c]);
    }
  return out;
}

double knn_default_sigma2(MPI_Comm comm, const Candidates& cand, int k) {
  collective_check(comm, k >= 1 && k <= cand.m, "knn: k must be between 1 and the list length");
  double sums[2] = {0.0, static_cast<double>(cand.local_rows())};
  for (std::int64_t r = 0; r < cand.local_rows(); ++r) sums[0] += cand.dist[r * cand.m + k - 1];
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, comm);
  const double mean = sums[1] > 0 ? sums[0] / sums[1] : 0.0;
  return mean > 0.0 ? mean : 1.0;
}

std::vector<double> knn_weights(const EdgeSet& edges, double sigma2) {
  std::vector<double> w(edges.local_edges());
  for (std::int64_t e = 0; e < edges.local_edges(); ++e) w[e] = std::exp(-edges.z()[e] / sigma2);
  return w;
}

void keep_mutual(const std::vector<double>& listings, std::vector<double>& w) {
  for (std::size_t e = 0; e < w.size(); ++e)
    if (listings[e] < 2) w[e] = 0.0;
}

}  // namespace lsgl
