// Raw and RBF feature maps (see features.hpp).
#include "lsgl/hash/features.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>

#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/splitmix.hpp"

namespace lsgl::hash {

std::vector<std::int64_t> sample_indices(std::int64_t n, std::int64_t count, std::uint64_t seed) {
  SplitMix64 rng(seed * kSplitMixGamma + 0x2545f4914f6cdd1dULL);
  return sample_distinct(n, count, rng);
}

namespace {

// Squared distances of rows x (rows x d) to anchors (m x d): rows x m, by GEMM in double.
std::vector<double> squared_distances(const float* x, std::int64_t rows, std::int64_t d,
                                      const Mat& anchors) {
  const std::int64_t m = anchors.rows;
  std::vector<double> xd(x, x + rows * d), out(static_cast<std::size_t>(rows * m));
  std::vector<double> an(static_cast<std::size_t>(m));
  for (std::int64_t j = 0; j < m; ++j) {
    double s = 0.0;
    for (std::int64_t t = 0; t < d; ++t) s += anchors(j, t) * anchors(j, t);
    an[j] = s;
  }
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, static_cast<int>(rows),
              static_cast<int>(m), static_cast<int>(d), -2.0, xd.data(), static_cast<int>(d),
              anchors.a.data(), static_cast<int>(d), 0.0, out.data(), static_cast<int>(m));
  for (std::int64_t i = 0; i < rows; ++i) {
    double s = 0.0;
    for (std::int64_t t = 0; t < d; ++t) s += xd[i * d + t] * xd[i * d + t];
    for (std::int64_t j = 0; j < m; ++j) out[i * m + j] = std::max(0.0, out[i * m + j] + s + an[j]);
  }
  return out;
}

// Rows in pieces of at most this many (bounds the temporaries).
constexpr std::int64_t kPiece = 1024;

}  // namespace

std::vector<double> FeatureMap::apply(const float* x, std::int64_t rows) const {
  const std::int64_t p = dim();
  std::vector<double> out(static_cast<std::size_t>(rows * p));
  for (std::int64_t r0 = 0; r0 < rows; r0 += kPiece) {
    const std::int64_t cnt = std::min(kPiece, rows - r0);
    if (kind == FeatureKind::kRaw) {
      for (std::int64_t i = 0; i < cnt * p; ++i) out[r0 * p + i] = x[r0 * p + i];
    } else {
      const std::vector<double> d2 = squared_distances(x + r0 * input_dim, cnt, input_dim, anchors);
      const double inv = 1.0 / (2.0 * sigma * sigma);
      for (std::int64_t i = 0; i < cnt * p; ++i) out[r0 * p + i] = std::exp(-d2[i] * inv);
    }
    if (!mean.empty())
      for (std::int64_t i = 0; i < cnt; ++i)
        for (std::int64_t j = 0; j < p; ++j) out[(r0 + i) * p + j] -= mean[j];
  }
  return out;
}

FeatureMap fit_features(MPI_Comm comm, const SampleBlocks& blocks, const LocalRows& rows,
                        FeatureKind kind, std::int64_t anchors, std::uint64_t seed,
                        std::vector<double>* features) {
  FeatureMap f;
  f.kind = kind;
  f.input_dim = rows.d;
  const std::int64_t local = rows.local_rows(), d = rows.d;
  std::vector<double> phi;  // this rank's features, before centring
  if (kind == FeatureKind::kRbf) {
    collective_check(comm, anchors >= 1 && anchors <= rows.n,
                     "--anchors must be between 1 and the number of training samples (" +
                         std::to_string(rows.n) + ")");
    const std::vector<std::int64_t> idx = sample_indices(rows.n, anchors, seed);
    f.anchors = Mat(anchors, d);
    for (std::int64_t j = 0; j < anchors; ++j)
      if (idx[j] >= rows.begin && idx[j] < rows.begin + local)
        for (std::int64_t t = 0; t < d; ++t) f.anchors(j, t) = rows.row(idx[j] - rows.begin)[t];
    // One owner per row, zeros elsewhere: the sum is exact.
    MPI_Allreduce(MPI_IN_PLACE, f.anchors.a.data(), static_cast<int>(f.anchors.a.size()),
                  MPI_DOUBLE, MPI_SUM, comm);
    // sigma: mean over samples of the mean distance to the anchors. The squared distances are
    // computed in the same pieces as apply() (so with the same values) and become the features.
    phi.resize(static_cast<std::size_t>(local * anchors));
    std::vector<double> mean_dist(static_cast<std::size_t>(local));
    for (std::int64_t r0 = 0; r0 < local; r0 += kPiece) {
      const std::int64_t cnt = std::min(kPiece, local - r0);
      const std::vector<double> d2 = squared_distances(rows.row(r0), cnt, d, f.anchors);
      std::copy(d2.begin(), d2.end(), phi.begin() + r0 * anchors);
      for (std::int64_t i = 0; i < cnt; ++i) {
        double s = 0.0;
        for (std::int64_t j = 0; j < anchors; ++j) s += std::sqrt(d2[i * anchors + j]);
        mean_dist[r0 + i] = s / static_cast<double>(anchors);
      }
    }
    f.sigma = sample_column_sums(comm, blocks, mean_dist.data(), 1, local)[0] /
              static_cast<double>(rows.n);
    collective_check(comm, f.sigma > 0,
                     "the RBF width is 0: every training sample equals every anchor");
    const double inv = 1.0 / (2.0 * f.sigma * f.sigma);
    for (double& v : phi) v = std::exp(-v * inv);
  } else {
    phi = f.apply(rows.data(), local);
  }
  f.mean = sample_column_sums(comm, blocks, phi.data(), f.dim(), local);
  for (double& v : f.mean) v /= static_cast<double>(rows.n);
  if (features) {
    const std::int64_t p = f.dim();
    for (std::int64_t i = 0; i < local; ++i)
      for (std::int64_t j = 0; j < p; ++j) phi[i * p + j] -= f.mean[j];
    *features = std::move(phi);
  }
  return f;
}

}  // namespace lsgl::hash
