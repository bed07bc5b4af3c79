#pragma once
// Private to src/ann: the projection of the projected search (projected.cpp). Rows are centred
// at the mean and projected onto the leading principal components of a hashed sample. For rows
// x, y with projections a, b (orthonormal components):
//   ||x - y||^2 = ||a - b||^2 + ||r_x - r_y||^2 >= ||a - b||^2,
// with r the residuals, so the projected squared distance is a lower bound of the true one.
// Computed in floating point, the bound holds up to each row's rounding slack (project_rows).
// (The residual norms would tighten the bound by (||r_x|| - ||r_y||)^2, but as a ranking they
// do worse: on Fashion-MNIST with 48 components and a shortlist of 8 m, recall 0.984 with them
// as one more coordinate against 0.997 without.)
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "lsgl/io/dataset.hpp"

namespace lsgl::ann {

struct Projection {
  std::int64_t d = 0;            // dimensions of the data
  int dims = 0;                  // principal components kept
  std::vector<double> mean;      // d
  std::vector<double> basis;     // d x dims, row-major: component j is column j
  std::vector<double> variance;  // the sample's variance along each component, largest first
  double total_variance = 0;     // the sample's variance summed over all d dimensions

  // Local. Share of the sample's variance along the first `p` components.
  double explained(int p) const;
};

// Collective. Mean and the `max_dims` (<= d) leading principal components of a hashed sample of
// at most kProjectionSample rows (every row when n is smaller), chosen by `seed`: the sample is
// gathered on rank 0 in global order, which computes its covariance (OpenBLAS dsyrk) and the
// eigenvectors (LAPACK dsyevr, signs fixed by top_eigenvectors) and broadcasts them, so every rank
// gets the same bits on any number of ranks.
Projection fit_projection(MPI_Comm comm, const LocalRows& data, int max_dims, std::uint64_t seed);

// Local. The `rows` rows at x (d floats each) projected onto the first `dims` (<= p.dims)
// components: out gets rows x dims floats. Each row is computed on its own, in double and in a
// fixed order, so a row's result does not depend on the block it is in. slack[r] bounds the
// rounding of row r's projection: ||x - y|| >= ||a - b||_computed - slack[x] - slack[y], where
// ||a - b||_computed is the square root of squared_distance of the stored floats.
void project_rows(const Projection& p, int dims, const float* x, std::int64_t rows, float* out,
                  double* slack);

// Local. The rounding slack project_rows gives row x (d floats) projected on `dims` components.
double row_slack(const Projection& p, int dims, const float* x);

// Local. ||a - b||^2 of two projected rows (`dims` floats each) in float arithmetic: kLanes
// partial sums combined pairwise in a fixed order, so the same bits for (a, b) and (b, a) and on
// any rank. Twice as fast as squared_distance (no conversion, twice the lanes); the shortlists
// are ranked by it. Against ||a - b||^2 of the stored floats its relative error is at most
// projected_rounding(dims) and its absolute error (subnormal squares) at most
// dims * 2^-149.
inline double projected_distance(const float* a, const float* b, std::int64_t dims) {
  constexpr int kLanes = 16;
  float s[kLanes] = {};
  std::int64_t i = 0;
  for (; i + kLanes <= dims; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      const float t = a[i + l] - b[i + l];
      s[l] += t * t;
    }
  }
  for (; i < dims; ++i) {
    const float t = a[i] - b[i];
    s[0] += t * t;
  }
  for (int w = kLanes / 2; w >= 1; w /= 2) {
    for (int l = 0; l < w; ++l) s[l] += s[l + w];
  }
  return s[0];
}

// The relative error bound of projected_distance: each term is rounded at most (dims + 8) times
// (the difference, the square, its lane's additions, the tail and the four pairwise levels),
// each time by at most 2^-24.
inline double projected_rounding(std::int64_t dims) {
  return static_cast<double>(dims + 8) * 0x1p-24 * 1.01;
}

// A lower bound of ||a - b||^2 of the stored floats from projected_distance's value `got`.
inline double projected_lower(double got, std::int64_t dims) {
  const double low = (got - static_cast<double>(dims) * 0x1p-149) / (1 + projected_rounding(dims));
  return low > 0 ? low : 0.0;
}

// Number of sample rows of fit_projection.
inline constexpr std::int64_t kProjectionSample = 8192;

}  // namespace lsgl::ann
