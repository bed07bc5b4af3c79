#include "lsgl/learn/log_model.hpp"

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

namespace {

// Relative change ||diff|| / ||prev|| without dividing by zero.
double relative(double diff2, double prev2) {
  if (prev2 > 0.0) return std::sqrt(diff2 / prev2);
  return diff2 > 0.0 ? std::numeric_limits<double>::infinity() : 0.0;
}

// Prox of the conjugate of -alpha * sum log (alpha = 1): p = (y - sqrt(y^2 + 4 gamma)) / 2.
inline double prox_log_conjugate(double y, double gamma) {
  return 0.5 * (y - std::sqrt(y * y + 4.0 * gamma));
}

}  // namespace

// Forward-backward-forward iteration (Kalofolias 2016 Alg. 1) on S/c (c = dual_scale), fused so that each iteration makes
// one pass over the edges, one over the nodes, one forward and one reverse node exchange and one
// all-reduce. With D = w - Y kept per edge:
//   nodes: y = v + g S w / c;  p = prox(y);  q = p + g S P / c;  v <- v - y + q
//   edges: Q = P - g (2 P + S^T p / c);  w <- Q + D  (= w - Y + Q);
//          then the next iteration's  Y = w - g (2 w + S^T v / c),  D = w - Y,
//          P = max(0, Y - 2 g z)
std::vector<double> learn_log(const EdgeSet& edges, const std::vector<double>& tz,
                              const SolverParams& params, SolverReport& report,
                              const IterationCallback& on_iteration) {
  const std::int64_t nl = edges.local_nodes(), ne = edges.local_edges();
  const auto& ptr = edges.anchor_ptr();
  const auto& other = edges.other();

  report.norm_S = edges.norm_S(params.norm_iterations);
  const double beta = 1.0;
  const double si = 1.0 / params.dual_scale;
  const double g = params.step / (2.0 * beta + report.norm_S * si);
  report.gamma = g;
  report.bytes_sent_per_iteration = 2 * edges.bytes_sent_per_exchange(2);
  // Per edge: read w, D, P, tz, other (36 B), write w, D, P (24 B); per local or ghost node
  // slot: the two 2-valued node vectors written and read (64 B); per local node: v (16 B).
  report.bytes_moved_per_iteration =
      ne * 60 + (nl + static_cast<std::int64_t>(edges.ghosts().size())) * 64 + nl * 16;

  std::vector<double> w(ne, 0.0), D(ne, 0.0), P(ne, 0.0), v(nl, 0.0);
  auto acc = edges.make_node_vector(2);  // (S w, S P) per node
  auto pv = edges.make_node_vector(2);   // (p, new v) per node, forwarded to ghosts
  // With w = 0, v = 0: Y = 0, D = 0, P = max(0, -2 g z) = 0, so S w = S P = 0.

  report.converged = false;
  const double t0 = MPI_Wtime();
  for (int it = 1; it <= params.max_iterations; ++it) {
    // Node phase.
    double sums[4] = {0, 0, 0, 0};  // |w_new - w|^2, |w|^2, |q - y|^2, |v|^2
    const double* a2 = acc->values();
    double* out = pv->values();
    for (std::int64_t i = 0; i < nl; ++i) {
      const double y = v[i] + g * si * a2[2 * i];
      const double p = prox_log_conjugate(y, g);
      const double q = p + g * si * a2[2 * i + 1];
      sums[2] += (q - y) * (q - y);
      sums[3] += v[i] * v[i];
      v[i] += q - y;
      out[2 * i] = p;
      out[2 * i + 1] = v[i];
    }
    pv->forward();

    // Edge phase: finish this iteration, start the next one.
    const double* x = pv->values();
    double* s = acc->values();
    std::fill(s, s + 2 * (nl + static_cast<std::int64_t>(edges.ghosts().size())), 0.0);
    for (std::int64_t a = 0; a < nl; ++a) {
      const double pa = x[2 * a], va = x[2 * a + 1];
      double sw = 0.0, sp = 0.0;
      for (std::int64_t e = ptr[a]; e < ptr[a + 1]; ++e) {
        const std::int32_t b = other[e];
        const double Q = P[e] - g * (2.0 * beta * P[e] + si * (pa + x[2 * b]));
        const double wn = Q + D[e];
        sums[0] += (wn - w[e]) * (wn - w[e]);
        sums[1] += w[e] * w[e];
        w[e] = wn;
        const double De = g * (2.0 * beta * wn + si * (va + x[2 * b + 1]));
        const double Pn = std::max(0.0, wn - De - 2.0 * g * tz[e]);
        D[e] = De;
        P[e] = Pn;
        sw += wn;
        sp += Pn;
        s[2 * b] += wn;
        s[2 * b + 1] += Pn;
      }
      s[2 * a] += sw;
      s[2 * a + 1] += sp;
    }
    acc->reverse_add();
    MPI_Allreduce(MPI_IN_PLACE, sums, 4, MPI_DOUBLE, MPI_SUM, edges.comm());

    report.iterations = it;
    report.rel_change_primal = relative(sums[0], sums[1]);
    report.rel_change_dual = relative(sums[2], sums[3]);
    if (on_iteration) on_iteration(it, report.rel_change_primal, report.rel_change_dual);
    if (it > 1 && report.rel_change_primal < params.tol && report.rel_change_dual < params.tol) {
      report.converged = true;
      break;
    }
  }
  report.iteration_seconds = MPI_Wtime() - t0;
  // The forward-backward-forward iterate w is feasible only in the limit (P is the projected
  // point); remove the round-off-sized negative entries that remain.
  for (auto& x : w) x = std::max(0.0, x);
  return w;
}

}  // namespace lsgl
