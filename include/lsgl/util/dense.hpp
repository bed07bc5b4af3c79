#pragma once
// Small dense linear algebra (the r x r, r x c and d x d systems of hashing, the d x d
// covariance of the locality order), on LAPACK from OpenBLAS. Everything here is local (not
// collective): every rank calls it on the same, already reduced matrices and gets the same
// result.
#include <cstdint>
#include <vector>

namespace lsgl {

// Row-major dense matrix of doubles.
struct Mat {
  std::int64_t rows = 0, cols = 0;
  std::vector<double> a;
  Mat() = default;
  Mat(std::int64_t r, std::int64_t c) : rows(r), cols(c), a(static_cast<std::size_t>(r * c)) {}
  double& operator()(std::int64_t i, std::int64_t j) { return a[i * cols + j]; }
  double operator()(std::int64_t i, std::int64_t j) const { return a[i * cols + j]; }
};

// X = (A + ridge I)^{-1} B for symmetric positive (semi)definite A (Cholesky). Throws
// std::runtime_error when A + ridge I is not positive definite.
Mat solve_spd(const Mat& A, double ridge, const Mat& B);

// scale * X^T X for the `rows` rows of X (d doubles each, row r at x + r * stride), by OpenBLAS
// dsyrk on the lower triangle, mirrored: d x d.
Mat gram(const double* x, std::int64_t rows, std::int64_t d, std::int64_t stride, double scale);

// The eigenvectors of the `count` largest eigenvalues of symmetric A, as the columns of an
// A.rows x count matrix (largest first); each column's entry of largest magnitude is made
// positive, so the result is unique for distinct eigenvalues. `values` (may be null) gets the
// `count` largest eigenvalues, largest first.
Mat top_eigenvectors(const Mat& A, std::int64_t count, std::vector<double>* values = nullptr);

// Largest eigenvalue of symmetric A.
double largest_eigenvalue(const Mat& A);

// Orthogonal factor of the polar decomposition: U V^T where M = U S V^T (square M).
Mat polar_orthogonal(const Mat& M);

// C = A B, C = A^T B (plain loops; for the small matrices of this module).
Mat multiply(const Mat& A, const Mat& B);
Mat multiply_at_b(const Mat& A, const Mat& B);

}  // namespace lsgl
