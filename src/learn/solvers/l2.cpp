#include "lsgl/learn/solvers/l2.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "lsgl/util/error.hpp"

namespace lsgl {

double l2_objective(const EdgeSet& edges, double alpha, const std::vector<double>& w) {
  auto deg = edges.make_node_vector(1);
  edges.apply_S(w, *deg);
  double local = 0.0;
  for (std::int64_t e = 0; e < edges.local_edges(); ++e)
    local += 2.0 * w[e] * edges.z()[e] + 2.0 * alpha * w[e] * w[e];
  for (std::int64_t i = 0; i < edges.local_nodes(); ++i)
    local += alpha * deg->values()[i] * deg->values()[i];
  double global = 0.0;
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, edges.comm());
  return global;  // [KP19] eq. 4
}

double project_scaled_simplex(MPI_Comm comm, std::vector<double>& y, double total,
                              double hint, int* steps) {
  // f(tau) = sum max(0, y - tau) - total is convex, decreasing and piecewise linear. A Newton
  // step from tau < tau* stays left of tau* and changes the active set {y > tau} until it is
  // that of tau*. The first step is from the hint when f(hint) >= 0 (hint <= tau*), else from
  // tau = -inf (every entry active). The active set only shrinks, so each pass runs over the
  // entries still active (kept compact in a scratch buffer, branch-free).
  static thread_local std::vector<double> active;
  double sums[2];  // sum and count of the active entries
  auto compact_from = [&](const double* src, std::size_t count, double at) {
    active.resize(count);
    double sum = 0.0;
    std::size_t kept = 0;
    for (std::size_t t = 0; t < count; ++t) {
      const double v = src[t];
      active[kept] = v;
      const bool keep = v > at;
      sum += keep ? v : 0.0;
      kept += keep ? 1 : 0;
    }
    active.resize(kept);
    sums[0] = sum;
    sums[1] = static_cast<double>(kept);
  };
  const double minus_inf = -std::numeric_limits<double>::infinity();
  double tau = std::isfinite(hint) ? hint : minus_inf;
  compact_from(y.data(), y.size(), tau);
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, comm);
  int step = 1;
  if (tau != minus_inf && sums[0] - sums[1] * tau - total < 0.0) {
    tau = minus_inf;  // the hint is right of tau*
    compact_from(y.data(), y.size(), tau);
    MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, comm);
    ++step;
  }
  for (; step < 10000; ++step) {
    if (sums[1] == 0.0) break;  // cannot happen from the left; guards round-off
    const double next = (sums[0] - total) / sums[1];
    if (!(next > tau)) break;
    tau = next;
    const double before = sums[1];
    compact_from(active.data(), active.size(), tau);
    MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, comm);
    if (sums[1] == before) break;  // same active set: tau is exact
  }
  if (steps) *steps = step;
  for (double& v : y) v = std::max(0.0, v - tau);
  return tau;
}

std::vector<double> learn_l2(const EdgeSet& edges, double alpha, const L2Params& params,
                             L2Report& report, const std::vector<double>* start) {
  MPI_Comm comm = edges.comm();
  const std::int64_t ne = edges.local_edges();
  const double total = 0.5 * static_cast<double>(edges.n());  // 2 * 1^T w = n
  report.norm_S = params.norm_S > 0 ? params.norm_S : edges.norm_S(params.norm_iterations);
  // Gradient 2 z + 2 alpha (S^T S + 2 I) w: Lipschitz 2 alpha (||S||^2 + 2) (with a 2% margin
  // on the power-iteration estimate of ||S||), strong convexity 4 alpha.
  const double L = 2.0 * alpha * (1.02 * report.norm_S * report.norm_S + 2.0);
  const double q = std::sqrt(L / (4.0 * alpha));
  const double momentum = (q - 1.0) / (q + 1.0);

  std::vector<double> w;
  if (start) {
    w = *start;
    project_scaled_simplex(comm, w, total);
  } else {
    w.assign(ne, total / static_cast<double>(edges.global_edges()));
  }
  std::vector<double> y = w, next(ne), sts(ne);
  auto deg = edges.make_node_vector(1);
  const auto& z = edges.z();
  double tau = -std::numeric_limits<double>::infinity();
  report.converged = false;
  report.projection_steps = 0;
  report.iterations = 0;
  for (int it = 1; it <= params.max_iterations; ++it) {
    edges.apply_S(y, *deg);
    edges.apply_St(*deg, sts);
    for (std::int64_t e = 0; e < ne; ++e)
      next[e] = y[e] - (2.0 * z[e] + 2.0 * alpha * sts[e] + 4.0 * alpha * y[e]) / L;
    int steps = 0;
    tau = project_scaled_simplex(comm, next, total, tau, &steps);
    report.projection_steps += steps;
    double sums[2] = {0.0, 0.0};
    for (std::int64_t e = 0; e < ne; ++e) {
      const double d = next[e] - w[e];
      sums[0] += d * d;
      sums[1] += w[e] * w[e];
      y[e] = next[e] + momentum * d;
    }
    MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, comm);
    w.swap(next);
    report.iterations = it;
    report.rel_change = sums[1] > 0 ? std::sqrt(sums[0] / sums[1]) : 0.0;
    params.monitor->iteration({"l2", it, "rel. change", report.rel_change, 0.0, ""});
    if (report.rel_change < params.tol) {
      report.converged = true;
      break;
    }
  }
  return w;
}

std::vector<double> l2_to_degree(const EdgeSet& edges, double k, double threshold,
                                 const L2Params& params, const DegreeTarget& target,
                                 L2Search& search, const L2SolveCallback& on_solve) {
  double zsum = 0.0;
  for (double v : edges.z()) zsum += v;
  MPI_Allreduce(MPI_IN_PLACE, &zsum, 1, MPI_DOUBLE, MPI_SUM, edges.comm());
  double alpha0 = zsum / static_cast<double>(edges.global_edges());
  if (!(alpha0 > 0.0)) alpha0 = 1.0;

  search = L2Search();
  L2Params lp = params;
  if (!(lp.norm_S > 0)) lp.norm_S = edges.norm_S(params.norm_iterations);
  DegreeSearchParams dp;
  dp.k = k;
  dp.tolerance = target.tol;
  dp.max_solves = target.tol > 0 ? target.max_solves : 1;
  dp.decreasing = false;
  std::vector<double> last, best;
  double best_deviation = std::numeric_limits<double>::infinity();
  const auto solve = [&](const DegreeSolve& q) -> std::optional<DegreeTrial> {
    L2Report rep;
    std::vector<double> w = learn_l2(edges, q.x, lp, rep, last.empty() ? nullptr : &last);
    const double degree = average_degree(edges, w, threshold);
    ++search.solves;
    search.iterations += rep.iterations;
    search.all_converged = search.all_converged && rep.converged;
    if (on_solve) on_solve(q.x, degree, rep);
    if (std::abs(degree - k) < best_deviation) {  // the trial search_degree keeps
      best_deviation = std::abs(degree - k);
      best = w;
      search.alpha = q.x;
      search.avg_degree = degree;
      search.last = rep;
    }
    last = std::move(w);
    return DegreeTrial{q.x, degree, rep.iterations, true};
  };
  search.reached = search_degree(dp, alpha0, solve).reached;
  return best;
}

}  // namespace lsgl
