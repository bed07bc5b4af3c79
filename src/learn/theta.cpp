#include "lsgl/learn/theta.hpp"

#include <algorithm>
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

namespace {

// Sums over the local nodes of [KP19] Thm. 3's finite bounds for k: lower, upper, count lower,
// count upper.
void local_bound_sums(const Candidates& cand, int k, double* sums) {
  for (int j = 0; j < 4; ++j) sums[j] = 0.0;
  for (std::int64_t r = 0; r < cand.local_rows(); ++r) {
    const auto [lo, up] = theta_interval(cand.dist.data() + r * cand.m, k);
    if (std::isfinite(lo)) {
      sums[0] += lo;
      sums[2] += 1;
    }
    if (std::isfinite(up)) {
      sums[1] += up;
      sums[3] += 1;
    }
  }
}

// [KP19] eq. 18: theta = sqrt(mean lower * mean upper) from the global sums of local_bound_sums
// (1.1 * mean lower when no upper bound is finite, as for k == 1); 0 when no lower bound is.
double eq18_theta(const double* sums) {
  if (sums[2] == 0) return 0.0;
  const double lower = sums[0] / sums[2];
  return sums[3] == 0 ? 1.1 * lower : std::sqrt(lower * sums[1] / sums[3]);
}

}  // namespace

// [KP19] eq. 18: theta = sqrt(mean lower * mean upper), means over all nodes.
ThetaChoice theta_from_k(MPI_Comm comm, const Candidates& cand, int k) {
  collective_check(comm, k >= 1 && cand.m > k,
                   "theta from k needs more candidates per node than k (k = " +
                       std::to_string(k) + ", candidates = " + std::to_string(cand.m) +
                       "): raise --r, or give --theta");
  double local[4];
  local_bound_sums(cand, k, local);
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
  c.upper_mean = global[3] > 0 ? global[1] / global[3] : 0.0;
  c.theta = eq18_theta(global);
  return c;
}

// d log k / d log theta along [KP19] eq. 18's k -> theta: the secant between k - 1 (k when
// k == 2, eq. 18 being another rule at 1) and k + 1.
double eq18_degree_slope(MPI_Comm comm, const Candidates& cand, int k) {
  const int lo = std::max(2, k - 1), hi = k + 1;
  if (k < 2 || cand.m <= hi) return 0.0;
  double local[8], global[8];
  local_bound_sums(cand, lo, local);
  local_bound_sums(cand, hi, local + 4);
  MPI_Allreduce(local, global, 8, MPI_DOUBLE, MPI_SUM, comm);
  const double theta_lo = eq18_theta(global), theta_hi = eq18_theta(global + 4);
  if (!(theta_lo > 0 && theta_hi > 0) || theta_lo == theta_hi) return 0.0;
  return std::log(static_cast<double>(hi) / lo) / std::log(theta_hi / theta_lo);
}

}  // namespace lsgl
