// The B-step objective of the hashing losses (see codes_problem.hpp).
#include "lsgl/hash/codes_problem.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>

#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl::hash {

CodeProblem::CodeProblem(MPI_Comm comm, std::int64_t samples, std::int64_t first_sample, int bits,
                         Mat A, const Mat* factor, const std::vector<double>& c,
                         std::vector<std::int8_t> codes, double f0, CodeBuffers* buffers)
    : comm_(comm),
      samples_(samples),
      first_(first_sample),
      r_(bits),
      A_(std::move(A)),
      c_(c),
      x_(std::move(codes)),
      f0_(f0),
      buffers_(buffers) {
  const std::int64_t local = static_cast<std::int64_t>(x_.size()) / r_;
  if (buffers_) {
    g_ = std::move(buffers_->gradient);
    fixed_ = std::move(buffers_->fixed);
  }
  g_.resize(x_.size());
  // Gradient 2 (A b_i - c_i) ([DPCD] eq. 17 when A = W W^T, c_i = W y_i + nu P^T phi_i), by GEMM
  // over blocks of samples: G = B A, or G = (B W) W^T with the factor.
  constexpr std::int64_t kBlock = 256;
  const int cc = factor ? static_cast<int>(factor->cols) : 0;
  std::vector<double> bd(static_cast<std::size_t>(std::min(local, kBlock) * r_));
  std::vector<double> t(static_cast<std::size_t>(std::min(local, kBlock) * cc));
  for (std::int64_t s0 = 0; s0 < local; s0 += kBlock) {
    const int m = static_cast<int>(std::min(kBlock, local - s0));
    const std::int8_t* xb = x_.data() + s0 * r_;
    double* gb = g_.data() + s0 * r_;
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(m) * r_; ++i) bd[i] = xb[i];
    if (factor) {
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, cc, r_, 1.0, bd.data(), r_,
                  factor->a.data(), cc, 0.0, t.data(), cc);
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, r_, cc, 1.0, t.data(), cc,
                  factor->a.data(), cc, 0.0, gb, r_);
    } else {
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, r_, r_, 1.0, bd.data(), r_,
                  A_.a.data(), r_, 0.0, gb, r_);
    }
    const double* cb = c_.data() + s0 * r_;
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(m) * r_; ++i)
      gb[i] = 2.0 * (gb[i] - cb[i]);
  }
  double a_sum = 0.0, bound = 0.0;
  for (double v : A_.a) a_sum += std::fabs(v);
  for (std::int64_t s = 0; s < local; ++s) {
    double cs = 0.0;
    for (int k = 0; k < r_; ++k) cs += std::fabs(c_[s * r_ + k]);
    bound = std::max(bound, a_sum + 2.0 * cs);
  }
  bound = allreduce_max_double(comm_, bound);
  // An infinite bound has no fixed-point scale (ilogb(inf) + 1 overflowed an int).
  collective_check(comm_, std::isfinite(bound),
                   "hash model not written: the B-step's loss is not finite (input values or "
                   "--nu too large)");
  if (bound > 0) {
    // samples * bound * scale < 2^62.
    const int e = std::ilogb(bound) + 1 +
                  std::ilogb(static_cast<double>(std::max<std::int64_t>(samples_, 1))) + 1;
    scale_ = std::ldexp(1.0, 62 - e);
  }
  fixed_.resize(static_cast<std::size_t>(local));
  for (std::int64_t s = 0; s < local; ++s) {
    fixed_[s] = fixed(sample_value(s));
    local_sum_ += fixed_[s];
  }
  update_objective();
}

CodeProblem::~CodeProblem() {
  if (!buffers_) return;
  buffers_->gradient = std::move(g_);
  buffers_->fixed = std::move(fixed_);
}

// b^T A b - 2 c^T b = b^T (g/2 + c) - 2 c^T b = b^T g / 2 - c^T b.
double CodeProblem::sample_value(std::int64_t s) const {
  double v = 0.0;
  for (int k = 0; k < r_; ++k) v += x_[s * r_ + k] * (0.5 * g_[s * r_ + k] - c_[s * r_ + k]);
  return v;
}

std::int64_t CodeProblem::fixed(double v) const {
  return static_cast<std::int64_t>(std::nearbyint(v * scale_));
}

void CodeProblem::update_objective() {
  const std::int64_t total = allreduce_sum(comm_, local_sum_);
  f_ = f0_ + (scale_ > 0 ? static_cast<double>(total) / scale_ : 0.0);
}

void CodeProblem::flip(const std::vector<std::int64_t>& local) {
  std::vector<std::int64_t> touched;
  touched.reserve(local.size());
  for (std::int64_t p : local) {
    const std::int64_t s = p / r_;
    const int k = static_cast<int>(p % r_);
    const double delta = -2.0 * x_[p];
    double* g = g_.data() + s * r_;
    for (int l = 0; l < r_; ++l) g[l] += 2.0 * A_(l, k) * delta;
    x_[p] = static_cast<std::int8_t>(-x_[p]);
    touched.push_back(s);
  }
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  for (std::int64_t s : touched) {
    const std::int64_t v = fixed(sample_value(s));
    local_sum_ += v - fixed_[s];
    fixed_[s] = v;
  }
  update_objective();
}

double CodeProblem::lipschitz() { return 2.0 * std::max(0.0, largest_eigenvalue(A_)); }

std::vector<double> CodeProblem::coordinate_lipschitz() {
  std::vector<double> L(static_cast<std::size_t>(r_));
  for (int k = 0; k < r_; ++k) L[k] = 2.0 * A_(k, k);
  return L;  // the same for every code: one value per bit (block_size() = r)
}

void CodeProblem::flip_model(const std::vector<std::int64_t>& global, std::vector<double>& single,
                             std::vector<double>& pair) {
  const std::size_t m = global.size();
  const std::int64_t lo = begin(), hi = lo + static_cast<std::int64_t>(x_.size());
  std::vector<double> gx(2 * m, 0.0);  // gradient, then x, of each listed coordinate
  for (std::size_t t = 0; t < m; ++t)
    if (global[t] >= lo && global[t] < hi) {
      gx[t] = g_[global[t] - lo];
      gx[m + t] = x_[global[t] - lo];
    }
  MPI_Allreduce(MPI_IN_PLACE, gx.data(), static_cast<int>(2 * m), MPI_DOUBLE, MPI_SUM, comm_);
  single.assign(m, 0.0);
  pair.assign(m * m, 0.0);
  for (std::size_t t = 0; t < m; ++t) {
    const int k = static_cast<int>(global[t] % r_);
    const double dt = -2.0 * gx[m + t];
    single[t] = gx[t] * dt + A_(k, k) * dt * dt;
    for (std::size_t u = t + 1; u < m; ++u) {
      if (global[t] / r_ != global[u] / r_) continue;
      const int l = static_cast<int>(global[u] % r_);
      pair[t * m + u] = 2.0 * A_(k, l) * dt * (-2.0 * gx[m + u]);
    }
  }
}

double code_objective_local(const Mat& A, const std::vector<double>& c,
                            const std::vector<std::int8_t>& codes, int bits) {
  const std::size_t local = codes.size() / static_cast<std::size_t>(bits);
  double f = 0.0;
  for (std::size_t s = 0; s < local; ++s) {
    const std::int8_t* b = codes.data() + s * bits;
    for (int k = 0; k < bits; ++k) {
      double ab = 0.0;
      for (int l = 0; l < bits; ++l) ab += A(k, l) * b[l];
      f += b[k] * ab - 2.0 * c[s * bits + k] * b[k];
    }
  }
  return f;
}

int dcc_bstep(const Mat& A, const std::vector<double>& c, std::vector<std::int8_t>& codes,
              int bits, int max_sweeps) {
  const std::size_t local = codes.size() / static_cast<std::size_t>(bits);
  int sweeps = 0;
  for (; sweeps < max_sweeps;) {
    ++sweeps;
    std::int64_t changed = 0;
    for (int k = 0; k < bits; ++k) {
      const double* a = A.a.data() + static_cast<std::int64_t>(k) * bits;
      for (std::size_t s = 0; s < local; ++s) {
        std::int8_t* b = codes.data() + s * bits;
        double v = c[s * bits + k];
        for (int l = 0; l < bits; ++l)
          if (l != k) v -= a[l] * b[l];
        const std::int8_t nb = v > 0 ? 1 : v < 0 ? -1 : b[k];
        changed += nb != b[k];
        b[k] = nb;
      }
    }
    if (changed == 0) break;
  }
  return sweeps;
}

void sign_bstep(const std::vector<double>& c, std::vector<std::int8_t>& codes) {
  codes.resize(c.size());
  for (std::size_t i = 0; i < c.size(); ++i) codes[i] = c[i] < 0 ? -1 : 1;
}

}  // namespace lsgl::hash
