// Building blocks of the continuous-relaxation baselines (see continuous.hpp).
#include "lsgl/dpcd/continuous.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "lsgl/util/error.hpp"
#include "lsgl/util/select.hpp"

namespace lsgl::dpcd {

GraphProduct::GraphProduct(const FixedPointGraph& g) : g_(g), ghosts_(g.comm, g.rows) {}

void GraphProduct::apply(const std::vector<double>& x, std::vector<double>& y) {
  ghosts_.exchange(x, ghost_x_);
  const std::int64_t nl = g_.local_rows();
  const std::vector<std::int64_t>& slot = ghosts_.slot();
  y.assign(static_cast<std::size_t>(nl), 0.0);
  for (std::int64_t r = 0; r < nl; ++r) {
    double acc = 0.0;
    for (std::int64_t e = g_.rows.indptr[r]; e < g_.rows.indptr[r + 1]; ++e) {
      const std::int64_t s = slot[e];
      acc += g_.rows.data[e] * (s < nl ? x[s] : ghost_x_[s - nl]);
    }
    y[r] = acc;
  }
  ++products_;
}

namespace {

// Exponent b such that |t| * 2^b * (terms) < 2^62 for every |t| <= bound.
int fixed_point_exponent(double bound, std::int64_t n) {
  const int e =
      std::ilogb(bound) + 1 + std::ilogb(static_cast<double>(std::max<std::int64_t>(n, 1))) + 1;
  return 62 - e;
}

}  // namespace

double fixed_point_total(MPI_Comm comm, const std::vector<double>& terms, std::int64_t n) {
  double bound = 0.0;
  bool finite = true;
  for (double t : terms) {
    finite = finite && std::isfinite(t);
    bound = std::max(bound, std::fabs(t));
  }
  bound = allreduce_max_double(comm, finite ? bound : HUGE_VAL);
  if (!std::isfinite(bound)) return std::numeric_limits<double>::quiet_NaN();
  if (bound == 0.0) return 0.0;
  // Level 1: t rounded to a multiple of 2^-b1 (exact: |q| < 2^53, or t * 2^b1 is already an
  // integer); level 2: the residual t - q 2^-b1 (exact by Sterbenz), at most 2^-(b1 + 1).
  const int b1 = fixed_point_exponent(bound, n);
  const int b2 = fixed_point_exponent(std::ldexp(1.0, -b1 - 1), n);
  long long acc[2] = {0, 0};
  for (double t : terms) {
    const double q = std::nearbyint(std::ldexp(t, b1));
    acc[0] += static_cast<long long>(q);
    acc[1] += static_cast<long long>(std::nearbyint(std::ldexp(t - std::ldexp(q, -b1), b2)));
  }
  MPI_Allreduce(MPI_IN_PLACE, acc, 2, MPI_LONG_LONG, MPI_SUM, comm);
  return std::ldexp(static_cast<double>(acc[0]), -b1) +
         std::ldexp(static_cast<double>(acc[1]), -b2);
}

double dot(MPI_Comm comm, const std::vector<double>& a, const std::vector<double>& b,
           std::int64_t n) {
  std::vector<double> t(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) t[i] = a[i] * b[i];
  return fixed_point_total(comm, t, n);
}

namespace {

// phi(tau) = sum_i clip(v_i - tau, 0, 1) on the piece of tau: phi = above + sum_mid - mid * tau,
// `above` the entries with v_i >= tau + 1, `mid` those with tau < v_i < tau + 1.
struct Piece {
  std::int64_t above = 0, mid = 0;
  double sum_mid = 0.0;
  double phi(double tau) const { return static_cast<double>(above) + sum_mid - mid * tau; }
};

Piece piece_at(MPI_Comm comm, const std::vector<double>& v, double tau, double bound,
               std::int64_t n) {
  // The same two-level sum as fixed_point_total, with the bound of all |v| (one all-reduce).
  const int b1 = fixed_point_exponent(bound, n);
  const int b2 = fixed_point_exponent(std::ldexp(1.0, -b1 - 1), n);
  long long acc[4] = {0, 0, 0, 0};
  for (double t : v) {
    if (t >= tau + 1.0) {
      ++acc[0];
    } else if (t > tau) {
      ++acc[1];
      const double q = std::nearbyint(std::ldexp(t, b1));
      acc[2] += static_cast<long long>(q);
      acc[3] += static_cast<long long>(std::nearbyint(std::ldexp(t - std::ldexp(q, -b1), b2)));
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, acc, 4, MPI_LONG_LONG, MPI_SUM, comm);
  Piece p;
  p.above = acc[0];
  p.mid = acc[1];
  p.sum_mid =
      std::ldexp(static_cast<double>(acc[2]), -b1) + std::ldexp(static_cast<double>(acc[3]), -b2);
  return p;
}

}  // namespace

std::vector<double> project_capped_simplex(MPI_Comm comm, const std::vector<double>& v,
                                           std::int64_t k, std::int64_t n, double* tau) {
  double lo = HUGE_VAL, hi = -HUGE_VAL, bound = 0.0;
  for (double t : v) {
    lo = std::min(lo, t);
    hi = std::max(hi, t);
    bound = std::max(bound, std::fabs(t));
  }
  lo = -allreduce_max_double(comm, -lo) - 1.0;  // phi(lo) = n >= k
  hi = allreduce_max_double(comm, hi);          // phi(hi) = 0 <= k
  bound = std::max(allreduce_max_double(comm, bound), 1.0);
  collective_check(comm, std::isfinite(lo) && std::isfinite(hi),
                   "capped-simplex projection of a vector with a NaN or infinite entry");
  const double kd = static_cast<double>(k);
  double t = (tau && std::isfinite(*tau) && *tau > lo && *tau < hi) ? *tau : 0.5 * (lo + hi);
  if (k >= n) t = lo;
  Piece p = k < n ? piece_at(comm, v, t, bound, n) : Piece{};
  for (int it = 0; it < 200 && k < n; ++it) {
    const double phi = p.phi(t);
    if (phi == kd || (p.mid == 0 && p.above == k)) break;
    (phi > kd ? lo : hi) = t;
    double next = p.mid > 0 ? (static_cast<double>(p.above) + p.sum_mid - kd) / p.mid : HUGE_VAL;
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (next == t || hi - lo <= 4 * std::numeric_limits<double>::epsilon() * (std::fabs(lo) + 1))
      break;
    // On the root's piece Newton lands on the root: stop when the piece does not change.
    const Piece q = piece_at(comm, v, next, bound, n);
    const bool same = q.above == p.above && q.mid == p.mid && q.sum_mid == p.sum_mid;
    t = next;
    p = q;
    if (same) break;
  }
  if (tau) *tau = t;
  std::vector<double> x(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) x[i] = std::clamp(v[i] - t, 0.0, 1.0);
  return x;
}

std::vector<std::int64_t> round_top_k(const FixedPointGraph& g, const std::vector<double>& x,
                                      std::int64_t k, const char* method) {
  bool finite = true;
  for (double v : x) finite = finite && std::isfinite(v);
  collective_check(g.comm, finite,
                   std::string(method) +
                       ": the continuous iterate has a NaN or infinite entry "
                       "(the weights may be too large for its parameters)");
  std::vector<SelectKey> keys(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    keys[i] = make_key(encode_double(x[i]), encode_int(g.degree[i]),
                       g.begin() + static_cast<std::int64_t>(i));
  const std::vector<char> mask = select_top(g.comm, keys, k);
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < mask.size(); ++i)
    if (mask[i]) out.push_back(g.begin() + static_cast<std::int64_t>(i));
  return out;
}

std::vector<double> degree_start(const FixedPointGraph& g, std::int64_t k) {
  std::int64_t total = 0;  // fixed point: exact
  for (auto d : g.degree) total += d;
  total = allreduce_sum(g.comm, total);
  std::vector<double> v(static_cast<std::size_t>(g.local_rows()));
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = total > 0 ? static_cast<double>(k) * static_cast<double>(g.degree[i]) /
                           static_cast<double>(total)
                     : static_cast<double>(k) / static_cast<double>(g.n());
  double tau = 0.0;
  return project_capped_simplex(g.comm, v, k, g.n(), &tau);
}

AscentState ascent_start(const FixedPointGraph& g, GraphProduct& W, std::int64_t k) {
  AscentState s;
  s.x = degree_start(g, k);
  W.apply(s.x, s.wx);
  s.xwx = dot(g.comm, s.x, s.wx, g.n());
  s.step = 1.0 / (2.0 * std::max(g.to_double(g.max_degree), 1e-300));
  s.tau = std::numeric_limits<double>::quiet_NaN();
  return s;
}

bool ascend(const FixedPointGraph& g, GraphProduct& W, std::int64_t k, const ScalarPenalty& penalty,
            int max_steps, double tol, AscentState& s, int* steps) {
  const std::int64_t n = g.n();
  const std::size_t nl = s.x.size();
  const bool has_penalty = static_cast<bool>(penalty.value);
  auto h_of = [&](double xwx, double xw) { return xwx + (has_penalty ? penalty.value(xw) : 0.0); };
  std::vector<double> grad(nl), v(nl), d(nl), xn, wxn;
  double h = h_of(s.xwx, s.xw);
  int made = 0;
  bool converged = false;
  for (; made < max_steps && !converged; ++made) {
    const double slope = has_penalty ? penalty.slope(s.xw) : 0.0;
    for (std::size_t i = 0; i < nl; ++i)
      grad[i] = 2.0 * s.wx[i] + (has_penalty ? slope * penalty.w[i] : 0.0);
    double t = s.step * 2.0, hn = h, xwxn = 0, xwn = 0;
    for (int halvings = 0;; ++halvings) {
      for (std::size_t i = 0; i < nl; ++i) v[i] = s.x[i] + t * grad[i];
      double tau = s.tau;
      xn = project_capped_simplex(g.comm, v, k, n, &tau);
      for (std::size_t i = 0; i < nl; ++i) d[i] = xn[i] - s.x[i];
      W.apply(xn, wxn);
      xwxn = dot(g.comm, xn, wxn, n);
      xwn = has_penalty ? dot(g.comm, xn, penalty.w, n) : 0.0;
      hn = h_of(xwxn, xwn);
      const double model = h + dot(g.comm, grad, d, n) - dot(g.comm, d, d, n) / (2.0 * t);
      if (hn >= model || halvings >= 60) {
        s.tau = tau;
        break;
      }
      t *= 0.5;
    }
    converged = !(hn - h > tol * std::fabs(hn));
    s.x.swap(xn);
    s.wx.swap(wxn);
    s.xwx = xwxn;
    s.xw = xwn;
    s.step = t;
    h = hn;
  }
  if (steps) *steps = made;
  return converged;
}

}  // namespace lsgl::dpcd
