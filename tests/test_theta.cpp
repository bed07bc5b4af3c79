// Theta from k (seed section 4.2): one-node solution, Thm. 3 interval, eq. 18.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "lsgl/learn/theta.hpp"
#include "lsgl/util/error.hpp"

using namespace lsgl;

namespace {

// Brute force of the one-node problem: for every support size s (the s smallest z, as the KKT
// conditions require), solve the stationarity equations theta z_i + w_i = 1 / sum(w) in closed
// form and keep the feasible candidate with the lowest objective.
double objective(const std::vector<double>& z, const std::vector<double>& w, double theta) {
  double lin = 0, sq = 0, sum = 0;
  for (std::size_t i = 0; i < z.size(); ++i) {
    lin += theta * w[i] * z[i];
    sq += w[i] * w[i];
    sum += w[i];
  }
  return lin - std::log(sum) + 0.5 * sq;
}

std::vector<double> brute_force(const std::vector<double>& z, double theta) {
  std::vector<double> best;
  double best_f = INFINITY;
  for (std::size_t s = 1; s <= z.size(); ++s) {
    // w_i = c - theta z_i for i < s with c = 1/sum(w): c^2 s - c theta b - 1 = 0.
    double b = 0;
    for (std::size_t i = 0; i < s; ++i) b += z[i];
    const double c = (theta * b + std::sqrt(theta * theta * b * b + 4.0 * s)) / (2.0 * s);
    std::vector<double> w(z.size(), 0.0);
    bool ok = true;
    for (std::size_t i = 0; i < s; ++i) {
      w[i] = c - theta * z[i];
      if (w[i] < 0) ok = false;
    }
    if (!ok) continue;
    const double f = objective(z, w, theta);
    if (f < best_f) best_f = f, best = w;
  }
  return best;
}

std::vector<double> random_sorted(std::mt19937_64& rng, int n) {
  std::uniform_real_distribution<double> u(0.1, 10.0);
  std::vector<double> z(n);
  for (auto& x : z) x = u(rng);
  std::sort(z.begin(), z.end());
  return z;
}

}  // namespace

TEST(OneNode, MatchesBruteForce) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const auto z = random_sorted(rng, 12);
    const double theta = std::exp(std::uniform_real_distribution<double>(-4, 1)(rng));
    const auto s = one_node_solve(z, theta);
    const auto ref = brute_force(z, theta);
    ASSERT_EQ(ref.size(), z.size());
    int nz = 0;
    for (std::size_t i = 0; i < z.size(); ++i) {
      EXPECT_NEAR(s.w[i], ref[i], 1e-12 * (1 + ref[i]));
      nz += ref[i] > 0;
    }
    EXPECT_EQ(s.k, nz);
  }
}

TEST(OneNode, Thm3IntervalGivesExactlyK) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    const auto z = random_sorted(rng, 15);
    const int k = 1 + trial % 10;
    const auto [lower, upper] = theta_interval(z.data(), k);
    ASSERT_TRUE(std::isfinite(lower));
    ASSERT_LT(lower, upper);
    // Probe just inside both ends (at an end, equality decides by rounding) and just outside.
    const double hi = std::isfinite(upper) ? upper * (1 - 1e-9) : lower * 10;
    EXPECT_EQ(one_node_solve(z, hi).k, k);
    EXPECT_EQ(one_node_solve(z, std::sqrt(lower * hi)).k, k);
    EXPECT_EQ(one_node_solve(z, lower * (1 + 1e-9)).k, k);
    EXPECT_GT(one_node_solve(z, lower * (1 - 1e-6)).k, k);
    if (std::isfinite(upper)) EXPECT_LT(one_node_solve(z, upper * (1 + 1e-6)).k, k);
  }
}

TEST(OneNode, TiesGiveInfiniteBoundsNotNaN) {
  const std::vector<double> z = {0.0, 0.0, 0.0, 1.0};
  const auto [lower, upper] = theta_interval(z.data(), 2);
  EXPECT_TRUE(std::isinf(lower));
  EXPECT_TRUE(std::isinf(upper));
  const auto [l3, u3] = theta_interval(z.data(), 3);
  EXPECT_TRUE(std::isfinite(l3));  // 3*1 - 0*1 > 0
  EXPECT_TRUE(std::isinf(u3));
}

// eq. 18 on candidate lists spread over ranks: every rank holds some rows; the expected value is
// computed serially from the same rows (generated from the global row index).
TEST(ThetaFromK, GeometricMeanOfMeanBounds) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::int64_t n = 37;
  const int m = 8, k = 4;
  auto row = [&](std::int64_t g) {
    std::mt19937_64 rng(1000 + g);
    auto z = random_sorted(rng, m);
    if (g % 5 == 0) z[0] = z[1] = z[2] = z[3] = z[4] = 0.0;  // duplicates: both bounds infinite
    return z;
  };
  Candidates c;
  c.m = m;
  const std::int64_t begin = n * rank / size, end = n * (rank + 1) / size;
  c.begin = begin;
  for (std::int64_t g = begin; g < end; ++g) {
    const auto z = row(g);
    c.dist.insert(c.dist.end(), z.begin(), z.end());
    for (int j = 0; j < m; ++j) c.idx.push_back((g + j + 1) % n);
  }
  const ThetaChoice t = theta_from_k(MPI_COMM_WORLD, c, k);
  double lo = 0, up = 0;
  int nlo = 0, nup = 0;
  for (std::int64_t g = 0; g < n; ++g) {
    const auto z = row(g);
    double b = 0;
    for (int i = 0; i < k; ++i) b += z[i];
    const double dl = k * z[k] * z[k] - b * z[k], du = k * z[k - 1] * z[k - 1] - b * z[k - 1];
    if (dl > 0) lo += 1 / std::sqrt(dl), ++nlo;
    if (du > 0) up += 1 / std::sqrt(du), ++nup;
  }
  EXPECT_NEAR(t.lower_mean, lo / nlo, 1e-12 * lo / nlo);
  EXPECT_NEAR(t.upper_mean, up / nup, 1e-12 * up / nup);
  EXPECT_NEAR(t.theta, std::sqrt(lo / nlo * up / nup), 1e-12 * t.theta);
  EXPECT_EQ(t.nodes_without_lower, n - nlo);
  EXPECT_EQ(t.nodes_without_upper, n - nup);
  EXPECT_TRUE(std::isfinite(t.theta));
}

// The slope of eq. 18's k -> theta on rows z_j = a j (a differing per node): Thm. 3's bound
// 1/sqrt(j z_j^2 - b_j z_j) is sqrt(2) / (a j sqrt(j - 1)), so log theta(k) = C - 3/4 log k -
// 1/4 log(k - 1) - 1/2 log(k + 1) whatever the a's, and the slope between k - 1 and k + 1 (k and
// k + 1 when k = 2) follows in closed form. No estimate for k = 1 or without candidates past k + 1.
TEST(ThetaFromK, Eq18SlopeOnLinearDistances) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::int64_t n = 29;
  const auto rows = [&](int m) {
    Candidates c;
    c.m = m;
    c.begin = n * rank / size;
    for (std::int64_t g = c.begin; g < n * (rank + 1) / size; ++g) {
      for (int j = 1; j <= m; ++j) {
        c.dist.push_back((1.0 + 0.1 * g) * j);
        c.idx.push_back((g + j) % n);
      }
    }
    return c;
  };
  const auto log_theta = [](double k) {
    return -0.75 * std::log(k) - 0.25 * std::log(k - 1) - 0.5 * std::log(k + 1);
  };
  const Candidates c = rows(12);
  for (int k : {2, 4, 9}) {
    const int lo = std::max(2, k - 1), hi = k + 1;
    const double expected = std::log(double(hi) / lo) / (log_theta(hi) - log_theta(lo));
    EXPECT_NEAR(eq18_degree_slope(MPI_COMM_WORLD, c, k), expected, 1e-12 * std::abs(expected))
        << "k = " << k;
  }
  EXPECT_EQ(eq18_degree_slope(MPI_COMM_WORLD, c, 1), 0.0);
  EXPECT_EQ(eq18_degree_slope(MPI_COMM_WORLD, rows(5), 4), 0.0);  // needs the 6th neighbour
  EXPECT_LT(eq18_degree_slope(MPI_COMM_WORLD, rows(6), 4), 0.0);
}

TEST(ThetaFromK, AllIdenticalIsACollectiveError) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Candidates c;
  c.m = 4;
  c.begin = rank * 3;
  c.dist.assign(3 * 4, 0.0);
  c.idx.assign(3 * 4, 0);
  EXPECT_THROW(theta_from_k(MPI_COMM_WORLD, c, 2), CollectiveError);
}
