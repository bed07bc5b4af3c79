// The log model's objective, its dual scale and the choice between its two solvers.
#include "lsgl/learn/solvers/log.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "lsgl/learn/theta.hpp"

namespace lsgl {

double log_objective(const EdgeSet& edges, const std::vector<double>& tz,
                     const std::vector<double>& w) {
  auto deg = edges.make_node_vector(1);
  edges.apply_S(w, *deg);
  double local = 0.0;
  for (std::int64_t e = 0; e < edges.local_edges(); ++e) local += 2.0 * w[e] * tz[e] + w[e] * w[e];
  for (std::int64_t i = 0; i < edges.local_nodes(); ++i) {
    const double d = deg->values()[i];
    local += d > 0.0 ? -std::log(d) : std::numeric_limits<double>::infinity();
  }
  double global = 0.0;
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, edges.comm());
  return global;
}

double estimate_dual_scale(MPI_Comm comm, const Candidates& cand, double theta) {
  double sums[2] = {0.0, 0.0};  // sum ||w_i||^2, sum lambda_i^2
  std::vector<double> z(cand.m);
  for (std::int64_t r = 0; r < cand.local_rows(); ++r) {
    for (int j = 0; j < cand.m; ++j) z[j] = theta * cand.dist[r * cand.m + j];
    const OneNodeSolution s = one_node_solve(z, 1.0);
    for (double x : s.w) sums[0] += x * x;
    sums[1] += s.lambda * s.lambda;
  }
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, comm);
  if (!(sums[1] > 0.0)) return 1.0;
  return std::clamp(std::sqrt(sums[0] / 2.0 / sums[1]), 0.02, 1.0);
}

std::vector<double> learn_log(const EdgeSet& edges, const std::vector<double>& tz,
                              const SolverParams& params, SolverReport& report,
                              const IterationCallback& on_iteration, const SolverState* start) {
  if (params.solver == SolverKind::kFdpg)
    return learn_log_fdpg(edges, tz, params, report, on_iteration, start);
  return learn_log_fbf(edges, tz, params, report, on_iteration, start);
}

}  // namespace lsgl
