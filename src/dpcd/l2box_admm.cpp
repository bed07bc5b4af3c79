// Wu & Ghanem's lp-box ADMM (p = 2) for the dense k-subgraph (see relaxations.hpp).
#include <algorithm>
#include <cmath>

#include "lsgl/dpcd/continuous.hpp"
#include "lsgl/dpcd/relaxations.hpp"

namespace lsgl::dpcd {

namespace {

// M p = (rho1 + rho2) p - 2 W p + rho3 (1^T p) 1: the x-update's matrix with A = -W, C = 1^T.
struct XMatrix {
  const FixedPointGraph& g;
  GraphProduct& W;
  double diag = 0.0, rho3 = 0.0;
  std::vector<double> wp;
  void apply(const std::vector<double>& p, std::vector<double>& out) {
    W.apply(p, wp);
    const double sum = fixed_point_total(g.comm, p, g.n());
    out.resize(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) out[i] = diag * p[i] - 2.0 * wp[i] + rho3 * sum;
  }
};

// Conjugate gradients for M x = rhs from x (MATLAB's pcg without a preconditioner): stops when
// ||r|| <= tol ||rhs||; at a non-positive curvature p^T M p <= 0 (M is indefinite while
// rho1 + rho2 < 2 lambda_max(W)) or at the cap it returns the iterate of least residual.
// Returns the iterations made.
int conjugate_gradients(XMatrix& M, const std::vector<double>& rhs, std::vector<double>& x,
                        double tol, int max_iterations) {
  MPI_Comm comm = M.g.comm;
  const std::int64_t n = M.g.n();
  const std::size_t nl = x.size();
  const double rhs2 = dot(comm, rhs, rhs, n);
  if (rhs2 == 0.0) {
    std::fill(x.begin(), x.end(), 0.0);
    return 0;
  }
  std::vector<double> r(nl), p, q;
  M.apply(x, q);
  for (std::size_t i = 0; i < nl; ++i) r[i] = rhs[i] - q[i];
  double rr = dot(comm, r, r, n);
  const double goal = tol * tol * rhs2;
  if (rr <= goal) return 0;
  std::vector<double> best = x;
  double best_rr = rr;
  p = r;
  int it = 0;
  bool solved = false;
  while (it < max_iterations) {
    M.apply(p, q);
    const double pq = dot(comm, p, q, n);
    if (!(pq > 0) || !std::isfinite(pq)) break;
    ++it;
    const double alpha = rr / pq;
    for (std::size_t i = 0; i < nl; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    const double rr_new = dot(comm, r, r, n);
    if (rr_new < best_rr) {
      best_rr = rr_new;
      best = x;
    }
    if (rr_new <= goal) {
      solved = true;
      break;
    }
    const double beta = rr_new / rr;
    for (std::size_t i = 0; i < nl; ++i) p[i] = r[i] + beta * p[i];
    rr = rr_new;
  }
  if (!solved) x.swap(best);
  return it;
}

// y1 = clip(x + z1 / rho1, 0, 1): the box step.
void box_step(const std::vector<double>& x, const std::vector<double>& z1, double rho1,
              std::vector<double>& y1) {
  for (std::size_t i = 0; i < x.size(); ++i) y1[i] = std::clamp(x[i] + z1[i] / rho1, 0.0, 1.0);
}

// y2 = 1/2 + (sqrt(n) / 2) u / ||u||, u = x + z2 / rho2 - 1/2: the sphere step (u = 0 keeps u).
void sphere_step(const FixedPointGraph& g, const std::vector<double>& x,
                 const std::vector<double>& z2, double rho2, std::vector<double>& y2) {
  for (std::size_t i = 0; i < x.size(); ++i) y2[i] = x[i] + z2[i] / rho2 - 0.5;
  const double norm = std::sqrt(dot(g.comm, y2, y2, g.n()));
  const double scale = norm > 0 ? 0.5 * std::sqrt(static_cast<double>(g.n())) / norm : 1.0;
  for (double& v : y2) v = 0.5 + scale * v;
}

// Relative standard deviation of the last `h` objectives (MATLAB's std, n - 1), infinite
// before there are h of them.
double relative_spread(const std::vector<double>& obj, int h) {
  if (static_cast<int>(obj.size()) < h) return HUGE_VAL;
  double mean = 0.0, var = 0.0;
  for (int i = 0; i < h; ++i) mean += obj[obj.size() - 1 - i];
  mean /= h;
  for (int i = 0; i < h; ++i)
    var += (obj[obj.size() - 1 - i] - mean) * (obj[obj.size() - 1 - i] - mean);
  return std::sqrt(var / (h - 1)) / std::max(std::fabs(obj.back()), 2.220446049250313e-16);
}

}  // namespace

RelaxationResult l2box_admm(const FixedPointGraph& g, std::int64_t k, const L2boxOptions& o) {
  check_size(g, k, "l2box-admm");
  check_options(g.comm, o);
  MPI_Comm comm = g.comm;
  const std::int64_t n = g.n();
  const std::size_t nl = static_cast<std::size_t>(g.local_rows());
  GraphProduct W(g);
  std::vector<double> x = degree_start(g, k), y1 = x, y2 = x, z1(nl, 0.0), z2(nl, 0.0), rhs(nl), wx,
                      d(nl);
  double z3 = 0.0, rho1 = o.rho, rho2 = o.rho, rho3 = o.rho, gamma = o.gamma;
  RelaxationResult r;
  W.apply(x, wx);
  r.objective.push_back(dot(comm, x, wx, n));
  std::vector<double> costs;  // x^T A x + b^T x = -x^T W x per iteration
  std::vector<std::int64_t> best = round_top_k(g, x, k, "l2box-admm");
  std::int64_t best_xwx = evaluate_subgraph(g, best).xwx;
  XMatrix M{g, W, 0.0, 0.0, {}};
  while (r.iterations < o.max_iterations) {
    box_step(x, z1, rho1, y1);
    sphere_step(g, x, z2, rho2, y2);
    for (std::size_t i = 0; i < nl; ++i)
      rhs[i] = rho1 * y1[i] + rho2 * y2[i] + rho3 * static_cast<double>(k) - (z1[i] + z2[i] + z3);
    M.diag = rho1 + rho2;
    M.rho3 = rho3;
    x = y1;
    r.inner += conjugate_gradients(M, rhs, x, o.cg_tol, o.cg_max_iterations);
    for (std::size_t i = 0; i < nl; ++i) {
      z1[i] += gamma * rho1 * (x[i] - y1[i]);
      z2[i] += gamma * rho2 * (x[i] - y2[i]);
    }
    z3 += gamma * rho3 * (fixed_point_total(comm, x, n) - static_cast<double>(k));
    for (std::size_t i = 0; i < nl; ++i) d[i] = x[i] - y1[i];
    double res = std::sqrt(dot(comm, d, d, n));
    for (std::size_t i = 0; i < nl; ++i) d[i] = x[i] - y2[i];
    res = std::max(res, std::sqrt(dot(comm, d, d, n))) / static_cast<double>(n);
    W.apply(x, wx);
    const double xwx = dot(comm, x, wx, n);
    r.objective.push_back(xwx);
    costs.push_back(-xwx);
    ++r.iterations;
    // As the published loop: the counter, 1 before the first iteration, is advanced first.
    if ((r.iterations + 1) % o.rho_every == 0) {
      rho1 *= o.rho_growth;
      rho2 *= o.rho_growth;
      rho3 *= o.rho_growth;
      gamma = std::max(gamma * o.gamma_factor, 1.0);
    }
    std::vector<std::int64_t> set = round_top_k(g, x, k, "l2box-admm");
    const std::int64_t v = evaluate_subgraph(g, set).xwx;
    if (v > best_xwx) {
      best_xwx = v;
      best.swap(set);
    }
    if (res < o.stop || relative_spread(costs, o.history) < o.std_tol) {
      r.converged = true;
      break;
    }
  }
  r.members = std::move(best);
  r.products = W.products();
  return r;
}

}  // namespace lsgl::dpcd
