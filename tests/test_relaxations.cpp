// The continuous-relaxation baselines of `lsgl densest` (lp, l2box-admm, mpec-epm, mpec-adm) and
// dpcd-0: the fixed-point sums and the capped-simplex projection against direct computations,
// each method against an independent serial implementation written here (dense W, sorted
// breakpoints, plain sums), every method against exhaustive search on a 14-node graph, and the
// same sets and histories as on one rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>

#include "lsgl/dpcd/baselines.hpp"
#include "lsgl/dpcd/continuous.hpp"
#include "lsgl/dpcd/relaxations.hpp"
#include "lsgl/graph/symmetrize.hpp"
#include "lsgl/pipeline/densest.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

using namespace lsgl;
using namespace lsgl::dpcd;

namespace {

MPI_Comm world() { return MPI_COMM_WORLD; }

// A graph given as a dense symmetric matrix (identical on every rank), distributed.
FixedPointGraph from_dense(MPI_Comm comm, const std::vector<double>& W, int n) {
  std::vector<DirectedEntry> e;
  if (comm_rank(comm) == 0)
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (W[i * n + j] > 0) e.push_back({i, j, W[i * n + j]});
  return make_fixed_point(comm,
                          symmetrize_entries(comm, n, std::move(e), DuplicateRule::kSum, nullptr));
}

// Random weights in multiples of 1/16 (exact in every sum here), edge probability p, plus an
// optional planted set with probability q.
std::vector<double> random_dense(int n, double p, unsigned seed, int planted = 0, double q = 0.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> W(static_cast<std::size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      const double prob = (i < planted && j < planted) ? q : p;
      if (u(rng) < prob) W[i * n + j] = W[j * n + i] = std::round(1 + 47 * u(rng)) / 16;
    }
  return W;
}

std::vector<std::int64_t> gather_all(MPI_Comm comm, const std::vector<std::int64_t>& mine) {
  auto all = allgather_items(comm, mine);
  std::sort(all.begin(), all.end());
  return all;
}

// This rank's entries of a full vector.
std::vector<double> local_of(const FixedPointGraph& g, const std::vector<double>& full) {
  return {full.begin() + g.begin(), full.begin() + g.begin() + g.local_rows()};
}

double xwx_of(const std::vector<double>& W, int n, const std::vector<std::int64_t>& set) {
  double s = 0;
  for (auto i : set)
    for (auto j : set) s += W[i * n + j];
  return s;
}

// ------------------------------------------------------------------ the serial reference
// Everything below is written from the update rules of relaxations.hpp / continuous.hpp with
// dense products, plain sums in index order and a projection by sorted breakpoints.
struct Ref {
  const std::vector<double>& W;
  int n;
  std::int64_t k;

  std::vector<double> times(const std::vector<double>& x) const {
    std::vector<double> y(n, 0.0);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) y[i] += W[i * n + j] * x[j];
    return y;
  }
  static double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
  }
  double degree(int i) const {
    double s = 0;
    for (int j = 0; j < n; ++j) s += W[i * n + j];
    return s;
  }
  // phi(tau) = sum clip(v - tau, 0, 1) is linear between consecutive breakpoints.
  std::vector<double> project(const std::vector<double>& v) const {
    auto phi = [&](double t) {
      double s = 0;
      for (double a : v) s += std::clamp(a - t, 0.0, 1.0);
      return s;
    };
    std::vector<double> b;
    for (double a : v) {
      b.push_back(a);
      b.push_back(a - 1);
    }
    std::sort(b.begin(), b.end());
    double tau = b.front();
    const double kd = static_cast<double>(k);
    for (std::size_t i = 0; i + 1 < b.size(); ++i) {
      const double p0 = phi(b[i]), p1 = phi(b[i + 1]);
      if (p0 >= kd && p1 <= kd) {
        tau = p0 == p1 ? b[i] : b[i] + (p0 - kd) / (p0 - p1) * (b[i + 1] - b[i]);
        break;
      }
    }
    std::vector<double> x(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) x[i] = std::clamp(v[i] - tau, 0.0, 1.0);
    return x;
  }
  // The k largest entries (ties: larger degree, then smaller index).
  std::vector<std::int64_t> top_k(const std::vector<double>& x) const {
    std::vector<std::int64_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](std::int64_t a, std::int64_t b) {
      if (x[a] != x[b]) return x[a] > x[b];
      return degree(static_cast<int>(a)) > degree(static_cast<int>(b));
    });
    idx.resize(static_cast<std::size_t>(k));
    std::sort(idx.begin(), idx.end());
    return idx;
  }

  struct State {
    std::vector<double> x, wx;
    double xwx = 0, xw = 0, step = 0;
  };
  // x proportional to the weighted degree, sum k, projected.
  std::vector<double> degree_start() const {
    double total = 0;
    for (int i = 0; i < n; ++i) total += degree(i);
    std::vector<double> v(n);
    for (int i = 0; i < n; ++i) v[i] = static_cast<double>(k) * degree(i) / total;
    return project(v);
  }
  State start() const {
    State s;
    s.x = degree_start();
    s.wx = times(s.x);
    s.xwx = dot(s.x, s.wx);
    double dmax = 0;
    for (int i = 0; i < n; ++i) dmax = std::max(dmax, degree(i));
    s.step = 1.0 / (2.0 * dmax);
    return s;
  }
  // Ascent steps on x^T W x + value(<x, w>) with the backtracking rule; true when converged.
  bool ascend(const std::vector<double>& w, const std::function<double(double)>& value,
              const std::function<double(double)>& slope, int steps, double tol, State& s) const {
    const bool pen = static_cast<bool>(value);
    double h = s.xwx + (pen ? value(s.xw) : 0.0);
    for (int it = 0; it < steps; ++it) {
      std::vector<double> g(n), v(n), d(n);
      const double sl = pen ? slope(s.xw) : 0.0;
      for (int i = 0; i < n; ++i) g[i] = 2 * s.wx[i] + (pen ? sl * w[i] : 0.0);
      double t = 2 * s.step;
      std::vector<double> xn, wxn;
      double hn = 0, xwxn = 0, xwn = 0;
      for (int halvings = 0;; ++halvings) {
        for (int i = 0; i < n; ++i) v[i] = s.x[i] + t * g[i];
        xn = project(v);
        for (int i = 0; i < n; ++i) d[i] = xn[i] - s.x[i];
        wxn = times(xn);
        xwxn = dot(xn, wxn);
        xwn = pen ? dot(xn, w) : 0.0;
        hn = xwxn + (pen ? value(xwn) : 0.0);
        if (hn >= h + dot(g, d) - dot(d, d) / (2 * t) || halvings >= 60) break;
        t /= 2;
      }
      const bool done = !(hn - h > tol * std::fabs(hn));
      s.x = xn;
      s.wx = wxn;
      s.xwx = xwxn;
      s.xw = xwn;
      s.step = t;
      h = hn;
      if (done) return true;
    }
    return false;
  }

  RelaxationResult lp(const LpOptions& o) const {
    State s = start();
    RelaxationResult r;
    r.objective.push_back(s.xwx);
    while (r.iterations < o.max_iterations && !r.converged) {
      r.converged = ascend({}, nullptr, nullptr, 1, o.tol, s);
      ++r.iterations;
      r.objective.push_back(s.xwx);
    }
    r.members = top_k(s.x);
    return r;
  }

  RelaxationResult mpec(const MpecOptions& o, bool adm) const {
    State s = start();
    auto vstep = [&](const std::vector<double>& x, std::vector<double>& w, double& sum) {
      w.resize(n);
      double nn = 0;
      for (int i = 0; i < n; ++i) nn += (2 * x[i] - 1) * (2 * x[i] - 1);
      const double sc = nn > 0 ? std::sqrt(static_cast<double>(n)) / std::sqrt(nn) : 0.0;
      sum = 0;
      for (int i = 0; i < n; ++i) {
        w[i] = sc * (2 * x[i] - 1);
        sum += w[i];
      }
    };
    std::vector<double> w;
    double sum_w = 0, weight = o.rho, pi = 0;
    vstep(s.x, w, sum_w);
    s.xw = dot(s.x, w);
    RelaxationResult r;
    r.objective.push_back(s.xwx);
    const double nd = n;
    while (r.iterations < o.max_iterations && !r.converged) {
      const double sw = sum_w, a = weight, p = pi;
      std::function<double(double)> value, slope;
      if (adm) {
        value = [=](double xw) {
          const double d = nd - (2 * xw - sw);
          return -p * d - 0.5 * a * d * d;
        };
        slope = [=](double xw) { return 2 * p + 2 * a * (nd - (2 * xw - sw)); };
      } else {
        value = [=](double xw) { return -a * (nd - (2 * xw - sw)); };
        slope = [=](double) { return 2 * a; };
      }
      ascend(w, value, slope, o.inner_iterations, o.inner_tol, s);
      vstep(s.x, w, sum_w);
      s.xw = dot(s.x, w);
      const double gap = nd - (2 * s.xw - sum_w);
      if (adm) pi += weight * gap;
      ++r.iterations;
      r.objective.push_back(s.xwx);
      r.converged = gap <= o.gap_tol;
      if (r.iterations % o.every == 0) weight *= o.growth;
    }
    r.members = top_k(s.x);
    return r;
  }

  RelaxationResult l2box(const L2boxOptions& o) const {
    const double nd = n, kd = static_cast<double>(k);
    std::vector<double> x = degree_start(), y1 = x, y2 = x, z1(n, 0), z2(n, 0), rhs(n);
    double z3 = 0, r1 = o.rho, r2 = o.rho, r3 = o.rho, gamma = o.gamma;
    RelaxationResult res;
    res.objective.push_back(dot(x, times(x)));
    std::vector<std::int64_t> best = top_k(x);
    double best_v = xwx_of(W, n, best);
    std::vector<double> costs;
    auto M = [&](const std::vector<double>& p) {
      const std::vector<double> wp = times(p);
      double sum = 0;
      for (double v : p) sum += v;
      std::vector<double> out(n);
      for (int i = 0; i < n; ++i) out[i] = (r1 + r2) * p[i] - 2 * wp[i] + r3 * sum;
      return out;
    };
    while (res.iterations < o.max_iterations) {
      for (int i = 0; i < n; ++i) y1[i] = std::clamp(x[i] + z1[i] / r1, 0.0, 1.0);
      double nn = 0;
      for (int i = 0; i < n; ++i) {
        y2[i] = x[i] + z2[i] / r2 - 0.5;
        nn += y2[i] * y2[i];
      }
      const double sc = nn > 0 ? 0.5 * std::sqrt(nd) / std::sqrt(nn) : 1.0;
      for (double& v : y2) v = 0.5 + sc * v;
      for (int i = 0; i < n; ++i) rhs[i] = r1 * y1[i] + r2 * y2[i] + r3 * kd - (z1[i] + z2[i] + z3);
      // Conjugate gradients from y1; the least-residual iterate unless converged.
      x = y1;
      const double b2 = dot(rhs, rhs);
      std::vector<double> q = M(x), r(n);
      for (int i = 0; i < n; ++i) r[i] = rhs[i] - q[i];
      double rr = dot(r, r);
      if (rr > o.cg_tol * o.cg_tol * b2) {
        std::vector<double> p = r, bestx = x;
        double best_rr = rr;
        bool solved = false;
        for (int it = 0; it < o.cg_max_iterations; ++it) {
          q = M(p);
          const double pq = dot(p, q);
          if (!(pq > 0)) break;
          const double alpha = rr / pq;
          for (int i = 0; i < n; ++i) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
          }
          const double rn = dot(r, r);
          if (rn < best_rr) {
            best_rr = rn;
            bestx = x;
          }
          if (rn <= o.cg_tol * o.cg_tol * b2) {
            solved = true;
            break;
          }
          for (int i = 0; i < n; ++i) p[i] = r[i] + rn / rr * p[i];
          rr = rn;
        }
        if (!solved) x = bestx;
      }
      double sx = 0, d1 = 0, d2 = 0;
      for (int i = 0; i < n; ++i) {
        z1[i] += gamma * r1 * (x[i] - y1[i]);
        z2[i] += gamma * r2 * (x[i] - y2[i]);
        sx += x[i];
        d1 += (x[i] - y1[i]) * (x[i] - y1[i]);
        d2 += (x[i] - y2[i]) * (x[i] - y2[i]);
      }
      z3 += gamma * r3 * (sx - kd);
      const double resid = std::max(std::sqrt(d1), std::sqrt(d2)) / nd;
      const double xwx = dot(x, times(x));
      res.objective.push_back(xwx);
      costs.push_back(-xwx);
      ++res.iterations;
      if ((res.iterations + 1) % o.rho_every == 0) {
        r1 *= o.rho_growth;
        r2 *= o.rho_growth;
        r3 *= o.rho_growth;
        gamma = std::max(gamma * o.gamma_factor, 1.0);
      }
      const std::vector<std::int64_t> set = top_k(x);
      if (xwx_of(W, n, set) > best_v) {
        best_v = xwx_of(W, n, set);
        best = set;
      }
      double spread = HUGE_VAL;
      if (static_cast<int>(costs.size()) >= o.history) {
        double mean = 0, var = 0;
        for (int i = 0; i < o.history; ++i) mean += costs[costs.size() - 1 - i] / o.history;
        for (int i = 0; i < o.history; ++i)
          var += (costs[costs.size() - 1 - i] - mean) * (costs[costs.size() - 1 - i] - mean);
        spread = std::sqrt(var / (o.history - 1)) / std::max(std::fabs(costs.back()), 2.22e-16);
      }
      if (resid < o.stop || spread < o.std_tol) {
        res.converged = true;
        break;
      }
    }
    res.members = best;
    return res;
  }
};

void expect_same(const RelaxationResult& got, const RelaxationResult& want,
                 const std::string& what) {
  EXPECT_EQ(got.members, want.members) << what;
  EXPECT_EQ(got.iterations, want.iterations) << what;
  EXPECT_EQ(got.converged, want.converged) << what;
  ASSERT_EQ(got.objective.size(), want.objective.size()) << what;
  for (std::size_t t = 0; t < got.objective.size(); ++t)
    EXPECT_NEAR(got.objective[t], want.objective[t], 1e-9 * (1 + std::fabs(want.objective[t])))
        << what << " at iteration " << t;
}

}  // namespace

TEST(Relaxations, FixedPointTotalIsExactAndRankIndependent) {
  // Terms spanning 30 orders of magnitude with cancellation: the total against a sorted long
  // double sum, and the same bits on every number of ranks (each rank sums its block).
  const std::int64_t n = 5003;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> all(n);
  for (auto& v : all) v = u(rng) * std::pow(10.0, static_cast<int>(rng() % 30) - 15);
  all[7] = 1e15;
  all[8] = -1e15;
  const Partition part(n, comm_size(world()));
  const int rank = comm_rank(world());
  std::vector<double> mine(all.begin() + part.begin(rank), all.begin() + part.end(rank));
  const double got = fixed_point_total(world(), mine, n);
  std::vector<long double> sorted(all.begin(), all.end());
  std::sort(sorted.begin(), sorted.end(),
            [](long double a, long double b) { return std::fabs(a) < std::fabs(b); });
  long double want = 0;
  for (auto v : sorted) want += v;
  EXPECT_NEAR(got, static_cast<double>(want),
              1e-16 * 1e15 + 1e-13 * std::fabs(static_cast<double>(want)));
  double serial = 0;
  MPI_Comm solo;
  MPI_Comm_split(world(), rank == 0 ? 0 : MPI_UNDEFINED, 0, &solo);
  if (solo != MPI_COMM_NULL) {
    serial = fixed_point_total(solo, all, n);
    MPI_Comm_free(&solo);
  }
  MPI_Bcast(&serial, 1, MPI_DOUBLE, 0, world());
  EXPECT_EQ(got, serial);
  EXPECT_TRUE(std::isnan(fixed_point_total(
      world(), rank == 0 ? std::vector<double>{NAN} : std::vector<double>{1.0}, 2)));
}

TEST(Relaxations, ProjectionMatchesSortedBreakpoints) {
  const int n = 57;
  std::mt19937_64 rng(11);
  std::normal_distribution<double> g(0, 2);
  const Partition part(n, comm_size(world()));
  const int rank = comm_rank(world());
  std::vector<double> W(n * n, 0.0);
  for (std::int64_t k : {1, 2, 13, 30, 56, 57}) {
    for (int trial = 0; trial < 4; ++trial) {
      std::vector<double> v(n);
      for (auto& a : v) a = trial == 3 ? std::round(g(rng)) : g(rng);  // trial 3: many ties
      const Ref ref{W, n, k};
      const std::vector<double> want = ref.project(v);
      std::vector<double> mine(v.begin() + part.begin(rank), v.begin() + part.end(rank));
      double tau = trial == 1 ? 0.3 : NAN;  // with and without a starting guess
      const std::vector<double> got = project_capped_simplex(world(), mine, k, n, &tau);
      double sum = 0;
      for (std::int64_t i = part.begin(rank); i < part.end(rank); ++i) {
        EXPECT_NEAR(got[i - part.begin(rank)], want[i], 1e-12) << "k " << k << " trial " << trial;
        sum += got[i - part.begin(rank)];
      }
      MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, world());
      EXPECT_NEAR(sum, static_cast<double>(k), 1e-9);
    }
  }
}

TEST(Relaxations, GraphProductMatchesDense) {
  const int n = 41;
  const std::vector<double> W = random_dense(n, 0.2, 5);
  const FixedPointGraph g = from_dense(world(), W, n);
  std::vector<double> x(n);
  for (int i = 0; i < n; ++i) x[i] = std::sin(i + 1.0);
  GraphProduct P(g);
  std::vector<double> y;
  P.apply(local_of(g, x), y);
  const Ref ref{W, n, 1};
  const std::vector<double> want = ref.times(x);
  for (std::int64_t i = 0; i < g.local_rows(); ++i) EXPECT_NEAR(y[i], want[g.begin() + i], 1e-12);
  EXPECT_EQ(P.products(), 1);
}

TEST(Relaxations, EachMethodMatchesTheSerialReference) {
  struct Case {
    int n;
    double p;
    unsigned seed;
    int planted;
    double q;
    std::int64_t k;
  };
  for (const Case c : {Case{60, 0.12, 21, 0, 0.0, 6}, Case{60, 0.1, 22, 9, 0.8, 9},
                       Case{48, 0.25, 23, 0, 0.0, 15}}) {
    const std::vector<double> W = random_dense(c.n, c.p, c.seed, c.planted, c.q);
    const FixedPointGraph g = from_dense(world(), W, c.n);
    const Ref ref{W, c.n, c.k};
    const std::string at = "graph seed " + std::to_string(c.seed) + ", ";
    auto global = [&](RelaxationResult r) {
      r.members = gather_all(world(), r.members);
      return r;
    };
    LpOptions lp;
    expect_same(global(lp_relaxation(g, c.k, lp)), ref.lp(lp), at + "lp");
    MpecOptions mp;
    expect_same(global(mpec_epm(g, c.k, mp)), ref.mpec(mp, false), at + "mpec-epm");
    expect_same(global(mpec_adm(g, c.k, mp)), ref.mpec(mp, true), at + "mpec-adm");
    L2boxOptions l2;
    l2.max_iterations = 300;  // the graphs are small; the reference is dense
    expect_same(global(l2box_admm(g, c.k, l2)), ref.l2box(l2), at + "l2box-admm");
  }
}

TEST(Relaxations, ExhaustiveSearchOnFourteenNodes) {
  // A 5-set with all inner weights 3 among random weights <= 3 elsewhere: the unique optimum.
  const int n = 14;
  const std::int64_t k = 5;
  std::vector<double> W = random_dense(n, 0.35, 31);
  const std::vector<int> planted = {1, 4, 6, 9, 12};
  for (int a : planted)
    for (int b : planted)
      if (a != b) W[a * n + b] = 3.0;
  std::vector<std::int64_t> best_set;
  double best = -1;
  for (int mask = 0; mask < (1 << n); ++mask) {
    if (__builtin_popcount(mask) != k) continue;
    std::vector<std::int64_t> s;
    for (int i = 0; i < n; ++i)
      if (mask >> i & 1) s.push_back(i);
    const double v = xwx_of(W, n, s);
    if (v > best) {
      best = v;
      best_set = s;
    }
  }
  ASSERT_EQ(best_set, std::vector<std::int64_t>(planted.begin(), planted.end()));
  const FixedPointGraph g = from_dense(world(), W, n);
  DensestOptions o;
  o.k = k;
  for (const auto& [method, m] : kDensestMethodNames) {
    o.method = method;
    const DensestSummary s = run_method(g, o);
    EXPECT_LE(s.stats.density, best / k + 1e-12) << m;
    const auto got = gather_all(world(), s.members);
    if (method == DensestMethod::kRavi || method == DensestMethod::kFeige)
      continue;  // greedy: not claimed to reach it
    EXPECT_EQ(got, best_set) << m;
    EXPECT_DOUBLE_EQ(s.stats.density, best / k) << m;
  }
}

TEST(Relaxations, DpcdZeroIsDpcdWithoutTheNeighbourhoodSearch) {
  const int n = 200;
  const std::vector<double> W = random_dense(n, 0.05, 41, 30, 0.5);
  const FixedPointGraph g = from_dense(world(), W, n);
  DensestOptions o;
  o.k = 30;
  o.method = DensestMethod::kDpcd0;
  const DensestSummary zero = run_method(g, o);
  std::string used;
  const std::vector<std::int64_t> init =
      best_initial_set(g, o.k, o.dpcd.init, o.dpcd.tpower_iterations, &used, nullptr);
  Options off = o.dpcd.dpcd;
  off.ns_m = 0;
  const DensestDpcdResult want = dpcd_from(g, init, off);
  EXPECT_EQ(zero.members, want.members);
  EXPECT_EQ(zero.objective, want.report.objective);
  EXPECT_EQ(want.report.ns_runs, 0);
  o.method = DensestMethod::kDpcd;
  const DensestSummary full = run_method(g, o);
  EXPECT_GE(full.stats.xwx, zero.stats.xwx);
}

TEST(Relaxations, SameSetsAndHistoriesAsOnOneRank) {
  const int n = 300;
  const std::vector<double> W = random_dense(n, 0.04, 51, 25, 0.6);
  MPI_Comm solo;
  MPI_Comm_split(world(), comm_rank(world()) == 0 ? 0 : MPI_UNDEFINED, 0, &solo);
  auto run_all = [&](MPI_Comm comm) {
    const FixedPointGraph g = from_dense(comm, W, n);
    std::vector<double> flat;
    for (std::int64_t k : {7, 40}) {
      L2boxOptions l2;
      l2.max_iterations = 150;
      for (const RelaxationResult& r :
           {lp_relaxation(g, k, LpOptions{}), l2box_admm(g, k, l2), mpec_epm(g, k, MpecOptions{}),
            mpec_adm(g, k, MpecOptions{})}) {
        const auto m = gather_all(comm, r.members);
        flat.insert(flat.end(), m.begin(), m.end());
        flat.insert(flat.end(), r.objective.begin(), r.objective.end());
        flat.push_back(r.iterations);
        flat.push_back(static_cast<double>(r.products));
      }
    }
    return flat;
  };
  const std::vector<double> mine = run_all(world());
  std::vector<double> ref;
  if (solo != MPI_COMM_NULL) {
    ref = run_all(solo);
    MPI_Comm_free(&solo);
  }
  std::int64_t len = static_cast<std::int64_t>(ref.size());
  MPI_Bcast(&len, 1, MPI_INT64_T, 0, world());
  ref.resize(static_cast<std::size_t>(len));
  MPI_Bcast(ref.data(), static_cast<int>(len), MPI_DOUBLE, 0, world());
  EXPECT_EQ(mine, ref);  // bit for bit
}

TEST(Relaxations, BadOptionsAreCollectiveErrors) {
  const int n = 30;
  const FixedPointGraph g = from_dense(world(), random_dense(n, 0.2, 61), n);
  LpOptions lp;
  lp.tol = NAN;
  EXPECT_THROW(lp_relaxation(g, 3, lp), CollectiveError);
  lp = LpOptions{};
  lp.max_iterations = 0;
  EXPECT_THROW(lp_relaxation(g, 3, lp), CollectiveError);
  EXPECT_THROW(lp_relaxation(g, 31, LpOptions{}), CollectiveError);
  L2boxOptions l2;
  l2.gamma_factor = 1.5;
  EXPECT_THROW(l2box_admm(g, 3, l2), CollectiveError);
  l2 = L2boxOptions{};
  l2.rho = -1;
  EXPECT_THROW(l2box_admm(g, 3, l2), CollectiveError);
  l2 = L2boxOptions{};
  l2.history = 1;
  EXPECT_THROW(l2box_admm(g, 3, l2), CollectiveError);
  MpecOptions mp;
  mp.growth = 0.5;
  EXPECT_THROW(mpec_epm(g, 3, mp), CollectiveError);
  mp = MpecOptions{};
  mp.gap_tol = INFINITY;
  EXPECT_THROW(mpec_adm(g, 3, mp), CollectiveError);
  mp = MpecOptions{};
  mp.inner_iterations = 0;
  EXPECT_THROW(mpec_adm(g, 3, mp), CollectiveError);
}
