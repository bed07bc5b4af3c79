// The shared pieces of util/: the small dense matrix (eigenvectors, largest eigenvalue, polar
// factor) against their definitions.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "lsgl/util/dense.hpp"

using namespace lsgl;

namespace {

Mat random_mat(std::int64_t r, std::int64_t c, std::mt19937_64& rng) {
  std::normal_distribution<double> nd(0.0, 1.0);
  Mat m(r, c);
  for (auto& v : m.a) v = nd(rng);
  return m;
}

}  // namespace

// ------------------------------------------------------------------------------ dense matrix

TEST(Dense, EigenvectorsAndPolarFactorSatisfyTheirDefinitions) {
  std::mt19937_64 rng(3);
  // Eigenvectors: A E = E diag, orthonormal, sign convention.
  Mat S = random_mat(6, 6, rng);
  Mat Sym(6, 6);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) Sym(i, j) = S(i, j) + S(j, i);
  const Mat E = top_eigenvectors(Sym, 3);
  const Mat AE = multiply(Sym, E);
  const Mat EtE = multiply_at_b(E, E);
  double prev = 1e300;
  for (int t = 0; t < 3; ++t) {
    double lambda = 0;
    for (int i = 0; i < 6; ++i) lambda += E(i, t) * AE(i, t);
    EXPECT_LE(lambda, prev + 1e-12);
    prev = lambda;
    for (int i = 0; i < 6; ++i) EXPECT_NEAR(AE(i, t), lambda * E(i, t), 1e-10);
    for (int u = 0; u < 3; ++u) EXPECT_NEAR(EtE(t, u), t == u ? 1.0 : 0.0, 1e-12);
  }
  EXPECT_NEAR(largest_eigenvalue(Sym), [&] {
    double l = 0;
    for (int i = 0; i < 6; ++i) l += E(i, 0) * AE(i, 0);
    return l;
  }(), 1e-10);
  // The polar factor is orthogonal and maximises tr(R^T M): R^T M is symmetric positive
  // semidefinite.
  const Mat M = random_mat(5, 5, rng);
  const Mat R = polar_orthogonal(M);
  const Mat RtR = multiply_at_b(R, R), RtM = multiply_at_b(R, M);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) {
      EXPECT_NEAR(RtR(i, j), i == j ? 1.0 : 0.0, 1e-12);
      EXPECT_NEAR(RtM(i, j), RtM(j, i), 1e-10);
    }
  EXPECT_GT(largest_eigenvalue(RtM), 0.0);
}
