#pragma once
// Training binary hash codes: supervised discrete hashing (SDH loss, Shen et al. 2015, as in the
// [DPCD]'s hashing section), fast supervised discrete hashing (FSDH loss, Gui et al. 2018) and
// iterative quantisation (ITQ, Gong & Lazebnik 2011), each with DPCD or the loss's own B-solver,
// and on the SDH loss the other B-solvers of [DPCD]'s Table 4. Samples are distributed in
// chunk-aligned sample blocks (chunked.hpp); the B-step needs no communication beyond DPCD's
// selections, the small systems are formed by reproducible all-reduces and solved on every rank
// with LAPACK.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lsgl/dpcd/optimizer.hpp"
#include "lsgl/dpcd/relaxations.hpp"
#include "lsgl/hash/features.hpp"
#include "lsgl/util/dense.hpp"

namespace lsgl::hash {

enum class Loss { kSdh, kItq, kFsdh };
inline constexpr Named<Loss> kLossNames[] = {
    {Loss::kSdh, "sdh"}, {Loss::kItq, "itq"}, {Loss::kFsdh, "fsdh"}};
constexpr const auto& names(Loss) { return kLossNames; }
// B-step solvers: dpcd ([DPCD]; every loss), dcc (SDH's discrete cyclic coordinate descent),
// sgm, lp, l2box-admm, mpec-epm (the other solvers of [DPCD]'s Table 4, bstep_baselines.hpp)
// on the SDH loss only; sign (the closed form b = sgn(c): ITQ's sgn(V R), FSDH's
// sgn(W^T y + nu P^T phi)) on the ITQ and FSDH losses.
enum class BSolver { kDpcd, kDcc, kSign, kSgm, kLp, kL2box, kMpecEpm };
inline constexpr Named<BSolver> kBSolverNames[] = {
    {BSolver::kDpcd, "dpcd"},         {BSolver::kDcc, "dcc"}, {BSolver::kSign, "sign"},
    {BSolver::kSgm, "sgm"},           {BSolver::kLp, "lp"},   {BSolver::kL2box, "l2box-admm"},
    {BSolver::kMpecEpm, "mpec-epm"}};
constexpr const auto& names(BSolver) { return kBSolverNames; }

// Longest code length (bits) that training and the files accept.
constexpr int kMaxBits = 1024;
// Largest feature dimension (anchors, or input columns with raw features): dim^2 fits an int.
constexpr std::int64_t kMaxFeatureDim = 46340;

struct TrainOptions {
  int bits = 32;
  Loss loss = Loss::kSdh;
  BSolver solver = BSolver::kDpcd;
  FeatureKind features = FeatureKind::kRbf;
  std::int64_t anchors = 1000;
  int alternations = 5;   // SDH: W/P/B alternations ([DPCD]: at most 5)
  int itq_iterations = 50;  // ITQ: B-step / rotation alternations (Gong & Lazebnik: 50)
  double beta = 1.0;      // SDH, FSDH: ridge of the W-step ([DPCD] eq. 18; FSDH's lambda)
  double lambda = 0.01;   // ridge of the hash projection P ([DPCD] eq. 19)
  double nu = 1e-5;       // SDH, FSDH: weight of ||B - P^T phi||^2 (SDH: 0 is [DPCD]'s loss)
  int dcc_sweeps = 10;    // dcc: at most this many sweeps per B-step
  int sgm_iterations = 20;  // sgm: at most this many sign updates per B-step
  dpcd::LpOptions lp;       // lp: projected-gradient steps per B-step and tolerance
  dpcd::L2boxOptions l2box; // l2box-admm (ADMM_bqp_unconstrained's defaults; cg_* unused)
  dpcd::MpecOptions mpec;   // mpec-epm (inner_tol unused: inner_iterations steps each)
  // dpcd, sdh: balanced codes, exactly floor(n bits / 2) of all bits are +1 (DPCD on the fixed
  // count domain Omega_r, from balanced random codes).
  bool balanced = false;
  // dpcd B-step: free domain, 20 updates and a 5-neighbourhood search every 10 ([DPCD]). Our
  // default thresholds are coordinate-wise, 2 (W W^T)_kk: a bit is principal when flipping it
  // alone lowers the loss; all principal bits flip together, halved while that raises the loss.
  // one_per_block (flip only the best bit of each code per update, so every update lowers the
  // loss) is an option; with the ITQ loss (A = 0) no bits interact and it is ignored.
  dpcd::Options dpcd;
  std::uint64_t seed = 1;
  std::int64_t chunk = 1024;  // samples per chunk of the reproducible sums
  TrainOptions() {
    dpcd.domain = dpcd::Domain::kFree;
    dpcd.max_iterations = 20;
    dpcd.ns_every = 10;
    dpcd.ns_m = 5;
    dpcd.thresholds = dpcd::ThresholdRule::kCoordinate;
    l2box.std_tol = 1e-5;  // Wu & Ghanem's unconstrained version (1e-6 with constraints)
  }
};

// The hash function h(x) = sgn(P^T phi(x)): phi the (centred) feature map, P dim x bits.
struct Model {
  FeatureMap features;
  Mat P;
  int bits = 0;
  Loss loss = Loss::kSdh;
  BSolver solver = BSolver::kDpcd;
};

struct TrainReport {
  std::vector<double> objective;  // the loss after each alternation
  std::vector<std::int8_t> codes; // learned B of this rank's samples (local x bits, +-1)
  std::int64_t bstep_iterations = 0;  // DPCD updates or DCC sweeps, all B-steps (max over ranks)
  std::int64_t flips = 0;             // bits changed by the B-steps
  double t_features = 0, t_bstep = 0, t_wstep = 0, t_pstep = 0, t_total = 0;  // max over ranks
};

// Collective. Trains on `rows` (this rank's rows of blocks) with class indices `labels` in
// [0, classes) (SDH; ignored by ITQ). Throws CollectiveError on invalid options.
Model train(MPI_Comm comm, const SampleBlocks& blocks, const LocalRows& rows,
            const std::vector<std::int32_t>& labels, int classes, const TrainOptions& o,
            TrainReport* report);

// Collective. Codes of this rank's `rows` input rows: sgn(P^T phi(x)) (0 gives +1), rows x bits
// as +-1. A projection that is NaN or infinite (input values too large for the model, or a
// damaged model) has no sign to keep: refused with a CollectiveError on every rank.
std::vector<std::int8_t> encode(MPI_Comm comm, const Model& m, const float* x,
                                std::int64_t rows);

// Local. The W-step of SDH ([DPCD] eq. 18): W = (B B^T + beta I)^{-1} B Y^T from the reduced
// BBt (r x r) and BYt (r x c).
Mat sdh_w_step(const Mat& BBt, const Mat& BYt, double beta);

// Local. The W-step of FSDH (Gui et al. 2018, the closed form of min_W ||B - W^T Y||^2 +
// lambda ||W||^2): W = (Y Y^T + lambda I)^{-1} Y B^T, c x r, with Y one-hot: row j is the sum of
// the codes of class j (YBt, c x r) over (count_j + lambda).
Mat fsdh_w_step(const std::vector<std::int64_t>& class_counts, const Mat& YBt, double lambda);

}  // namespace lsgl::hash
