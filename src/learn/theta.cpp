#include "lsgl/learn/theta.hpp"

#include <cmath>
#include <limits>

#include "lsgl/util/error.hpp"

namespace lsgl {

// [KP19] Thm. 2: lambda = (theta b + sqrt(theta^2 b^2 + 4 i)) / (2 i).
double one_node_lambda(double theta, double b, int i) {
  const double tb = theta * b;
  return (tb + std::sqrt(tb * tb + 4.0 * i)) / (2.0 * i);
}

// [KP19] Alg. 1 (erratum: the scan ends at the first i with lambda_i <= theta z_i).
OneNodeSolution one_node_solve(const std::vector<double>& z, double theta) {
  OneNodeSolution s;
  const int n = static_cast<int>(z.size());
  if (n == 0) return s;
  // k >= 1 always (lambda_1 > theta z_1); starting at i = 2 keeps round-off at huge theta from
  // ending the scan at i = 1.
  double b = z[0];
  int k = n;
  for (int i = 2; i <= n; ++i) {
    const double lambda_i = one_node_lambda(theta, b + z[i - 1], i);
    if (lambda_i <= theta * z[i - 1]) {
      k = i - 1;
      break;
    }
    b += z[i - 1];
  }
  s.k = k;
  s.lambda = one_node_lambda(theta, b, k);
  s.w.assign(z.size(), 0.0);
  for (int i = 0; i < k; ++i) s.w[i] = std::max(0.0, s.lambda - theta * z[i]);
  return s;
}

// [KP19] Thm. 3: ( 1/sqrt(k z_{k+1}^2 - b_k z_{k+1}), 1/sqrt(k z_k^2 - b_k z_k) ].
// k z^2 - b_k z is evaluated as z * sum_i (z - z_i): a sum of non-negative terms, exactly zero for
// ties, with no cancellation.
std::pair<double, double> theta_interval(const double* z, int k) {
  const double zk = z[k - 1], zk1 = z[k];
  double gap_k = 0.0, gap_k1 = 0.0;
  for (int i = 0; i < k; ++i) {
    gap_k += zk - z[i];
    gap_k1 += zk1 - z[i];
  }
  const double inf = std::numeric_limits<double>::infinity();
  const double den_upper = zk * gap_k, den_lower = zk1 * gap_k1;
  const double upper = den_upper > 0.0 ? 1.0 / std::sqrt(den_upper) : inf;
  const double lower = den_lower > 0.0 ? 1.0 / std::sqrt(den_lower) : inf;
  return {lower, upper};
}

// [KP19] eq. 18: theta = sqrt(mean lower * mean upper), means over all nodes.
ThetaChoice theta_from_k(MPI_Comm comm, const Candidates& cand, int k) {
  collective_check(comm, k >= 1 && cand.m > k,
                   "theta from k needs 1 <= k < number of candidates per node (k = " +
                       std::to_string(k) + ", candidates = " + std::to_string(cand.m) + ")");
  // sums: lower, upper, count lower, count upper
  double local[4] = {0, 0, 0, 0};
  for (std::int64_t r = 0; r < cand.local_rows(); ++r) {
    const auto [lo, up] = theta_interval(cand.dist.data() + r * cand.m, k);
    if (std::isfinite(lo)) {
      local[0] += lo;
      local[2] += 1;
    }
    if (std::isfinite(up)) {
      local[1] += up;
      local[3] += 1;
    }
  }
  double global[4];
  MPI_Allreduce(local, global, 4, MPI_DOUBLE, MPI_SUM, comm);
  std::int64_t n = 0;
  const std::int64_t rows = cand.local_rows();
  MPI_Allreduce(&rows, &n, 1, MPI_INT64_T, MPI_SUM, comm);
  collective_check(comm, global[2] > 0,
                   "cannot choose theta: every node has at least k+1 neighbours at the same "
                   "distance (identical points?)");
  ThetaChoice c;
  c.lower_mean = global[0] / global[2];
  c.nodes_without_lower = n - static_cast<std::int64_t>(global[2]);
  c.nodes_without_upper = n - static_cast<std::int64_t>(global[3]);
  if (k == 1 || global[3] == 0) {
    c.upper_mean = 0.0;
    c.theta = 1.1 * c.lower_mean;
  } else {
    c.upper_mean = global[1] / global[3];
    c.theta = std::sqrt(c.lower_mean * c.upper_mean);
  }
  return c;
}

}  // namespace lsgl
