// MPEC-EPM and MPEC-ADM (see relaxations.hpp).
#include <cmath>

#include "lsgl/dpcd/continuous.hpp"
#include "lsgl/dpcd/relaxations.hpp"

namespace lsgl::dpcd {

namespace {

// The v-step of both methods (Yuan & Ghanem, the closed form of the ball constraint):
// w = 2v - 1 = sqrt(n) u / ||u||, u = 2x - 1 (w = 0 when u = 0).
struct Complement {
  std::vector<double> w;
  double sum_w = 0.0;  // 1^T w
};

Complement v_step(const FixedPointGraph& g, const std::vector<double>& x) {
  const std::int64_t n = g.n();
  Complement c;
  c.w.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) c.w[i] = 2.0 * x[i] - 1.0;
  const double norm = std::sqrt(dot(g.comm, c.w, c.w, n));
  const double scale = norm > 0 ? std::sqrt(static_cast<double>(n)) / norm : 0.0;
  for (double& v : c.w) v *= scale;
  c.sum_w = fixed_point_total(g.comm, c.w, n);
  return c;
}

// n - <u, w> with <u, w> = 2 <x, w> - 1^T w.
double gap(const FixedPointGraph& g, double xw, const Complement& c) {
  return static_cast<double>(g.n()) - (2.0 * xw - c.sum_w);
}

// Both methods: `penalty(c, weight, pi)` is the x-step's term; after each v-step pi grows by
// weight * gap when `multiplier` (ADM).
RelaxationResult mpec(const FixedPointGraph& g, std::int64_t k, const MpecOptions& o,
                      bool multiplier, const char* method) {
  check_size(g, k, method);
  check_options(g.comm, o);
  GraphProduct W(g);
  AscentState s = ascent_start(g, W, k);
  Complement c = v_step(g, s.x);
  s.xw = dot(g.comm, s.x, c.w, g.n());
  RelaxationResult r;
  r.objective.push_back(s.xwx);
  double weight = o.rho, pi = 0.0;
  const double n = static_cast<double>(g.n());
  while (r.iterations < o.max_iterations && !r.converged) {
    ScalarPenalty p;
    p.w = c.w;
    const double sum_w = c.sum_w;
    if (multiplier) {
      // -pi (n - <u, w>) - (alpha / 2) (n - <u, w>)^2
      p.value = [=](double xw) {
        const double d = n - (2.0 * xw - sum_w);
        return -pi * d - 0.5 * weight * d * d;
      };
      p.slope = [=](double xw) { return 2.0 * pi + 2.0 * weight * (n - (2.0 * xw - sum_w)); };
    } else {
      // -rho (n - <u, w>)
      p.value = [=](double xw) { return -weight * (n - (2.0 * xw - sum_w)); };
      p.slope = [=](double) { return 2.0 * weight; };
    }
    int steps = 0;
    ascend(g, W, k, p, o.inner_iterations, o.inner_tol, s, &steps);
    r.inner += steps;
    c = v_step(g, s.x);
    s.xw = dot(g.comm, s.x, c.w, g.n());
    const double d = gap(g, s.xw, c);
    if (multiplier) pi += weight * d;
    ++r.iterations;
    r.objective.push_back(s.xwx);
    r.converged = d <= o.gap_tol;
    if (r.iterations % o.every == 0) weight *= o.growth;
  }
  r.members = round_top_k(g, s.x, k, method);
  r.products = W.products();
  return r;
}

}  // namespace

RelaxationResult mpec_epm(const FixedPointGraph& g, std::int64_t k, const MpecOptions& o) {
  return mpec(g, k, o, false, "mpec-epm");
}

RelaxationResult mpec_adm(const FixedPointGraph& g, std::int64_t k, const MpecOptions& o) {
  return mpec(g, k, o, true, "mpec-adm");
}

}  // namespace lsgl::dpcd
