// The log model's primal-dual solver against an independent solver written here (exact cyclic
// coordinate descent on the same objective), its KKT conditions, the bound w <= delta = 1, and
// the operators S and S^T of the distributed edge set against dense references.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "lsgl/graph/edgeset.hpp"
#include "lsgl/learn/log_model.hpp"
#include "lsgl/util/mpi.hpp"

using namespace lsgl;

namespace {

using Pair = std::pair<std::int64_t, std::int64_t>;

// A small random problem, identical on every rank: points in the plane, every pair within the
// 6 nearest of either endpoint allowed (some duplicates included).
struct Problem {
  std::int64_t n;
  std::map<Pair, double> z;  // allowed pairs i < j -> squared distance
};

Problem make_problem(std::int64_t n, int m, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0, 1);
  std::vector<double> x(2 * n);
  for (auto& v : x) v = g(rng);
  x[2 * 5] = x[2 * 4], x[2 * 5 + 1] = x[2 * 4 + 1];  // rows 4 and 5 identical
  Problem p{n, {}};
  for (std::int64_t i = 0; i < n; ++i) {
    std::vector<std::pair<double, std::int64_t>> d;
    for (std::int64_t j = 0; j < n; ++j) {
      if (j == i) continue;
      const double dx = x[2 * i] - x[2 * j], dy = x[2 * i + 1] - x[2 * j + 1];
      d.push_back({dx * dx + dy * dy, j});
    }
    std::sort(d.begin(), d.end());
    for (int c = 0; c < m; ++c)
      p.z[{std::min(i, d[c].second), std::max(i, d[c].second)}] = d[c].first;
  }
  return p;
}

// Every rank passes its share of the pairs (round robin) to test the routing.
EdgeSet distribute(const Problem& p) {
  const int rank = comm_rank(MPI_COMM_WORLD), size = comm_size(MPI_COMM_WORLD);
  std::vector<EdgeEntry> mine;
  int c = 0;
  for (const auto& [ij, z] : p.z) {
    if (c++ % size != rank) continue;
    // Give some pairs reversed and some twice, as candidate lists do.
    mine.push_back({ij.second, ij.first, z});
    if (c % 3 == 0) mine.push_back({ij.first, ij.second, z});
  }
  return EdgeSet::from_pairs(MPI_COMM_WORLD, p.n, std::move(mine));
}

// All local edge values, keyed by global pair, gathered on every rank.
std::map<Pair, double> gather(const EdgeSet& e, const std::vector<double>& w) {
  std::vector<double> local;
  const auto pairs = e.global_pairs();
  for (std::int64_t k = 0; k < e.local_edges(); ++k) {
    const auto [i, j] = pairs[k];
    local.insert(local.end(), {double(i), double(j), w[k]});
  }
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

// Independent solver: cyclic coordinate descent, each coordinate minimised exactly (bisection on
// the monotone derivative 2 z + 2 w - 1/(d_i + w) - 1/(d_j + w)).
std::map<Pair, double> coordinate_descent(const Problem& p, double theta) {
  std::map<Pair, double> w;
  std::vector<double> deg(p.n, 0.0);
  for (const auto& [ij, z] : p.z) {
    w[ij] = 0.1;
    deg[ij.first] += 0.1;
    deg[ij.second] += 0.1;
  }
  for (int sweep = 0; sweep < 20000; ++sweep) {
    double change = 0;
    for (const auto& [ij, z] : p.z) {
      double& we = w[ij];
      const double di = deg[ij.first] - we, dj = deg[ij.second] - we;
      auto grad = [&](double t) { return 2 * theta * z + 2 * t - 1 / (di + t) - 1 / (dj + t); };
      double lo = 0, hi = 1;
      double nw;
      if ((di > 0 && dj > 0) && grad(0) >= 0) {
        nw = 0;
      } else {
        lo = (di > 0 && dj > 0) ? 0 : 1e-300;
        while (grad(hi) < 0) hi *= 2;
        for (int it = 0; it < 200; ++it) {
          const double mid = 0.5 * (lo + hi);
          (grad(mid) < 0 ? lo : hi) = mid;
        }
        nw = 0.5 * (lo + hi);
      }
      change = std::max(change, std::abs(nw - we));
      deg[ij.first] += nw - we;
      deg[ij.second] += nw - we;
      we = nw;
    }
    if (change < 1e-14) break;
  }
  return w;
}

// theta * z for the local edges.
std::vector<double> scaled_z(const EdgeSet& e, double theta) {
  std::vector<double> tz = e.z();
  for (auto& v : tz) v *= theta;
  return tz;
}

// sum |got - ref| / sum |ref| over the reference's pairs.
double relative_l1(const std::map<Pair, double>& got, const std::map<Pair, double>& ref) {
  double diff = 0, norm = 0;
  for (const auto& [ij, v] : ref) {
    diff += std::abs(got.at(ij) - v);
    norm += std::abs(v);
  }
  return diff / norm;
}

}  // namespace

TEST(EdgeSet, OperatorsMatchDenseReference) {
  const Problem p = make_problem(23, 4, 3);
  const EdgeSet e = distribute(p);
  EXPECT_EQ(e.global_edges(), static_cast<std::int64_t>(p.z.size()));
  // w_e = some function of the pair; S w vs dense.
  std::vector<double> w(e.local_edges());
  const auto pairs = e.global_pairs();
  for (std::int64_t k = 0; k < e.local_edges(); ++k) {
    const auto [i, j] = pairs[k];
    w[k] = 1.0 + i + 0.01 * j;
    EXPECT_EQ(e.z()[k], p.z.at(pairs[k]));
  }
  auto out = e.make_node_vector(1);
  e.apply_S(w, *out);
  std::vector<double> ref(p.n, 0.0);
  for (const auto& [ij, z] : p.z) {
    const double v = 1.0 + ij.first + 0.01 * ij.second;
    ref[ij.first] += v;
    ref[ij.second] += v;
  }
  for (std::int64_t i = 0; i < e.local_nodes(); ++i)
    EXPECT_NEAR(out->values()[i], ref[e.first_node() + i], 1e-12);
  // S^T v with v_i = i^2.
  for (std::int64_t i = 0; i < e.local_nodes(); ++i)
    out->values()[i] = double((e.first_node() + i) * (e.first_node() + i));
  std::vector<double> st;
  e.apply_St(*out, st);
  const auto g = gather(e, st);
  for (const auto& [ij, v] : g) EXPECT_EQ(v, double(ij.first * ij.first + ij.second * ij.second));
  // ||S|| against a long dense power iteration on S S^T.
  std::vector<double> u(p.n, 1.0);
  double lambda = 0;
  for (int it = 0; it < 5000; ++it) {
    std::vector<double> t(p.n, 0.0);
    for (const auto& [ij, z] : p.z) {
      const double s = u[ij.first] + u[ij.second];
      t[ij.first] += s;
      t[ij.second] += s;
    }
    double nt = 0, nu = 0, dot = 0;
    for (std::int64_t i = 0; i < p.n; ++i) nt += t[i] * t[i], nu += u[i] * u[i], dot += u[i] * t[i];
    lambda = dot / nu;
    for (std::int64_t i = 0; i < p.n; ++i) u[i] = t[i] / std::sqrt(nt);
  }
  const double norm = e.norm_S(30);
  EXPECT_LE(norm, std::sqrt(lambda) * (1 + 1e-9));
  EXPECT_GT(norm, 0.95 * std::sqrt(lambda));
}

class LogModelScaled : public testing::TestWithParam<double> {};

// For the reference iteration (dual scale 1) and a scaled one.
TEST_P(LogModelScaled, MatchesCoordinateDescentAndKKT) {
  const Problem p = make_problem(40, 5, 5);
  const double theta = 0.7;
  const EdgeSet e = distribute(p);
  const std::vector<double> tz = scaled_z(e, theta);
  SolverParams sp;
  sp.dual_scale = GetParam();
  sp.tol = 1e-9;
  sp.max_iterations = 200000;
  SolverReport rep;
  const std::vector<double> w = learn_log(e, tz, sp, rep);
  EXPECT_TRUE(rep.converged);
  const auto got = gather(e, w);
  const auto ref = coordinate_descent(p, theta);
  EXPECT_LT(relative_l1(got, ref), 1e-4);
  // KKT: grad_e = 2 theta z + 2 w - 1/d_i - 1/d_j is 0 where w > 0 and >= 0 where w = 0.
  std::vector<double> deg(p.n, 0.0);
  for (const auto& [ij, v] : got) deg[ij.first] += v, deg[ij.second] += v;
  int positive = 0;
  for (const auto& [ij, v] : got) {
    EXPECT_GE(v, 0.0);
    EXPECT_LE(v, 1.0);  // seed Thm. 1: w <= delta = 1 with alpha = beta = 1
    const double grad = 2 * theta * p.z.at(ij) + 2 * v - 1 / deg[ij.first] - 1 / deg[ij.second];
    if (v > 1e-6) {
      EXPECT_NEAR(grad, 0.0, 1e-5);
      ++positive;
    } else {
      EXPECT_GT(grad, -1e-5);
    }
  }
  EXPECT_GT(positive, 10);
  EXPECT_LT(positive, static_cast<int>(p.z.size()));  // the problem is sparse at this theta
  // The objective of the solution is not above that of the reference.
  std::vector<double> wr(e.local_edges());
  const auto pairs = e.global_pairs();
  for (std::int64_t k = 0; k < e.local_edges(); ++k) {
    const auto [i, j] = pairs[k];
    wr[k] = ref.at(pairs[k]);
  }
  EXPECT_LE(log_objective(e, tz, w), log_objective(e, tz, wr) + 1e-8);
}

INSTANTIATE_TEST_SUITE_P(DualScale, LogModelScaled, testing::Values(1.0, 0.3));

TEST(LogModel, DefaultToleranceIsCloseToTheSolution) {
  const Problem p = make_problem(60, 6, 9);
  const double theta = 0.5;
  const EdgeSet e = distribute(p);
  const std::vector<double> tz = scaled_z(e, theta);
  SolverReport rep;
  const auto got = gather(e, learn_log(e, tz, SolverParams{}, rep));
  EXPECT_TRUE(rep.converged);
  EXPECT_LT(relative_l1(got, coordinate_descent(p, theta)), 1e-3);
}
