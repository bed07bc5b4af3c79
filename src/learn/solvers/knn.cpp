#include "lsgl/learn/solvers/knn.hpp"

#include <algorithm>
#include <cmath>

#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/reproducible_sum.hpp"

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
  const std::int64_t rows = cand.local_rows();
  double largest = 0.0;
  for (std::int64_t r = 0; r < rows; ++r)
    largest = std::max(largest, cand.dist[r * cand.m + k - 1]);
  const std::int64_t n = allreduce_sum(comm, rows);
  // A fixed-point sum: the same bits on any number of ranks (a floating-point all-reduce of
  // per-rank sums changed sigma, and every weight, in the last bits with the rank count).
  ReproducibleSum sum(allreduce_max_double(comm, largest), n);
  for (std::int64_t r = 0; r < rows; ++r) sum.add(cand.dist[r * cand.m + k - 1]);
  const double total = sum.result(comm);
  const double mean = n > 0 ? total / static_cast<double>(n) : 0.0;
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
