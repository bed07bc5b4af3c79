#pragma once
// Training binary hash codes: supervised discrete hashing (SDH loss, Shen et al. 2015, as in the
// [DPCD]'s hashing section) and iterative quantisation (ITQ, Gong & Lazebnik 2011), each with
// DPCD or the loss's own B-solver. Samples are distributed in chunk-aligned sample blocks
// (chunked.hpp); the B-step needs no communication beyond DPCD's selections, the small systems
// are formed by reproducible all-reduces and solved on every rank with LAPACK.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lsgl/dpcd/optimizer.hpp"
#include "lsgl/hash/features.hpp"
#include "lsgl/util/dense.hpp"

namespace lsgl::hash {

enum class Loss { kSdh, kItq };
inline constexpr Named<Loss> kLossNames[] = {{Loss::kSdh, "sdh"}, {Loss::kItq, "itq"}};
constexpr const auto& names(Loss) { return kLossNames; }
// B-step solvers: dpcd ([DPCD]), dcc (SDH's discrete cyclic coordinate descent; SDH loss
// only), sign (ITQ's b = sgn(V R); ITQ loss only).
enum class BSolver { kDpcd, kDcc, kSign };
inline constexpr Named<BSolver> kBSolverNames[] = {
    {BSolver::kDpcd, "dpcd"}, {BSolver::kDcc, "dcc"}, {BSolver::kSign, "sign"}};
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
  double beta = 1.0;      // SDH: ridge of the W-step ([DPCD] eq. 18)
  double lambda = 0.01;   // ridge of the hash projection P ([DPCD] eq. 19)
  double nu = 1e-5;       // SDH: weight of ||B - P^T phi||^2 in the B-step (0: [DPCD]'s loss)
  int dcc_sweeps = 10;    // dcc: at most this many sweeps per B-step
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

}  // namespace lsgl::hash
