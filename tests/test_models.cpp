// The comparison models (knn, l2, Daitch soft and hard) against independent solvers written
// here, and their optimality (KKT) conditions. Every rank builds the same small problem, the
// edge set is distributed over all ranks, and results are gathered on every rank; the suite runs
// on 1, 2 and 3 ranks, so equality with the single-process references also checks that the
// graph does not depend on the number of ranks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "lsgl/ann/candidates.hpp"
#include "lsgl/graph/edgeset.hpp"
#include "lsgl/learn/projection.hpp"
#include "lsgl/learn/solvers/daitch.hpp"
#include "lsgl/learn/solvers/knn.hpp"
#include "lsgl/learn/solvers/l2.hpp"
#include "lsgl/util/dense.hpp"
#include "lsgl/util/mpi.hpp"
#include "support.hpp"

using namespace lsgl;

namespace {

using Pair = std::pair<std::int64_t, std::int64_t>;

// n points in d dimensions (float, as read from files), every pair within the m nearest of
// either endpoint allowed.
struct Problem {
  std::int64_t n, d;
  std::vector<float> x;
  std::map<Pair, double> z;
  double dist(std::int64_t i, std::int64_t j) const {
    return squared_distance(x.data() + i * d, x.data() + j * d, d);
  }
};

Problem make_problem(std::int64_t n, std::int64_t d, int m, std::uint64_t seed,
                     bool duplicate = false) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0, 1);
  Problem p{n, d, std::vector<float>(n * d), {}};
  for (auto& v : p.x) v = static_cast<float>(g(rng));
  if (duplicate) std::copy(p.x.begin() + 4 * d, p.x.begin() + 5 * d, p.x.begin() + 5 * d);
  for (std::int64_t i = 0; i < n; ++i) {
    std::vector<std::pair<double, std::int64_t>> dl;
    for (std::int64_t j = 0; j < n; ++j)
      if (j != i) dl.push_back({p.dist(i, j), j});
    std::sort(dl.begin(), dl.end());
    for (int c = 0; c < m; ++c)
      p.z[{std::min(i, dl[c].second), std::max(i, dl[c].second)}] = dl[c].first;
  }
  return p;
}

EdgeSet distribute(const Problem& p) {
  const int rank = comm_rank(MPI_COMM_WORLD), size = comm_size(MPI_COMM_WORLD);
  std::vector<EdgeEntry> mine;
  int c = 0;
  for (const auto& [ij, z] : p.z)
    if (c++ % size == rank) mine.push_back({ij.second, ij.first, z});
  return EdgeSet::from_pairs(MPI_COMM_WORLD, p.n, std::move(mine));
}

// This rank's block of rows.
LocalRows local_rows(const Problem& p) {
  const Partition part(p.n, comm_size(MPI_COMM_WORLD));
  const int rank = comm_rank(MPI_COMM_WORLD);
  LocalRows r;
  r.n = p.n;
  r.d = p.d;
  r.begin = part.begin(rank);
  r.values().assign(p.x.begin() + part.begin(rank) * p.d, p.x.begin() + part.end(rank) * p.d);
  return r;
}

std::map<Pair, double> gather(const EdgeSet& e, const std::vector<double>& w) {
  std::vector<double> local;
  const auto pairs = e.global_pairs();
  for (std::int64_t k = 0; k < e.local_edges(); ++k)
    local.insert(local.end(), {double(pairs[k].first), double(pairs[k].second), w[k]});
  const int size = comm_size(MPI_COMM_WORLD);
  int count = static_cast<int>(local.size());
  std::vector<int> counts(size), displs(size, 0);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 1; r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
  std::vector<double> all(displs[size - 1] + counts[size - 1]);
  MPI_Allgatherv(local.data(), count, MPI_DOUBLE, all.data(), counts.data(), displs.data(),
                 MPI_DOUBLE, MPI_COMM_WORLD);
  std::map<Pair, double> out;
  for (std::size_t t = 0; t < all.size(); t += 3)
    out[{std::int64_t(all[t]), std::int64_t(all[t + 1])}] = all[t + 2];
  return out;
}

// Local node values gathered by global id.
std::vector<double> gather_nodes(const EdgeSet& e, const std::vector<double>& v) {
  std::vector<double> all(e.n(), 0.0);
  for (std::int64_t i = 0; i < e.local_nodes(); ++i) all[e.global_id(i)] = v[i];
  MPI_Allreduce(MPI_IN_PLACE, all.data(), static_cast<int>(e.n()), MPI_DOUBLE, MPI_SUM,
                MPI_COMM_WORLD);
  return all;
}

std::vector<double> local_values(const EdgeSet& e, const std::map<Pair, double>& w) {
  std::vector<double> out(e.local_edges());
  const auto pairs = e.global_pairs();
  for (std::int64_t k = 0; k < e.local_edges(); ++k) out[k] = w.at(pairs[k]);
  return out;
}

double relative_l1(const std::map<Pair, double>& got, const std::map<Pair, double>& ref) {
  double diff = 0, norm = 0;
  for (const auto& [ij, v] : ref) {
    diff += std::abs(got.at(ij) - v);
    norm += std::abs(v);
  }
  return diff / norm;
}

std::vector<double> degrees(std::int64_t n, const std::map<Pair, double>& w) {
  std::vector<double> d(n, 0.0);
  for (const auto& [ij, v] : w) d[ij.first] += v, d[ij.second] += v;
  return d;
}

// ----------------------------------------------------------------------------------- l2 model

// Independent l2 solver: for a multiplier lambda of 2 * 1^T w = n, exact cyclic coordinate
// descent on 2 z^T w + alpha |S w|^2 + 2 alpha |w|^2 - 2 lambda 1^T w over w >= 0; then bisection
// on lambda (1^T w grows with lambda) until 1^T w = n / 2.
std::map<Pair, double> l2_reference(const Problem& p, double alpha, double* multiplier) {
  std::map<Pair, double> w;
  for (const auto& [ij, z] : p.z) w[ij] = 0.0;
  auto solve = [&](double lambda) {
    std::vector<double> deg = degrees(p.n, w);
    for (int sweep = 0; sweep < 100000; ++sweep) {
      double change = 0;
      for (auto& [ij, we] : w) {
        const double grad = 2 * p.z.at(ij) + 2 * alpha * (deg[ij.first] + deg[ij.second]) +
                            4 * alpha * we - 2 * lambda;
        const double nw = std::max(0.0, we - grad / (8 * alpha));
        change = std::max(change, std::abs(nw - we));
        deg[ij.first] += nw - we;
        deg[ij.second] += nw - we;
        we = nw;
      }
      if (change < 1e-15) break;
    }
    double s = 0;
    for (const auto& [ij, v] : w) s += v;
    return s;
  };
  double lo = 0, hi = 1;
  while (solve(hi) < p.n / 2.0) hi *= 2;
  for (int it = 0; it < 100; ++it) {
    const double mid = 0.5 * (lo + hi);
    (solve(mid) < p.n / 2.0 ? lo : hi) = mid;
  }
  solve(0.5 * (lo + hi));
  *multiplier = 0.5 * (lo + hi);
  return w;
}

TEST(L2Model, ProjectionOntoScaledSimplexMatchesSortBased) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> g(0, 1);
  const int n_all = 57;
  std::vector<double> all(n_all);
  for (auto& v : all) v = g(rng);
  const double total = 3.5;
  // Sort-based reference (Duchi et al. 2008).
  std::vector<double> s = all;
  std::sort(s.rbegin(), s.rend());
  double cum = 0, tau = 0;
  for (int j = 0; j < n_all; ++j) {
    cum += s[j];
    const double t = (cum - total) / (j + 1);
    if (s[j] - t > 0) tau = t;
  }
  const int rank = comm_rank(MPI_COMM_WORLD), size = comm_size(MPI_COMM_WORLD);
  std::vector<double> mine;
  for (int j = rank; j < n_all; j += size) mine.push_back(all[j]);
  const double got_tau = project_scaled_simplex(MPI_COMM_WORLD, mine, total);
  EXPECT_NEAR(got_tau, tau, 1e-12);
  double sum = 0;
  for (std::size_t t = 0; t < mine.size(); ++t) {
    EXPECT_NEAR(mine[t], std::max(0.0, all[rank + t * size] - tau), 1e-12);
    sum += mine[t];
  }
  MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_NEAR(sum, total, 1e-12);
  // From a hint left of tau, right of tau, and at tau: the same projection.
  for (double hint : {tau - 0.3, tau + 0.3, tau}) {
    std::vector<double> again;
    for (int j = rank; j < n_all; j += size) again.push_back(all[j]);
    int steps = 0;
    EXPECT_NEAR(project_scaled_simplex(MPI_COMM_WORLD, again, total, hint, &steps), tau, 1e-12);
    for (std::size_t t = 0; t < again.size(); ++t) EXPECT_NEAR(again[t], mine[t], 1e-12);
    if (hint == tau) EXPECT_LE(steps, 2);
  }
}

TEST(L2Model, MatchesCoordinateDescentAndKKT) {
  const Problem p = make_problem(40, 2, 5, 5, true);
  const EdgeSet e = distribute(p);
  for (double alpha : {0.05, 0.5}) {
    L2Params lp;
    lp.tol = 1e-12;
    lp.max_iterations = 100000;
    L2Report rep;
    const auto w = learn_l2(e, alpha, lp, rep);
    EXPECT_TRUE(rep.converged);
    const auto got = gather(e, w);
    double lambda = 0;
    const auto ref = l2_reference(p, alpha, &lambda);
    EXPECT_LT(relative_l1(got, ref), 1e-6) << "alpha " << alpha;
    // KKT with the multiplier 2 lambda of the equality: g_e = 2 z + 2 alpha (d_i + d_j) +
    // 4 alpha w_e equals 2 lambda where w_e > 0 and is >= 2 lambda where w_e = 0.
    const auto deg = degrees(p.n, got);
    double sum = 0;
    int positive = 0;
    for (const auto& [ij, v] : got) {
      EXPECT_GE(v, 0.0);
      sum += v;
      const double g = 2 * p.z.at(ij) + 2 * alpha * (deg[ij.first] + deg[ij.second]) +
                       4 * alpha * v;
      if (v > 1e-9) {
        EXPECT_NEAR(g, 2 * lambda, 1e-6 * (1 + lambda));
        ++positive;
      } else {
        EXPECT_GT(g, 2 * lambda - 1e-6 * (1 + lambda));
      }
    }
    EXPECT_NEAR(2 * sum, double(p.n), 1e-9);
    EXPECT_GT(positive, 5);
    EXPECT_LT(positive, static_cast<int>(p.z.size()));  // sparse at these alphas
    EXPECT_LE(l2_objective(e, alpha, w), l2_objective(e, alpha, local_values(e, ref)) + 1e-9);
  }
}

TEST(L2Model, SearchReachesTheRequestedDegree) {
  const Problem p = make_problem(60, 3, 12, 8);
  const EdgeSet e = distribute(p);
  L2Params lp;
  L2Search s;
  const double k = 5;
  DegreeTarget target;
  target.tol = 0.02;
  target.max_solves = 40;
  const auto w = l2_to_degree(e, k, 1e-4, lp, target, s);
  EXPECT_TRUE(s.all_converged);
  EXPECT_NEAR(average_degree(e, w, 1e-4), s.avg_degree, 0);
  // Within the search's relative tolerance (0.02) of k, counted here from the weights.
  int kept = 0;
  for (const auto& [ij, v] : gather(e, w)) kept += v > 1e-4;
  EXPECT_EQ(2.0 * kept / static_cast<double>(p.n), s.avg_degree);
  EXPECT_LE(std::abs(s.avg_degree - k), 0.02 * k) << "alpha " << s.alpha;
  // The returned alpha reproduces the returned weights.
  L2Report rep;
  const auto again = learn_l2(e, s.alpha, lp, rep);
  EXPECT_LT(relative_l1(gather(e, again), gather(e, w)), 1e-3);
  // A larger alpha gives a denser graph.
  const auto dense = learn_l2(e, s.alpha * 16, lp, rep);
  EXPECT_GT(average_degree(e, dense, 1e-4), s.avg_degree);
}

// ---------------------------------------------------------------------------- knn model

TEST(KnnModel, WeightsMatchBruteForce) {
  const Problem p = make_problem(50, 3, 1, 21, true);
  const LocalRows rows = local_rows(p);
  AnnParams ap;
  ap.engine = lsgl::AnnEngine::kExact;
  const int k = 4;
  const Candidates cand = find_candidates(MPI_COMM_WORLD, rows, 3 * k, ap);
  const Candidates kc = first_k(cand, k);
  EXPECT_EQ(kc.m, k);
  const double sigma2 = knn_default_sigma2(MPI_COMM_WORLD, kc, k);
  const EdgeSet e = EdgeSet::from_candidates(MPI_COMM_WORLD, p.n, kc);
  const auto got = gather(e, knn_weights(e, sigma2));
  // Brute force: each node's k nearest (ties by index), sigma^2 the mean k-th distance.
  std::map<Pair, double> ref;
  double kth = 0;
  for (std::int64_t i = 0; i < p.n; ++i) {
    std::vector<std::pair<double, std::int64_t>> dl;
    for (std::int64_t j = 0; j < p.n; ++j)
      if (j != i) dl.push_back({p.dist(i, j), j});
    std::sort(dl.begin(), dl.end());
    kth += dl[k - 1].first;
    for (int c = 0; c < k; ++c)
      ref[{std::min(i, dl[c].second), std::max(i, dl[c].second)}] = dl[c].first;
  }
  kth /= p.n;
  EXPECT_NEAR(sigma2, kth, 1e-12 * kth);
  ASSERT_EQ(got.size(), ref.size());
  for (auto& [ij, z] : ref) {
    ASSERT_TRUE(got.count(ij));
    EXPECT_NEAR(got.at(ij), std::exp(-z / kth), 1e-13);
  }
  EXPECT_EQ(got.at({4, 5}), 1.0);  // the duplicated point: distance 0, weight 1
}

// The default sigma^2 has the same bits whatever the rows' split: the world's blocks against
// every rank's own copy of all rows (MPI_COMM_SELF), on squared distances spread over 11 decades
// (where per-rank floating-point partial sums round differently); and it is the mean to 1e-12.
TEST(KnnModel, DefaultSigmaIsTheSameOnAnySplit) {
  const std::int64_t n = 3001;
  const int m = 3, k = 2;
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> expo(-20.0, 5.0);
  std::vector<double> kth(n);
  for (double& v : kth) v = std::exp(expo(gen));
  const auto rows_of = [&](std::int64_t begin, std::int64_t end) {
    Candidates c;
    c.begin = begin;
    c.m = m;
    for (std::int64_t r = begin; r < end; ++r)
      for (int j = 0; j < m; ++j) {
        c.idx.push_back((r + j + 1) % n);
        c.dist.push_back(j == k - 1 ? kth[r] : kth[r] * (j + 1) / k);
      }
    return c;
  };
  const Partition part(n, comm_size(MPI_COMM_WORLD));
  const int rank = comm_rank(MPI_COMM_WORLD);
  const double split =
      knn_default_sigma2(MPI_COMM_WORLD, rows_of(part.begin(rank), part.end(rank)), k);
  const double whole = knn_default_sigma2(MPI_COMM_SELF, rows_of(0, n), k);
  EXPECT_EQ(split, whole);
  long double mean = 0;
  for (double v : kth) mean += v;
  mean /= n;
  EXPECT_NEAR(split, static_cast<double>(mean), 1e-12 * static_cast<double>(mean));
}

// ------------------------------------------------------------------------ Daitch models

// Dense M w (n x d) for the gathered weights.
std::vector<double> dense_Mw(const Problem& p, const std::map<Pair, double>& w) {
  std::vector<double> m(p.n * p.d, 0.0);
  for (const auto& [ij, v] : w)
    for (std::int64_t c = 0; c < p.d; ++c) {
      const double t = v * (double(p.x[ij.first * p.d + c]) - double(p.x[ij.second * p.d + c]));
      m[ij.first * p.d + c] += t;
      m[ij.second * p.d + c] -= t;
    }
  return m;
}

// Gradient of |M w|^2 per edge: 2 <m_i - m_j, x_i - x_j>.
double smooth_grad(const Problem& p, const std::vector<double>& m, const Pair& ij) {
  double g = 0;
  for (std::int64_t c = 0; c < p.d; ++c)
    g += 2 * (m[ij.first * p.d + c] - m[ij.second * p.d + c]) *
         (double(p.x[ij.first * p.d + c]) - double(p.x[ij.second * p.d + c]));
  return g;
}

// Independent solver of |M w|^2 + mu sum_i max(t_i - (S w)_i, 0)^2 over w >= 0: exact cyclic
// coordinate descent (each one-dimensional problem is a convex piecewise quadratic; its
// stationary point is found among the three pieces), from and into w.
void soft_cd(const Problem& p, double mu, const std::vector<double>& target,
             std::map<Pair, double>& w, double stop = 1e-15) {
  std::vector<double> m = dense_Mw(p, w);
  std::vector<double> deg = degrees(p.n, w);
  for (int sweep = 0; sweep < 200000; ++sweep) {
    double change = 0;
    for (auto& [ij, we] : w) {
      const auto [i, j] = ij;
      const double A = smooth_grad(p, m, ij), z = p.z.at(ij);
      const double a = target[i] - deg[i], b = target[j] - deg[j];
      // f'(t) = A + 4 z t - 2 mu (max(a - t, 0) + max(b - t, 0)), increasing in t.
      auto fp = [&](double t) {
        return A + 4 * z * t - 2 * mu * (std::max(a - t, 0.0) + std::max(b - t, 0.0));
      };
      const double lo = std::min(a, b), hi = std::max(a, b);
      double t = -A / (4 * z);                                   // no term active
      if (t < hi) t = (2 * mu * hi - A) / (4 * z + 2 * mu);        // only the one at hi
      if (t < lo) t = (2 * mu * (a + b) - A) / (4 * z + 4 * mu);  // both
      EXPECT_NEAR(fp(t), 0.0, 1e-8 * (1 + std::abs(A)));
      const double nw = std::max(0.0, we + t);
      const double dlt = nw - we;
      if (dlt != 0) {
        for (std::int64_t c = 0; c < p.d; ++c) {
          const double s =
              dlt * (double(p.x[i * p.d + c]) - double(p.x[j * p.d + c]));
          m[i * p.d + c] += s;
          m[j * p.d + c] -= s;
        }
        deg[i] += dlt;
        deg[j] += dlt;
      }
      change = std::max(change, std::abs(dlt));
      we = nw;
    }
    if (change < stop) break;
  }
}

TEST(DaitchSoft, MatchesCoordinateDescentAndKKT) {
  // d = 8 > |E| / n: M has full column rank, the solution is unique.
  const Problem p = make_problem(36, 8, 3, 31);
  const EdgeSet e = distribute(p);
  const DaitchOperator op(e, local_rows(p));
  // ||M|| against the largest eigenvalue of the dense M^T M (LAPACK): column e = (a, b) of M is
  // x_a - x_b at node a and x_b - x_a at node b, so (M^T M)_ef = s_ef <x_a - x_b, x_c - x_d>
  // with s = +1 or -1 as the edges share a node in the same or the opposite role.
  std::vector<Pair> edges;
  for (const auto& [ij, z] : p.z) edges.push_back(ij);
  const std::int64_t ne = static_cast<std::int64_t>(edges.size());
  Mat MtM(ne, ne);
  double mean_z = 0;
  for (std::int64_t e1 = 0; e1 < ne; ++e1) {
    mean_z += p.z.at(edges[e1]) / static_cast<double>(ne);
    for (std::int64_t e2 = 0; e2 < ne; ++e2) {
      const auto [a, b] = edges[e1];
      const auto [c, d] = edges[e2];
      const double s = (a == c) + (b == d) - (a == d) - (b == c);
      double dot = 0;
      for (std::int64_t t = 0; t < p.d; ++t)
        dot += (double(p.x[a * p.d + t]) - p.x[b * p.d + t]) *
               (double(p.x[c * p.d + t]) - p.x[d * p.d + t]);
      MtM(e1, e2) = s * dot;
    }
  }
  const double norm_ref = std::sqrt(largest_eigenvalue(MtM));
  EXPECT_NEAR(op.norm_M(200), norm_ref, 1e-6 * norm_ref);
  const double mu = op.mean_squared_distance();
  EXPECT_NEAR(mu, mean_z, 1e-12 * mean_z);
  DaitchParams dp;
  dp.tol = 1e-11;
  dp.max_iterations = 200000;
  DaitchReport rep;
  const auto w = learn_soft(op, mu, dp, rep);
  EXPECT_TRUE(rep.converged) << rep.iterations;
  const auto got = gather(e, w);
  std::map<Pair, double> ref;
  for (const auto& [ij, z] : p.z) ref[ij] = 0.0;
  soft_cd(p, mu, std::vector<double>(p.n, 1.0), ref);
  EXPECT_LT(relative_l1(got, ref), 1e-5);
  // KKT: g_e = grad |M w|^2 - 2 mu (max(1 - d_i, 0) + max(1 - d_j, 0)) is 0 on the support and
  // >= 0 off it.
  const auto m = dense_Mw(p, got);
  const auto deg = degrees(p.n, got);
  int positive = 0;
  for (const auto& [ij, v] : got) {
    EXPECT_GE(v, 0.0);
    const double g =
        smooth_grad(p, m, ij) -
        2 * mu * (std::max(1 - deg[ij.first], 0.0) + std::max(1 - deg[ij.second], 0.0));
    if (v > 1e-8) {
      EXPECT_NEAR(g, 0.0, 1e-5 * mu);
      ++positive;
    } else {
      EXPECT_GT(g, -1e-5 * mu);
    }
  }
  EXPECT_GT(positive, 10);
  EXPECT_LE(soft_objective(op, mu, w), soft_objective(op, mu, local_values(e, ref)) + 1e-9 * mu);
}

TEST(DaitchHard, MatchesAugmentedLagrangianAndKKT) {
  const Problem p = make_problem(36, 8, 3, 41);
  const EdgeSet e = distribute(p);
  const DaitchOperator op(e, local_rows(p));
  DaitchParams dp;
  dp.tol = 1e-10;
  dp.max_iterations = 400000;
  DaitchReport rep;
  std::vector<double> lambda_local;
  const auto w = learn_hard(op, dp, rep, &lambda_local);
  EXPECT_TRUE(rep.converged) << rep.iterations;
  const auto got = gather(e, w);
  const auto lambda = gather_nodes(e, lambda_local);
  // Independent: augmented Lagrangian for S w >= 1, each subproblem by coordinate descent
  // (|M w|^2 + rho/2 sum max(1 + l_i / rho - d_i, 0)^2), l_i <- max(0, l_i + rho (1 - d_i)).
  const double rho = 2 * op.mean_squared_distance();
  std::map<Pair, double> ref;
  for (const auto& [ij, z] : p.z) ref[ij] = 0.0;
  std::vector<double> l(p.n, 0.0), target(p.n);
  for (int outer = 0; outer < 2000; ++outer) {
    for (std::int64_t i = 0; i < p.n; ++i) target[i] = 1 + l[i] / rho;
    soft_cd(p, rho / 2, target, ref);
    const auto d = degrees(p.n, ref);
    double viol = 0, change = 0;
    for (std::int64_t i = 0; i < p.n; ++i) {
      const double nl = std::max(0.0, l[i] + rho * (1 - d[i]));
      change = std::max(change, std::abs(nl - l[i]));
      viol = std::max(viol, 1 - d[i]);
      l[i] = nl;
    }
    if (change < 1e-12 * rho && viol < 1e-12) break;
  }
  EXPECT_LT(relative_l1(got, ref), 1e-5);
  // KKT: w >= 0, S w >= 1, multipliers l >= 0 with l_i (d_i - 1) = 0, and
  // g_e = grad |M w|^2 - l_i - l_j is 0 on the support and >= 0 off it.
  const auto m = dense_Mw(p, got);
  const auto deg = degrees(p.n, got);
  const double scale = op.mean_squared_distance();
  for (std::int64_t i = 0; i < p.n; ++i) {
    EXPECT_GT(deg[i], 1 - 1e-6);
    EXPECT_GE(lambda[i], 0.0);
    EXPECT_LT(lambda[i] * (deg[i] - 1), 1e-6 * scale);
  }
  int positive = 0;
  for (const auto& [ij, v] : got) {
    EXPECT_GE(v, 0.0);
    const double g = smooth_grad(p, m, ij) - lambda[ij.first] - lambda[ij.second];
    if (v > 1e-8) {
      EXPECT_NEAR(g, 0.0, 1e-5 * scale);
      ++positive;
    } else {
      EXPECT_GT(g, -1e-5 * scale);
    }
  }
  EXPECT_GT(positive, 10);
  EXPECT_LE(hard_objective(op, w), hard_objective(op, local_values(e, ref)) * (1 + 1e-6));
}

TEST(Projection, SameRowsOnAnyRankCountAndDistancesPreservedOnAverage) {
  const Problem p = make_problem(30, 50, 1, 3);
  const LocalRows rows = local_rows(p);
  const LocalRows pr = random_projection(rows, 20, 7);
  EXPECT_EQ(pr.d, 20);
  EXPECT_EQ(pr.begin, rows.begin);
  // Every rank's rows equal those of a projection of all rows at once.
  LocalRows all = rows;
  all.begin = 0;
  all.values() = p.x;
  const LocalRows pa = random_projection(all, 20, 7);
  for (std::int64_t r = 0; r < pr.local_rows(); ++r)
    for (int c = 0; c < 20; ++c) EXPECT_EQ(pr.row(r)[c], pa.row(rows.begin + r)[c]);
  double ratio = 0;
  int count = 0;
  for (std::int64_t i = 0; i < p.n; ++i)
    for (std::int64_t j = i + 1; j < p.n; ++j, ++count)
      ratio += squared_distance(pa.row(i), pa.row(j), 20) / p.dist(i, j);
  EXPECT_NEAR(ratio / count, 1.0, 0.25);
  const LocalRows other = random_projection(all, 20, 8);
  EXPECT_NE(test::values_of(other), test::values_of(pa));
}

}  // namespace
