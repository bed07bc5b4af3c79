// The baselines' B-step solvers on the SDH loss (see bstep_baselines.hpp).
#include "lsgl/hash/bstep_baselines.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>

#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl::hash {

namespace {

// X A for X local x r (row-major): (X F) F^T with the factor, else X A.
std::vector<double> times_a(const CodeObjective& f, const std::vector<double>& X) {
  const int r = f.bits;
  const int m = static_cast<int>(X.size() / static_cast<std::size_t>(r));
  std::vector<double> out(X.size(), 0.0);
  if (m == 0) return out;
  if (f.factor) {
    const int c = static_cast<int>(f.factor->cols);
    std::vector<double> t(static_cast<std::size_t>(m) * c);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, c, r, 1.0, X.data(), r,
                f.factor->a.data(), c, 0.0, t.data(), c);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, r, c, 1.0, t.data(), c,
                f.factor->a.data(), c, 0.0, out.data(), r);
  } else {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, r, r, 1.0, X.data(), r, f.A->a.data(),
                r, 0.0, out.data(), r);
  }
  return out;
}

// Reproducible sum over all samples of one value per local sample.
double total(const CodeObjective& f, const std::vector<double>& per_sample) {
  return sample_column_sums(f.comm, *f.blocks, per_sample.data(), 1,
                            static_cast<std::int64_t>(per_sample.size()))[0];
}

// sum_i x_i^T (s A) x_i + l_i^T x_i over all samples, XA = X A; l = lin_scale * (c + lin_shift
// * A 1) per sample (the SDH objective: s = 1, lin_scale = -2, lin_shift = 0).
double quadratic(const CodeObjective& f, const std::vector<double>& X,
                 const std::vector<double>& XA, double s, double lin_scale,
                 const std::vector<double>& shift) {
  const int r = f.bits;
  const std::size_t m = X.size() / static_cast<std::size_t>(r);
  std::vector<double> v(m, 0.0);
  for (std::size_t i = 0; i < m; ++i)
    for (int k = 0; k < r; ++k) {
      const std::size_t e = i * r + k;
      const double lin = (*f.c)[e] + (shift.empty() ? 0.0 : shift[k]);
      v[i] += X[e] * (s * XA[e] + lin_scale * lin);
    }
  return total(f, v);
}

double sdh_value(const CodeObjective& f, const std::vector<double>& X) {
  return quadratic(f, X, times_a(f, X), 1.0, -2.0, {});
}

std::int8_t sign_keep(double v, std::int8_t old) { return v > 0 ? 1 : v < 0 ? -1 : old; }

// The sum of squares of v over all samples (reproducible).
double squared_norm(const CodeObjective& f, const std::vector<double>& v) {
  const int r = f.bits;
  std::vector<double> per(v.size() / static_cast<std::size_t>(r), 0.0);
  for (std::size_t e = 0; e < v.size(); ++e) per[e / r] += v[e] * v[e];
  return total(f, per);
}

}  // namespace

int sgm_bstep(const CodeObjective& f, std::vector<std::int8_t>& codes, int max_iterations) {
  std::vector<double> X(codes.begin(), codes.end());
  int it = 0;
  while (it < max_iterations) {
    ++it;
    const std::vector<double> XA = times_a(f, X);
    std::int64_t changed = 0;
    for (std::size_t e = 0; e < X.size(); ++e) {
      const std::int8_t b = sign_keep((*f.c)[e] - XA[e], codes[e]);
      changed += b != codes[e];
      codes[e] = b;
      X[e] = b;
    }
    if (changed == 0) break;  // a fixed point of this rank's samples stays one
  }
  return static_cast<int>(allreduce_max(f.comm, it));
}

int lp_bstep(const CodeObjective& f, std::vector<std::int8_t>& codes, const dpcd::LpOptions& o) {
  const double L = 2.0 * largest_eigenvalue(*f.A);
  std::vector<double> X(codes.begin(), codes.end());
  int it = 0;
  if (!(L > 0)) {  // A = 0: the box minimiser is sgn(c)
    for (std::size_t e = 0; e < X.size(); ++e) X[e] = (*f.c)[e];
    it = 1;
  } else {
    double value = sdh_value(f, X);
    while (it < o.max_iterations) {
      ++it;
      const std::vector<double> XA = times_a(f, X);
      for (std::size_t e = 0; e < X.size(); ++e)
        X[e] = std::clamp(X[e] - 2.0 * (XA[e] - (*f.c)[e]) / L, -1.0, 1.0);
      const double next = sdh_value(f, X);
      const bool done = !(value - next > o.tol * std::fabs(next));
      value = next;
      if (done) break;
    }
  }
  for (std::size_t e = 0; e < X.size(); ++e) codes[e] = sign_keep(X[e], codes[e]);
  return it;
}

namespace {

// The lp-box ADMM state on x = (b + 1) / 2; the objective x^T A' x + b'^T x per sample with
// A' = 4A, b' = -4 (A 1 + c).
struct BoxSphere {
  const CodeObjective& f;
  std::vector<double> a_ones;  // A 1
  double N = 0.0;              // bits of all codes
  // x^T A' x + b'^T x summed over the samples.
  double cost(const std::vector<double>& x) const {
    return quadratic(f, x, times_a(f, x), 4.0, -4.0, a_ones);
  }
};

// (2 A' + rho I)^{-1} = (8 A + rho I)^{-1}.
Mat x_update_inverse(const Mat& A, double rho) {
  Mat eye(A.rows, A.rows), A8 = A;
  for (std::int64_t k = 0; k < A.rows; ++k) eye(k, k) = 1.0;
  for (double& v : A8.a) v *= 8.0;
  return solve_spd(A8, rho, eye);
}

}  // namespace

int l2box_bstep(const CodeObjective& f, std::vector<std::int8_t>& codes,
                const dpcd::L2boxOptions& o) {
  const int r = f.bits;
  const std::size_t size = codes.size();
  BoxSphere P{f, std::vector<double>(static_cast<std::size_t>(r), 0.0),
              static_cast<double>(f.blocks->n) * r};
  for (int k = 0; k < r; ++k)
    for (int l = 0; l < r; ++l) P.a_ones[k] += (*f.A)(k, l);
  // From the centre x = 1/2 (b = 0); the given codes are the best binary point so far.
  std::vector<double> x(size, 0.5), y1, y2, z1(size, 0.0), z2(size, 0.0), rhs(size), diff(size);
  y1 = x;
  y2 = x;
  double rho1 = o.rho, rho2 = o.rho, gamma = o.gamma;
  std::vector<double> start(size);
  for (std::size_t e = 0; e < size; ++e) start[e] = 0.5 * (codes[e] + 1);
  double best = P.cost(start);
  std::vector<double> costs;
  Mat inv;
  collectively(f.comm, [&] { inv = x_update_inverse(*f.A, rho1 + rho2); });
  int it = 0;
  while (it < o.max_iterations) {
    for (std::size_t e = 0; e < size; ++e) y1[e] = std::clamp(x[e] + z1[e] / rho1, 0.0, 1.0);
    for (std::size_t e = 0; e < size; ++e) y2[e] = x[e] + z2[e] / rho2 - 0.5;
    const double norm = std::sqrt(squared_norm(f, y2));
    const double scale = norm > 0 ? 0.5 * std::sqrt(P.N) / norm : 1.0;
    for (double& v : y2) v = 0.5 + scale * v;
    for (std::size_t e = 0; e < size; ++e)
      rhs[e] = rho1 * y1[e] + rho2 * y2[e] + 4.0 * (P.a_ones[e % r] + (*f.c)[e]) - z1[e] - z2[e];
    const int m = static_cast<int>(size / static_cast<std::size_t>(r));
    if (m > 0)
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, r, r, 1.0, rhs.data(), r,
                  inv.a.data(), r, 0.0, x.data(), r);
    for (std::size_t e = 0; e < size; ++e) {
      z1[e] += gamma * rho1 * (x[e] - y1[e]);
      z2[e] += gamma * rho2 * (x[e] - y2[e]);
    }
    const double xnorm = std::max(std::sqrt(squared_norm(f, x)), 2.220446049250313e-16);
    for (std::size_t e = 0; e < size; ++e) diff[e] = x[e] - y1[e];
    double res = std::sqrt(squared_norm(f, diff));
    for (std::size_t e = 0; e < size; ++e) diff[e] = x[e] - y2[e];
    res = std::max(res, std::sqrt(squared_norm(f, diff))) / xnorm;
    costs.push_back(P.cost(x));
    // The best binary point so far (x >= 1/2); ties take the later one, as the published code.
    std::vector<double> bin(size);
    for (std::size_t e = 0; e < size; ++e) bin[e] = x[e] >= 0.5 ? 1.0 : 0.0;
    const double c = P.cost(bin);
    if (c <= best) {
      best = c;
      for (std::size_t e = 0; e < size; ++e) codes[e] = bin[e] > 0 ? 1 : -1;
    }
    ++it;
    if (it % o.rho_every == 0) {
      rho1 *= o.rho_growth;
      rho2 *= o.rho_growth;
      gamma = std::max(gamma * o.gamma_factor, 1.0);
      collectively(f.comm, [&] { inv = x_update_inverse(*f.A, rho1 + rho2); });
    }
    bool flat = false;
    if (static_cast<int>(costs.size()) >= o.history) {
      double mean = 0.0, var = 0.0;
      for (int i = 0; i < o.history; ++i) mean += costs[costs.size() - 1 - i];
      mean /= o.history;
      for (int i = 0; i < o.history; ++i)
        var += (costs[costs.size() - 1 - i] - mean) * (costs[costs.size() - 1 - i] - mean);
      flat = std::sqrt(var / (o.history - 1)) / std::fabs(costs.back()) < o.std_tol;
    }
    if (res < o.stop || flat) break;
  }
  return it;
}

int mpec_epm_bstep(const CodeObjective& f, std::vector<std::int8_t>& codes,
                   const dpcd::MpecOptions& o) {
  const double L = 2.0 * largest_eigenvalue(*f.A);
  const std::size_t size = codes.size();
  const double N = static_cast<double>(f.blocks->n) * f.bits;
  // From the centre b = 0 (v = 0: the first x-step is the box relaxation).
  std::vector<double> X(size, 0.0), V(size, 0.0);
  double rho = o.rho;
  int it = 0;
  while (it < o.max_iterations) {
    // x-step: projected gradient on f(b) - rho <b, v> over the box, step 1 / (L + tiny).
    const double step = 1.0 / std::max(L, 1e-12);
    for (int t = 0; t < o.inner_iterations; ++t) {
      const std::vector<double> XA = times_a(f, X);
      for (std::size_t e = 0; e < size; ++e)
        X[e] = std::clamp(X[e] - step * (2.0 * (XA[e] - (*f.c)[e]) - rho * V[e]), -1.0, 1.0);
    }
    // v-step: v = sqrt(N) b / ||b||.
    const double norm = std::sqrt(squared_norm(f, X));
    const double scale = norm > 0 ? std::sqrt(N) / norm : 0.0;
    for (std::size_t e = 0; e < size; ++e) V[e] = scale * X[e];
    ++it;
    const double gap = N - std::sqrt(N) * norm;  // N - <b, v>
    if (gap <= o.gap_tol) break;
    if (it % o.every == 0) rho *= o.growth;
  }
  for (std::size_t e = 0; e < size; ++e) codes[e] = sign_keep(X[e], codes[e]);
  return it;
}

}  // namespace lsgl::hash
