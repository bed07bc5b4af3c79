#pragma once
// The binary-code step (B-step) of the hashing losses, as a DPCD problem and with the
// baselines' own solvers. The objective is separable over samples:
//   f(B) = sum_i ( b_i^T A b_i - 2 c_i^T b_i ) + f0,   b_i in {-1,+1}^r (sample i's code)
// SDH loss ||Y - W^T B||^2 + beta ||W||^2 + nu ||B - P^T phi||^2: A = W W^T,
//   c_i = W y_i + nu P^T phi_i, gradient 2 W (W^T b_i - y_i) - 2 nu P^T phi_i ([DPCD] eq. 17);
// ITQ loss ||B - V R||^2: A = 0, c_i = R^T v_i (the minimiser is sgn(c_i)).
// Samples are in the chunk-aligned sample blocks of chunked.hpp; coordinate i*r + k is bit k
// of sample i, so each rank holds a contiguous block of coordinates.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "lsgl/dpcd/optimizer.hpp"
#include "lsgl/util/dense.hpp"

namespace lsgl::hash {

// Memory a caller keeps across B-steps: a CodeProblem given it takes its per-coordinate
// buffers from it and gives them back when destroyed, so that repeated B-steps of one training
// reuse the same pages instead of mapping (and zeroing) fresh ones every time.
struct CodeBuffers {
  std::vector<double> gradient;
  std::vector<std::int64_t> fixed;
};

class CodeProblem : public dpcd::Problem {
 public:
  // Collective. A: r x r symmetric; factor: optional r x c matrix with A = factor factor^T (the
  // gradient is then formed in O(r c) per sample); c: local x r, read in place (it must outlive
  // the problem); codes: local x r, each +-1; buffers: optional memory to reuse.
  CodeProblem(MPI_Comm comm, std::int64_t samples, std::int64_t first_sample, int bits, Mat A,
              const Mat* factor, const std::vector<double>& c, std::vector<std::int8_t> codes,
              double f0, CodeBuffers* buffers = nullptr);
  ~CodeProblem() override;
  CodeProblem(CodeProblem&&) = delete;
  CodeProblem(const CodeProblem&) = delete;
  CodeProblem& operator=(const CodeProblem&) = delete;
  CodeProblem& operator=(CodeProblem&&) = delete;
  std::vector<std::int8_t> release_codes() { return std::move(x_); }  // leaves x() empty

  MPI_Comm comm() const override { return comm_; }
  std::int64_t n() const override { return samples_ * r_; }
  std::int64_t begin() const override { return first_ * r_; }
  const std::vector<std::int8_t>& x() const override { return x_; }
  const std::vector<double>& gradient() const override { return g_; }
  double objective() const override { return f_; }
  void flip(const std::vector<std::int64_t>& local) override;
  double lipschitz() override;  // 2 * largest eigenvalue of A (0 when A = 0)
  std::vector<double> coordinate_lipschitz() override;  // 2 A_kk, per bit k (periodic)
  std::int64_t block_size() const override { return r_; }  // one code per block
  void flip_model(const std::vector<std::int64_t>& global, std::vector<double>& single,
                  std::vector<double>& pair) override;

 private:
  double sample_value(std::int64_t s) const;  // b_s^T A b_s - 2 c_s^T b_s, from the gradient
  std::int64_t fixed(double v) const;         // v in fixed point (multiples of 1 / scale_)
  void update_objective();                    // collective: f0 + the exact sum of fixed_

  MPI_Comm comm_;
  std::int64_t samples_, first_;
  int r_;
  Mat A_;
  const std::vector<double>& c_;
  std::vector<double> g_;
  std::vector<std::int8_t> x_;
  // Per-sample values in fixed point, with a scale chosen from a bound that holds for every
  // code (sum |A_kl| + 2 sum |c_k|), and their local sum: the objective is exact and
  // independent of the number of ranks, and a flip costs O(r) per touched sample.
  std::vector<std::int64_t> fixed_;
  std::int64_t local_sum_ = 0;
  double scale_ = 0.0;
  double f0_, f_ = 0.0;
  CodeBuffers* buffers_;
};

// Local. The same objective evaluated directly (for tests and reports): per-sample values
// b_i^T A b_i - 2 c_i^T b_i summed in order, plus f0 (not reduced over ranks).
double code_objective_local(const Mat& A, const std::vector<double>& c,
                            const std::vector<std::int8_t>& codes, int bits);

// Local (no communication). SDH's B-step (Shen et al. 2015, discrete cyclic coordinate
// descent): for k = 1..r in turn, b_k = sgn(c_k - sum_{l != k} A_kl b_l) on every sample (zero
// keeps the bit), whole sweeps until no bit changes or max_sweeps; returns the sweeps made.
int dcc_bstep(const Mat& A, const std::vector<double>& c, std::vector<std::int8_t>& codes,
              int bits, int max_sweeps);

// Local. ITQ's B-step, b_i = sgn(c_i) (zero gives +1), the exact minimiser when A = 0.
void sign_bstep(const std::vector<double>& c, std::vector<std::int8_t>& codes);

}  // namespace lsgl::hash
