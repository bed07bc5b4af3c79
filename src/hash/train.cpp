// SDH and ITQ training with DPCD or the losses' own B-solvers (see train.hpp).
#include "lsgl/hash/train.hpp"

#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <utility>

#include "lsgl/hash/bstep_baselines.hpp"
#include "lsgl/hash/codes_problem.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/memory.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/select.hpp"
#include "lsgl/util/splitmix.hpp"

namespace lsgl::hash {

namespace {

// Random +-1 codes, a function of (seed, global coordinate) only. Balanced: exactly
// floor(n r / 2) entries are +1 (those of largest hash, a distributed selection).
std::vector<std::int8_t> random_codes(MPI_Comm comm, std::int64_t first, std::int64_t local,
                                      int bits, std::uint64_t seed, bool balanced,
                                      std::int64_t samples) {
  std::vector<std::int8_t> b(static_cast<std::size_t>(local * bits));
  const std::uint64_t base = splitmix64(seed ^ 0x5bd1e995ULL);
  auto hash = [&](std::int64_t i) {
    return splitmix64(base + static_cast<std::uint64_t>(first * bits + i));
  };
  if (!balanced) {
    for (std::int64_t i = 0; i < local * bits; ++i) b[i] = (hash(i) >> 63) ? 1 : -1;
    return b;
  }
  std::vector<SelectKey> keys(b.size());
  for (std::int64_t i = 0; i < local * bits; ++i) keys[i] = make_key(hash(i), 0, first * bits + i);
  const std::vector<char> plus = select_top(comm, keys, samples * bits / 2);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = plus[i] ? 1 : -1;
  return b;
}

// A Gaussian r x r matrix from `seed` (Box-Muller), the same on every rank.
Mat gaussian_matrix(int r, std::uint64_t seed) {
  Mat G(r, r);
  std::uint64_t s = splitmix64(seed ^ 0x1b873593ULL);
  for (auto& v : G.a) {
    const double u1 = (static_cast<double>(splitmix64(s++) >> 11) + 0.5) * 0x1.0p-53;
    const double u2 = (static_cast<double>(splitmix64(s++) >> 11) + 0.5) * 0x1.0p-53;
    v = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  return G;
}

std::vector<double> to_double(const std::vector<std::int8_t>& b) { return {b.begin(), b.end()}; }

// C = A B for local row blocks: A local x p (row-major), B p x q.
std::vector<double> times(const std::vector<double>& A, std::int64_t local, const Mat& B) {
  std::vector<double> C(static_cast<std::size_t>(local * B.cols));
  if (local > 0)
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(local),
                static_cast<int>(B.cols), static_cast<int>(B.rows), 1.0, A.data(),
                static_cast<int>(B.rows), B.a.data(), static_cast<int>(B.cols), 0.0, C.data(),
                static_cast<int>(B.cols));
  return C;
}

// Reproducible sum over samples of one value per sample.
double sample_sum(MPI_Comm comm, const SampleBlocks& blocks, const std::vector<double>& v) {
  return sample_column_sums(comm, blocks, v.data(), 1, static_cast<std::int64_t>(v.size()))[0];
}

double max_over_ranks(MPI_Comm comm, double v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, comm);
  return v;
}

class Timer {
 public:
  explicit Timer(double& acc) : acc_(acc), t0_(MPI_Wtime()) {}
  ~Timer() { acc_ += MPI_Wtime() - t0_; }

 private:
  double& acc_;
  double t0_;
};

// One B-step on f(B) = sum_i b_i^T A b_i - 2 c_i^T b_i + f0 with the chosen solver; returns
// the objective after it. `buffers` is the training's memory reused by every B-step.
double b_step(MPI_Comm comm, const SampleBlocks& blocks, const TrainOptions& o, const Mat& A,
              const Mat* factor, const std::vector<double>& c, double f0,
              std::vector<std::int8_t>& codes, CodeBuffers& buffers, TrainReport& rep) {
  const int rank = comm_rank(comm);
  const std::int64_t first = blocks.begin(rank);
  std::int64_t iterations = 0;
  double objective = 0.0;
  const std::vector<std::int8_t> before = codes;
  {
    Timer t(rep.t_bstep);
    if (o.solver == BSolver::kDpcd) {
      CodeProblem p(comm, blocks.n, first, o.bits, A, factor, c, std::move(codes), f0, &buffers);
      dpcd::Options d = o.dpcd;
      if (o.balanced) d.domain = dpcd::Domain::kFixedCount;
      if (std::all_of(A.a.begin(), A.a.end(), [](double v) { return v == 0.0; }))
        d.one_per_block = false;  // no two bits interact
      const dpcd::Report r = dpcd::minimize(p, d);
      codes = p.release_codes();
      objective = p.objective();
      iterations = r.iterations;
    } else if (o.solver == BSolver::kDcc) {
      iterations = dcc_bstep(A, c, codes, o.bits, o.dcc_sweeps);
    } else if (o.solver == BSolver::kSign) {
      sign_bstep(c, codes);
      iterations = 1;
    } else {
      const CodeObjective f{comm, &blocks, o.bits, &A, factor, &c};
      if (o.solver == BSolver::kSgm) iterations = sgm_bstep(f, codes, o.sgm_iterations);
      else if (o.solver == BSolver::kLp) iterations = lp_bstep(f, codes, o.lp);
      else if (o.solver == BSolver::kL2box) iterations = l2box_bstep(f, codes, o.l2box);
      else iterations = mpec_epm_bstep(f, codes, o.mpec);
    }
  }
  rep.bstep_iterations += allreduce_max(comm, iterations);
  std::int64_t changed = 0;
  for (std::size_t i = 0; i < codes.size(); ++i) changed += codes[i] != before[i];
  rep.flips += allreduce_sum(comm, changed);
  // The loss after the step, evaluated as the DPCD problem does (exact, rank-independent).
  if (o.solver == BSolver::kDpcd) return objective;
  return CodeProblem(comm, blocks.n, first, o.bits, A, factor, c, codes, f0, &buffers).objective();
}

void validate(MPI_Comm comm, const TrainOptions& o, std::int64_t dim, int classes) {
  collective_check(comm, o.bits >= 1 && o.bits <= kMaxBits,
                   "--bits must be between 1 and " + std::to_string(kMaxBits));
  const bool sdh_only = o.solver == BSolver::kDcc || o.solver == BSolver::kSgm ||
                        o.solver == BSolver::kLp || o.solver == BSolver::kL2box ||
                        o.solver == BSolver::kMpecEpm;
  collective_check(comm, !(sdh_only && o.loss != Loss::kSdh),
                   "--solver " + to_string(o.solver) + " needs --loss sdh (the B-step solvers "
                   "compared on SDH's loss)");
  collective_check(comm, !o.balanced || (o.solver == BSolver::kDpcd && o.loss == Loss::kSdh),
                   "--balanced needs --solver dpcd and --loss sdh (DPCD keeps the number of +1 "
                   "bits fixed)");
  collective_check(comm, !(o.solver == BSolver::kSign && o.loss == Loss::kSdh),
                   "--solver sign (the closed-form B-step of ITQ and FSDH) needs --loss itq or "
                   "fsdh");
  collective_check(comm, o.loss != Loss::kItq || o.bits <= dim,
                   "--loss itq needs --bits <= the feature dimension (" + std::to_string(dim) +
                       ")");
  collective_check(comm, o.loss == Loss::kItq || classes >= 1,
                   "--loss " + to_string(o.loss) + " needs labels");
  collective_check(comm, o.beta > 0 && o.lambda > 0 && o.nu >= 0,
                   "need --beta > 0, --lambda > 0 and --nu >= 0");
  collective_check(comm, o.alternations >= 1 && o.itq_iterations >= 1 && o.dcc_sweeps >= 1,
                   "the iteration counts must be >= 1");
  collective_check(comm, o.sgm_iterations >= 1,
                   "--sgm-max-iter must be at least 1 (got " + std::to_string(o.sgm_iterations) +
                       ")");
  dpcd::check_options(comm, o.lp);
  dpcd::check_options(comm, o.l2box);
  dpcd::check_options(comm, o.mpec);
  collective_check(comm, o.dpcd.max_iterations >= 0 && o.dpcd.ns_every >= 0 && o.dpcd.ns_m >= 0,
                   "--max-iter, --ns-every and --ns-m must be >= 0");
  collective_check(comm, o.chunk >= 1 && o.chunk <= INT_MAX,
                   "--chunk must be between 1 and " + std::to_string(INT_MAX));
}

// Sizes beyond what the dense kernels index (dim x dim Gram matrices reduced in one MPI call
// and factorised by LAPACK, both with int counts) or what the ranks of a node can hold.
void check_sizes(MPI_Comm comm, const TrainOptions& o, const LocalRows& rows, std::int64_t dim) {
  const std::string features = o.features == FeatureKind::kRbf
                                   ? "--anchors " + std::to_string(o.anchors)
                                   : std::to_string(rows.d) + " input columns (--features raw)";
  collective_check(comm, dim <= kMaxFeatureDim,
                   "the feature dimension (" + features + ") must be at most " +
                       std::to_string(kMaxFeatureDim) +
                       " (its Gram matrix is indexed with 32-bit integers)");
  const double anchors = o.features == FeatureKind::kRbf ? static_cast<double>(o.anchors) : 0.0;
  collective_check(comm, anchors * static_cast<double>(rows.d) <= INT_MAX,
                   "--anchors times the input columns must be at most " + std::to_string(INT_MAX));
  const auto local = static_cast<double>(rows.local_rows()), d = static_cast<double>(dim);
  // Features and codes of the local samples; the Gram matrix and its factor; the anchors.
  check_allocation(comm, 8.0 * (local * (d + 2.0 * o.bits) + 3.0 * d * d + anchors * rows.d),
                   "training with " + features + " and --bits " + std::to_string(o.bits));
}

// Hash projection ([DPCD] eq. 19): P = (Phi^T Phi + lambda I)^{-1} Phi^T B^T.
Mat projection(MPI_Comm comm, const SampleBlocks& blocks, const Mat& gram,
               const std::vector<double>& phi, std::int64_t dim,
               const std::vector<std::int8_t>& codes, int bits, double lambda) {
  const std::vector<double> bd = to_double(codes);
  const std::int64_t local = static_cast<std::int64_t>(codes.size()) / bits;
  const Mat rhs = sample_cross(comm, blocks, phi.data(), dim, bd.data(), bits, local);
  Mat P;
  collectively(comm, [&] { P = solve_spd(gram, lambda, rhs); });
  return P;
}

Model train_sdh(MPI_Comm comm, const SampleBlocks& blocks, const std::vector<double>& phi,
                std::int64_t dim, const std::vector<std::int32_t>& labels, int classes,
                const TrainOptions& o, TrainReport& rep, Model m) {
  const int rank = comm_rank(comm), r = o.bits;
  const std::int64_t first = blocks.begin(rank), local = blocks.end(rank) - first;
  std::vector<std::int8_t> B =
      random_codes(comm, first, local, r, o.seed, o.balanced, blocks.n);
  Mat gram;
  {
    Timer t(rep.t_pstep);
    gram = sample_cross(comm, blocks, phi.data(), dim, phi.data(), dim, local);
  }
  CodeBuffers buffers;
  for (int it = 0; it < o.alternations; ++it) {
    Mat W;
    {
      Timer t(rep.t_wstep);
      // B B^T and B Y^T are integer sums: exact in int64.
      std::vector<long long> bb(static_cast<std::size_t>(r * r), 0),
          by(static_cast<std::size_t>(r * classes), 0);
      for (std::int64_t s = 0; s < local; ++s) {
        const std::int8_t* b = B.data() + s * r;
        for (int k = 0; k < r; ++k) {
          for (int l = 0; l < r; ++l) bb[k * r + l] += b[k] * b[l];
          by[k * classes + labels[s]] += b[k];
        }
      }
      MPI_Allreduce(MPI_IN_PLACE, bb.data(), static_cast<int>(bb.size()), MPI_LONG_LONG, MPI_SUM,
                    comm);
      MPI_Allreduce(MPI_IN_PLACE, by.data(), static_cast<int>(by.size()), MPI_LONG_LONG, MPI_SUM,
                    comm);
      Mat BBt(r, r), BYt(r, classes);
      for (std::size_t i = 0; i < bb.size(); ++i) BBt.a[i] = static_cast<double>(bb[i]);
      for (std::size_t i = 0; i < by.size(); ++i) BYt.a[i] = static_cast<double>(by[i]);
      collectively(comm, [&] { W = sdh_w_step(BBt, BYt, o.beta); });
    }
    // c_i = W y_i + nu P^T phi_i; f0 = sum ||y_i||^2 + beta ||W||^2 + nu (sum ||F_i||^2 + n r).
    std::vector<double> c(static_cast<std::size_t>(local * r));
    double f0 = static_cast<double>(blocks.n);
    for (double v : W.a) f0 += o.beta * v * v;
    if (o.nu > 0) {
      std::vector<double> F;
      {
        Timer t(rep.t_pstep);
        F = times(phi, local, projection(comm, blocks, gram, phi, dim, B, r, o.lambda));
      }
      std::vector<double> norm2(static_cast<std::size_t>(local), 0.0);
      for (std::int64_t s = 0; s < local; ++s)
        for (int k = 0; k < r; ++k) {
          c[s * r + k] = o.nu * F[s * r + k];
          norm2[s] += F[s * r + k] * F[s * r + k];
        }
      f0 += o.nu * (sample_sum(comm, blocks, norm2) + static_cast<double>(blocks.n) * r);
    }
    for (std::int64_t s = 0; s < local; ++s)
      for (int k = 0; k < r; ++k) c[s * r + k] += W(k, labels[s]);
    Mat A(r, r);
    for (int k = 0; k < r; ++k)
      for (int l = 0; l < r; ++l)
        for (int j = 0; j < classes; ++j) A(k, l) += W(k, j) * W(l, j);
    rep.objective.push_back(b_step(comm, blocks, o, A, &W, c, f0, B, buffers, rep));
  }
  {
    Timer t(rep.t_pstep);
    m.P = projection(comm, blocks, gram, phi, dim, B, r, o.lambda);
  }
  rep.codes = std::move(B);
  return m;
}

// FSDH (Gui et al. 2018): min ||B - W^T Y||^2 + lambda ||W||^2 + nu ||B - P^T phi||^2 by
// alternating the P-step (the hash projection, [DPCD] eq. 19), the W-step (fsdh_w_step) and the
// B-step on f(B) = sum_i -2 c_i^T b_i + f0, c_i = W^T y_i + nu P^T phi_i (A = 0: the closed form
// is b_i = sgn(c_i), which DPCD reaches in one update).
Model train_fsdh(MPI_Comm comm, const SampleBlocks& blocks, const std::vector<double>& phi,
                 std::int64_t dim, const std::vector<std::int32_t>& labels, int classes,
                 const TrainOptions& o, TrainReport& rep, Model m) {
  const int rank = comm_rank(comm), r = o.bits;
  const std::int64_t first = blocks.begin(rank), local = blocks.end(rank) - first;
  std::vector<std::int8_t> B = random_codes(comm, first, local, r, o.seed, false, blocks.n);
  Mat gram;
  {
    Timer t(rep.t_pstep);
    gram = sample_cross(comm, blocks, phi.data(), dim, phi.data(), dim, local);
  }
  std::vector<std::int64_t> counts(static_cast<std::size_t>(classes), 0);
  for (std::int64_t s = 0; s < local; ++s) ++counts[labels[s]];
  MPI_Allreduce(MPI_IN_PLACE, counts.data(), classes, MPI_INT64_T, MPI_SUM, comm);
  CodeBuffers buffers;
  for (int it = 0; it < o.alternations; ++it) {
    std::vector<double> F;
    {
      Timer t(rep.t_pstep);
      F = times(phi, local, projection(comm, blocks, gram, phi, dim, B, r, o.lambda));
    }
    Mat W;
    {
      Timer t(rep.t_wstep);
      std::vector<long long> yb(static_cast<std::size_t>(classes * r), 0);  // Y B^T, exact
      for (std::int64_t s = 0; s < local; ++s)
        for (int k = 0; k < r; ++k) yb[labels[s] * r + k] += B[s * r + k];
      MPI_Allreduce(MPI_IN_PLACE, yb.data(), static_cast<int>(yb.size()), MPI_LONG_LONG, MPI_SUM,
                    comm);
      Mat YBt(classes, r);
      for (std::size_t i = 0; i < yb.size(); ++i) YBt.a[i] = static_cast<double>(yb[i]);
      W = fsdh_w_step(counts, YBt, o.beta);
    }
    // f0 = (1 + nu) n r + sum ||W^T y_i||^2 + nu sum ||F_i||^2 + lambda ||W||^2.
    std::vector<double> c(static_cast<std::size_t>(local * r));
    std::vector<double> norm2(static_cast<std::size_t>(local));
    for (std::int64_t s = 0; s < local; ++s)
      for (int k = 0; k < r; ++k) {
        const double wy = W(labels[s], k), fk = F[s * r + k];
        c[s * r + k] = wy + o.nu * fk;
        norm2[s] += wy * wy + o.nu * fk * fk;
      }
    double f0 = (1.0 + o.nu) * static_cast<double>(blocks.n) * r + sample_sum(comm, blocks, norm2);
    for (double v : W.a) f0 += o.beta * v * v;
    const Mat A(r, r);
    rep.objective.push_back(b_step(comm, blocks, o, A, nullptr, c, f0, B, buffers, rep));
  }
  {
    Timer t(rep.t_pstep);
    m.P = projection(comm, blocks, gram, phi, dim, B, r, o.lambda);
  }
  rep.codes = std::move(B);
  return m;
}

Model train_itq(MPI_Comm comm, const SampleBlocks& blocks, const std::vector<double>& phi,
                std::int64_t dim, const TrainOptions& o, TrainReport& rep, Model m) {
  const int rank = comm_rank(comm), r = o.bits;
  const std::int64_t local = blocks.end(rank) - blocks.begin(rank);
  Mat E, R;
  std::vector<double> V;
  double norm_v = 0.0;
  {
    Timer t(rep.t_pstep);
    const Mat gram = sample_cross(comm, blocks, phi.data(), dim, phi.data(), dim, local);
    collectively(comm, [&] {
      E = top_eigenvectors(gram, r);
      R = polar_orthogonal(gaussian_matrix(r, o.seed));
    });
    V = times(phi, local, E);
    std::vector<double> norm2(static_cast<std::size_t>(local), 0.0);
    for (std::int64_t s = 0; s < local; ++s)
      for (int k = 0; k < r; ++k) norm2[s] += V[s * r + k] * V[s * r + k];
    norm_v = sample_sum(comm, blocks, norm2);
  }
  // ||B - V R||^2 = sum_i (r - 2 c_i^T b_i + ||v_i||^2), c_i = R^T v_i: A = 0.
  const double f0 = static_cast<double>(blocks.n) * r + norm_v;
  const Mat A(r, r);
  std::vector<std::int8_t> B(static_cast<std::size_t>(local * r), 1);
  CodeBuffers buffers;
  for (int it = 0; it < o.itq_iterations; ++it) {
    const std::vector<double> c = times(V, local, R);
    rep.objective.push_back(b_step(comm, blocks, o, A, nullptr, c, f0, B, buffers, rep));
    Timer t(rep.t_wstep);
    const std::vector<double> bd = to_double(B);
    const Mat M = sample_cross(comm, blocks, V.data(), r, bd.data(), r, local);
    collectively(comm, [&] { R = polar_orthogonal(M); });  // Procrustes: max tr(R^T V^T B)
  }
  m.P = multiply(E, R);
  rep.codes = std::move(B);
  return m;
}

}  // namespace

Mat sdh_w_step(const Mat& BBt, const Mat& BYt, double beta) { return solve_spd(BBt, beta, BYt); }

Mat fsdh_w_step(const std::vector<std::int64_t>& class_counts, const Mat& YBt, double lambda) {
  Mat W = YBt;
  for (std::int64_t j = 0; j < W.rows; ++j)
    for (std::int64_t k = 0; k < W.cols; ++k)
      W(j, k) /= static_cast<double>(class_counts[j]) + lambda;
  return W;
}

Model train(MPI_Comm comm, const SampleBlocks& blocks, const LocalRows& rows,
            const std::vector<std::int32_t>& labels, int classes, const TrainOptions& o,
            TrainReport* report) {
  TrainReport rep;
  const double t0 = MPI_Wtime();
  const std::int64_t dim_guess = o.features == FeatureKind::kRaw ? rows.d : o.anchors;
  validate(comm, o, dim_guess, o.loss == Loss::kItq ? 1 : classes);
  check_sizes(comm, o, rows, dim_guess);
  Model m;
  m.bits = o.bits;
  m.loss = o.loss;
  m.solver = o.solver;
  std::vector<double> phi;
  {
    Timer t(rep.t_features);
    m.features = fit_features(comm, blocks, rows, o.features, o.anchors, o.seed, &phi);
  }
  const std::int64_t dim = m.features.dim();
  if (o.loss == Loss::kSdh)
    m = train_sdh(comm, blocks, phi, dim, labels, classes, o, rep, std::move(m));
  else if (o.loss == Loss::kFsdh)
    m = train_fsdh(comm, blocks, phi, dim, labels, classes, o, rep, std::move(m));
  else
    m = train_itq(comm, blocks, phi, dim, o, rep, std::move(m));
  rep.t_total = MPI_Wtime() - t0;
  for (double* t : {&rep.t_features, &rep.t_bstep, &rep.t_wstep, &rep.t_pstep, &rep.t_total})
    *t = max_over_ranks(comm, *t);
  if (report) *report = std::move(rep);
  return m;
}

std::vector<std::int8_t> encode(MPI_Comm comm, const Model& m, const float* x,
                                std::int64_t rows) {
  const std::vector<double> phi = m.features.apply(x, rows);
  const std::vector<double> proj = times(phi, rows, m.P);
  const auto bad =
      std::find_if(proj.begin(), proj.end(), [](double v) { return !std::isfinite(v); });
  const std::int64_t row = (bad - proj.begin()) / std::max(1, m.bits);
  collective_check(comm, bad == proj.end(),
                   "codes not computed: the projection P^T phi(x) of local row " +
                       std::to_string(row) + " on rank " + std::to_string(comm_rank(comm)) +
                       " is not finite (NaN or Inf: input values too large for the model?)");
  std::vector<std::int8_t> codes(proj.size());
  for (std::size_t i = 0; i < proj.size(); ++i) codes[i] = proj[i] < 0 ? -1 : 1;
  return codes;
}

}  // namespace lsgl::hash
