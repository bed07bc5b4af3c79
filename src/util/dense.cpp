// Small dense linear algebra on LAPACK (OpenBLAS ships it).
#include "lsgl/util/dense.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

extern "C" {
void dposv_(const char* uplo, const int* n, const int* nrhs, double* a, const int* lda, double* b,
            const int* ldb, int* info);
void dsyevr_(const char* jobz, const char* range, const char* uplo, const int* n, double* a,
             const int* lda, const double* vl, const double* vu, const int* il, const int* iu,
             const double* abstol, int* m, double* w, double* z, const int* ldz, int* isuppz,
             double* work, const int* lwork, int* iwork, const int* liwork, int* info);
void dgesvd_(const char* jobu, const char* jobvt, const int* m, const int* n, double* a,
             const int* lda, double* s, double* u, const int* ldu, double* vt, const int* ldvt,
             double* work, const int* lwork, int* info);
}

namespace lsgl {

namespace {

// Row-major <-> column-major (LAPACK) copies.
std::vector<double> to_col_major(const Mat& A) {
  std::vector<double> c(A.a.size());
  for (std::int64_t i = 0; i < A.rows; ++i)
    for (std::int64_t j = 0; j < A.cols; ++j) c[j * A.rows + i] = A(i, j);
  return c;
}

Mat from_col_major(const std::vector<double>& c, std::int64_t rows, std::int64_t cols) {
  Mat A(rows, cols);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) A(i, j) = c[j * rows + i];
  return A;
}

}  // namespace

Mat solve_spd(const Mat& A, double ridge, const Mat& B) {
  if (A.rows != A.cols || B.rows != A.rows) throw std::invalid_argument("solve_spd: bad shapes");
  std::vector<double> a = to_col_major(A), b = to_col_major(B);
  const int n = static_cast<int>(A.rows), nrhs = static_cast<int>(B.cols);
  for (int i = 0; i < n; ++i) a[static_cast<std::size_t>(i) * n + i] += ridge;
  int info = 0;
  dposv_("L", &n, &nrhs, a.data(), &n, b.data(), &n, &info);
  if (info != 0)
    throw std::runtime_error("the " + std::to_string(n) + " x " + std::to_string(n) +
                             " system is not positive definite (LAPACK dposv info " +
                             std::to_string(info) + "); increase the regularisation");
  return from_col_major(b, B.rows, B.cols);
}

Mat gram(const double* x, std::int64_t rows, std::int64_t d, std::int64_t stride, double scale) {
  Mat g(d, d);
  cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, static_cast<int>(d), static_cast<int>(rows),
              scale, x, static_cast<int>(stride), 0.0, g.a.data(), static_cast<int>(d));
  for (std::int64_t i = 0; i < d; ++i)
    for (std::int64_t j = 0; j < i; ++j) g(j, i) = g(i, j);
  return g;
}

Mat top_eigenvectors(const Mat& A, std::int64_t count, std::vector<double>* values) {
  const int n = static_cast<int>(A.rows);
  if (count < 1 || count > n) throw std::invalid_argument("top_eigenvectors: bad count");
  std::vector<double> a = to_col_major(A), w(n), z(static_cast<std::size_t>(n) * count);
  std::vector<int> isuppz(2 * static_cast<std::size_t>(count));
  const int il = n - static_cast<int>(count) + 1, iu = n;
  const double vl = 0, vu = 0, abstol = 0;
  int m = 0, info = 0, lwork = -1, liwork = -1, iwq = 0;
  double wq = 0;
  dsyevr_("V", "I", "L", &n, a.data(), &n, &vl, &vu, &il, &iu, &abstol, &m, w.data(), z.data(),
          &n, isuppz.data(), &wq, &lwork, &iwq, &liwork, &info);
  lwork = static_cast<int>(wq);
  liwork = iwq;
  std::vector<double> work(lwork);
  std::vector<int> iwork(liwork);
  dsyevr_("V", "I", "L", &n, a.data(), &n, &vl, &vu, &il, &iu, &abstol, &m, w.data(), z.data(),
          &n, isuppz.data(), work.data(), &lwork, iwork.data(), &liwork, &info);
  if (info != 0 || m != count)
    throw std::runtime_error("eigen-decomposition failed (LAPACK dsyevr info " +
                             std::to_string(info) + ")");
  // LAPACK returns ascending eigenvalues; reverse, and fix each vector's sign.
  if (values) values->assign(w.rbegin() + (n - count), w.rend());
  Mat E(n, count);
  for (std::int64_t c = 0; c < count; ++c) {
    const double* v = z.data() + (count - 1 - c) * n;
    int arg = 0;
    for (int i = 1; i < n; ++i)
      if (std::fabs(v[i]) > std::fabs(v[arg])) arg = i;
    const double s = v[arg] < 0 ? -1.0 : 1.0;
    for (int i = 0; i < n; ++i) E(i, c) = s * v[i];
  }
  return E;
}

double largest_eigenvalue(const Mat& A) {
  if (A.rows == 0) return 0.0;
  const int n = static_cast<int>(A.rows);
  std::vector<double> a = to_col_major(A), w(n), z(n);
  std::vector<int> isuppz(2);
  const int il = n, iu = n;
  const double vl = 0, vu = 0, abstol = 0;
  int m = 0, info = 0, lwork = -1, liwork = -1, iwq = 0;
  double wq = 0;
  dsyevr_("N", "I", "L", &n, a.data(), &n, &vl, &vu, &il, &iu, &abstol, &m, w.data(), z.data(),
          &n, isuppz.data(), &wq, &lwork, &iwq, &liwork, &info);
  lwork = static_cast<int>(wq);
  liwork = iwq;
  std::vector<double> work(lwork);
  std::vector<int> iwork(liwork);
  dsyevr_("N", "I", "L", &n, a.data(), &n, &vl, &vu, &il, &iu, &abstol, &m, w.data(), z.data(),
          &n, isuppz.data(), work.data(), &lwork, iwork.data(), &liwork, &info);
  if (info != 0) throw std::runtime_error("eigenvalue computation failed (LAPACK dsyevr)");
  return w[0];
}

Mat polar_orthogonal(const Mat& M) {
  const int n = static_cast<int>(M.rows);
  if (M.cols != M.rows) throw std::invalid_argument("polar_orthogonal: square matrix expected");
  std::vector<double> a = to_col_major(M), s(n), u(static_cast<std::size_t>(n) * n),
                      vt(static_cast<std::size_t>(n) * n);
  int lwork = -1, info = 0;
  double wq = 0;
  dgesvd_("A", "A", &n, &n, a.data(), &n, s.data(), u.data(), &n, vt.data(), &n, &wq, &lwork,
          &info);
  lwork = static_cast<int>(wq);
  std::vector<double> work(lwork);
  dgesvd_("A", "A", &n, &n, a.data(), &n, s.data(), u.data(), &n, vt.data(), &n, work.data(),
          &lwork, &info);
  if (info != 0) throw std::runtime_error("SVD failed (LAPACK dgesvd)");
  const Mat U = from_col_major(u, n, n), Vt = from_col_major(vt, n, n);
  return multiply(U, Vt);
}

Mat multiply(const Mat& A, const Mat& B) {
  if (A.cols != B.rows) throw std::invalid_argument("multiply: bad shapes");
  Mat C(A.rows, B.cols);
  for (std::int64_t i = 0; i < A.rows; ++i)
    for (std::int64_t k = 0; k < A.cols; ++k) {
      const double v = A(i, k);
      for (std::int64_t j = 0; j < B.cols; ++j) C(i, j) += v * B(k, j);
    }
  return C;
}

Mat multiply_at_b(const Mat& A, const Mat& B) {
  if (A.rows != B.rows) throw std::invalid_argument("multiply_at_b: bad shapes");
  Mat C(A.cols, B.cols);
  for (std::int64_t k = 0; k < A.rows; ++k)
    for (std::int64_t i = 0; i < A.cols; ++i) {
      const double v = A(k, i);
      for (std::int64_t j = 0; j < B.cols; ++j) C(i, j) += v * B(k, j);
    }
  return C;
}

}  // namespace lsgl
