#pragma once
// The continuous-relaxation baselines of [DPCD]'s dense-subgraph experiment (its Figure 2 and
// Table 2), on the same FixedPointGraph and judged by the same evaluate_subgraph() as DPCD:
//   lp          the relaxation 0 <= x <= 1, 1^T x = k, by projected gradient ascent;
//   l2box-admm  Wu & Ghanem (TPAMI 2018), lp-box ADMM with p = 2: {0,1}^n as the box [0,1]^n
//               intersected with the sphere ||x - 1/2||^2 = n/4;
//   mpec-epm    Yuan & Ghanem (AAAI 2017): exact penalty on the MPEC reformulation
//               x in {0,1}^n  <=>  0 <= x <= 1, <2x - 1, 2v - 1> = n, ||2v - 1||^2 <= n;
//   mpec-adm    the same reformulation with an augmented Lagrangian (arXiv 1608.04425).
// Each works on a continuous x (continuous.hpp: distributed like the rows, W x through the ghost
// exchange, inner products independent of the number of ranks), starts from x proportional to
// the weighted degree (continuous.hpp, degree_start) and ends by rounding to the k largest
// entries of x. The iterates, the stopping decisions and the
// sets do not depend on the number of ranks. Every function is collective; each checks its
// options (CollectiveError).
#include <cmath>
#include <cstdint>
#include <vector>

#include "lsgl/dpcd/dense_subgraph.hpp"

namespace lsgl::dpcd {

// `--method lp` (the parameters are ours: [DPCD] gives none).
struct LpOptions {
  int max_iterations = 1000;  // projected-gradient steps
  double tol = 1e-6;          // stop when a step raises x^T W x by at most tol x^T W x
};

// `--method l2box-admm`: the defaults of Wu & Ghanem's ADMM_bqp_linear_eq (their MATLAB code,
// the version with the linear equality constraint 1^T x = k).
struct L2boxOptions {
  double rho = 25.0;         // rho1 = rho2 = rho3 at the start
  double rho_growth = 1.01;  // all three multiplied by this every rho_every iterations
  int rho_every = 5;
  double gamma = 1.6;          // step of the multiplier updates ...
  double gamma_factor = 0.95;  // ... times this (not below 1) whenever the rhos grow
  int max_iterations = 1000;
  double stop = 1e-4;     // stop when max(||x - y1||, ||x - y2||) / n < stop ...
  double std_tol = 1e-6;  // ... or std of the last `history` objectives / |last| < std_tol
  int history = 3;
  double cg_tol = 1e-4;  // x-update: conjugate gradients to ||r|| <= cg_tol ||rhs||
  int cg_max_iterations = 1000;
};

// `--method mpec-epm` and `mpec-adm` (the schedule of Yuan & Ghanem's experiments as the shared
// notes give it; the inner iterations are ours).
struct MpecOptions {
  double rho = 0.01;                // EPM: the penalty rho; ADM: the augmented weight alpha
  double growth = std::sqrt(10.0);  // rho (alpha) multiplied by this every `every` iterations
  int every = 10;
  int max_iterations = 1000;  // outer iterations
  int inner_iterations = 10;  // projected-gradient steps per x-step
  double inner_tol = 1e-6;    // ... fewer when a step gains at most this (relative)
  double gap_tol = 1e-2;      // stop when n - <2x - 1, 2v - 1> <= gap_tol
};

struct RelaxationResult {
  std::vector<std::int64_t> members;  // this rank's members of the rounded set, sorted
  std::vector<double> objective;      // x^T W x of the continuous x: start, then per iteration
  int iterations = 0;                 // (outer) iterations made
  bool converged = false;             // stopped by the method's test, not by the cap
  std::int64_t products = 0;          // products W x computed
  std::int64_t inner = 0;             // CG iterations (l2box-admm), ascent steps (mpec)
};

// Collective. CollectiveError naming the option (as its --option) when one is out of range or
// not a finite number.
void check_options(MPI_Comm comm, const LpOptions& o);
void check_options(MPI_Comm comm, const L2boxOptions& o);
void check_options(MPI_Comm comm, const MpecOptions& o);
// Collective. CollectiveError unless 1 <= k <= n.
void check_size(const FixedPointGraph& g, std::int64_t k, const char* method);

// Collective. Projected gradient ascent on x^T W x over the capped simplex (continuous.hpp,
// ascend), rounded to the top k.
RelaxationResult lp_relaxation(const FixedPointGraph& g, std::int64_t k, const LpOptions& o);

// Collective. Wu & Ghanem's lp-box ADMM for min x^T A x + b^T x, A = -W, b = 0, s.t. C x = d
// with C = 1^T, d = k: per iteration
//   y1 = clip(x + z1 / rho1, 0, 1)                                    (box)
//   y2 = 1/2 + (sqrt(n) / 2) u / ||u||,  u = x + z2 / rho2 - 1/2      (sphere)
//   (2A + (rho1 + rho2) I + rho3 C^T C) x = rho1 y1 + rho2 y2 + rho3 C^T d - (b + z1 + z2 + C^T z3)
//       by conjugate gradients from y1 (stopped, as MATLAB's pcg, at a non-positive curvature;
//       on failure the iterate of least residual is kept, as pcg does)
//   z1 += gamma rho1 (x - y1), z2 += gamma rho2 (x - y2), z3 += gamma rho3 (C x - d).
// The published code keeps the best binary solution seen; with the cardinality constraint ours
// keeps the best top-k rounding of the iterates (by x^T W x).
RelaxationResult l2box_admm(const FixedPointGraph& g, std::int64_t k, const L2boxOptions& o);

// Collective. MPEC-EPM: with u = 2x - 1 and w = 2v - 1, alternately
//   x-step: ascent steps on x^T W x - rho (n - <u, w>) over the capped simplex;
//   v-step: w = sqrt(n) u / ||u||;
// rho grows every `every` iterations; stop when the gap n - <u, w> <= gap_tol.
RelaxationResult mpec_epm(const FixedPointGraph& g, std::int64_t k, const MpecOptions& o);

// Collective. MPEC-ADM: the augmented Lagrangian
//   x^T W x - pi (n - <u, w>) - (alpha / 2) (n - <u, w>)^2
// alternately in x (ascent steps) and w (w = sqrt(n) u / ||u||), then pi += alpha (n - <u, w>);
// alpha grows as rho does in MPEC-EPM; the same stopping test.
RelaxationResult mpec_adm(const FixedPointGraph& g, std::int64_t k, const MpecOptions& o);

}  // namespace lsgl::dpcd
