// The principal components of the projected search, and the projection with its rounding slack.
#include "projection.hpp"

#include <algorithm>
#include <cmath>

#include "lsgl/util/dense.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"
#include "sample.hpp"

namespace lsgl::ann {
namespace {

constexpr std::int64_t kRowBlock = 4;  // rows projected together (each component row read once)

// Rounding slack of a projected row, per unit of ||e|| = ||x - mean||. The computed coordinates
// differ from the exact projection on the computed basis by the float rounding of each stored
// coordinate (2^-24 relative: at most 2^-24 ||e|| in all) and the double sums (about d 2^-53
// ||e|| per coordinate); the computed basis is orthonormal up to about d 2^-53, which moves the
// bound by as much relative to ||x - y|| <= ||e_x|| + ||e_y||. The distance of two stored
// projections then differs from a true lower bound by at most the sum of their slacks; the
// factor 16 leaves room for the terms not written out (and the double sum of squared_distance).
double slack_per_norm(std::int64_t d, int dims) {
  const double n = static_cast<double>(d + dims);
  return 16.0 * (0x1.0p-24 + 0x1.0p-53 * n * std::sqrt(static_cast<double>(dims)));
}

}  // namespace

double Projection::explained(int p) const {
  if (!(total_variance > 0)) return 1.0;
  double s = 0;
  for (int j = 0; j < std::min(p, static_cast<int>(variance.size())); ++j) s += variance[j];
  return std::min(1.0, s / total_variance);
}

Projection fit_projection(MPI_Comm comm, const LocalRows& data, int max_dims, std::uint64_t seed) {
  const std::int64_t d = data.d;
  collective_check(comm, max_dims >= 1 && max_dims <= d,
                   "candidates: projection dimensions must be in [1, d]");
  std::vector<std::uint64_t> hash;
  const std::vector<float> sample =
      gather_on_root(comm, hashed_sample(data, kProjectionSample, seed, hash));
  Projection p;
  p.d = d;
  p.dims = max_dims;
  p.mean.assign(static_cast<std::size_t>(d), 0.0);
  p.basis.assign(static_cast<std::size_t>(d * max_dims), 0.0);
  p.variance.assign(static_cast<std::size_t>(max_dims), 0.0);
  collectively(comm, [&] {
    if (comm_rank(comm) != 0) return;
    const std::int64_t rows = static_cast<std::int64_t>(sample.size()) / d;
    if (rows == 0) throw std::runtime_error("candidates: no rows sampled for the projection");
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t j = 0; j < d; ++j) p.mean[j] += sample[r * d + j];
    }
    for (double& v : p.mean) v /= static_cast<double>(rows);
    std::vector<double> centred(static_cast<std::size_t>(rows * d));
    for (std::int64_t r = 0; r < rows; ++r) {
      for (std::int64_t j = 0; j < d; ++j) centred[r * d + j] = sample[r * d + j] - p.mean[j];
    }
    const Mat cov = gram(centred.data(), rows, d, d, 1.0 / static_cast<double>(rows));
    for (std::int64_t i = 0; i < d; ++i) p.total_variance += cov(i, i);
    const Mat E = top_eigenvectors(cov, max_dims, &p.variance);
    p.basis = E.a;
  });
  MPI_Bcast(p.mean.data(), static_cast<int>(d), MPI_DOUBLE, 0, comm);
  MPI_Bcast(p.basis.data(), static_cast<int>(d * max_dims), MPI_DOUBLE, 0, comm);
  MPI_Bcast(p.variance.data(), max_dims, MPI_DOUBLE, 0, comm);
  MPI_Bcast(&p.total_variance, 1, MPI_DOUBLE, 0, comm);
  return p;
}

double row_slack(const Projection& p, int dims, const float* x) {
  double e = 0;
  for (std::int64_t i = 0; i < p.d; ++i) {
    const double v = static_cast<double>(x[i]) - p.mean[i];
    e += v * v;
  }
  return slack_per_norm(p.d, dims) * std::sqrt(e);
}

void project_rows(const Projection& p, int dims, const float* x, std::int64_t rows, float* out,
                  double* slack) {
  const std::int64_t d = p.d, stride = p.dims;
  const double per_norm = slack_per_norm(d, dims);
  std::vector<double> acc(static_cast<std::size_t>(kRowBlock * dims)), e(kRowBlock);
  for (std::int64_t b = 0; b < rows; b += kRowBlock) {
    const std::int64_t nb = std::min(kRowBlock, rows - b);
    std::fill(acc.begin(), acc.end(), 0.0);
    std::fill(e.begin(), e.end(), 0.0);
    for (std::int64_t i = 0; i < d; ++i) {
      const double* component = p.basis.data() + i * stride;
      for (std::int64_t r = 0; r < nb; ++r) {
        const double v = static_cast<double>(x[(b + r) * d + i]) - p.mean[i];
        e[r] += v * v;
        double* a = acc.data() + r * dims;
        for (int j = 0; j < dims; ++j) a[j] += v * component[j];
      }
    }
    for (std::int64_t r = 0; r < nb; ++r) {
      for (int j = 0; j < dims; ++j) {
        out[(b + r) * dims + j] = static_cast<float>(acc[r * dims + j]);
      }
      slack[b + r] = per_norm * std::sqrt(e[r]);
    }
  }
}

}  // namespace lsgl::ann
