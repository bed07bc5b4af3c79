#pragma once
// The log model ([KP19] eq. 3 and 5) on a fixed allowed edge set, with alpha = beta = 1 on
// theta * z ([KP19] Prop. 1), solved with the forward-backward-forward primal-dual iteration
// (Komodakis & Pesquet 2015; Kalofolias 2016 Alg. 1; "fbf", the reference) or with FISTA on the
// dual (Saboksayr & Mateos 2021; "fdpg", src/learn/fdpg.cpp).
#include <csignal>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lsgl/ann/candidates.hpp"
#include "lsgl/graph/edgeset.hpp"

namespace lsgl {

struct SolverParams {
  std::string solver = "fbf";  // fbf (reference) or fdpg (lsgl learn's default)
  // fbf: on the relative change of primal and dual variables; fdpg: on the relative change of
  // the dual and the KKT residual ||lambda .* (S w) - 1|| / sqrt(n)
  double tol = 1e-5;
  int max_iterations = 1000;
  double step = 0.9;       // fbf: gamma = step / (2 beta + ||S||/c), step in (0, 1)
  int norm_iterations = 30;  // power iterations for ||S||
  // fbf only (fdpg is invariant to this scaling). c > 0: the iteration runs on the equivalent problem with S/c in place of S (the log term
  // only changes by a constant), which balances primal and dual progress; c = 1 is the
  // reference iteration. 0 asks the caller to choose (see estimate_dual_scale).
  double dual_scale = 1.0;
  // Residual balancing: every balance_every iterations (0: never), if the relative primal and
  // dual changes differ by more than 10x, c moves by a factor 2 toward the lagging side; at most
  // max_rescales times.
  int balance_every = 50;
  int max_rescales = 8;
  // When set, a flag raised asynchronously (e.g. by a signal handler) on any rank; it is folded
  // into the iteration's all-reduce so every rank sees it at the same iteration.
  const volatile std::sig_atomic_t* interrupt = nullptr;
};

// Everything needed to continue the iteration exactly where it was (local parts). fdpg: w is
// w*(lambda), v the dual lambda (> 0), dual_scale 1 and rescales 0; a resumed fdpg restarts its
// momentum from lambda, so it is the same iteration only up to that restart.
struct SolverState {
  std::vector<double> w;  // per local edge
  std::vector<double> v;  // per local node (dual, on S/c)
  double dual_scale = 1.0;
  int iteration = 0;      // iterations done
  int rescales = 0;
  // fdpg: the extrapolated dual per local node and the momentum t_k, so that a resume continues
  // the same sequence (empty: fbf, or a state that restarts the momentum)
  std::vector<double> mu;
  double momentum = 1.0;
};

// What every rank sees after an iteration (identical on all ranks).
struct IterationInfo {
  int iteration = 0;
  double rel_change_primal = 0.0;
  double rel_change_dual = 0.0;
  bool converged = false;
  bool interrupted = false;  // the interrupt flag was raised on some rank
};

struct SolverReport {
  int iterations = 0;       // including those done before a resume
  int iterations_run = 0;   // in this call
  bool converged = false;
  bool interrupted = false;  // stopped because the interrupt flag was raised
  double rel_change_primal = 0.0;
  double rel_change_dual = 0.0;
  double norm_S = 0.0;
  double gamma = 0.0;
  std::int64_t bytes_sent_per_iteration = 0;  // by this rank, node exchanges only
  // Bytes this rank's iteration streams through memory (edge arrays read and written, node
  // arrays), for the effective bandwidth; and the wall time of the iterations.
  std::int64_t bytes_moved_per_iteration = 0;
  double iteration_seconds = 0.0;
  double final_dual_scale = 1.0;  // c after residual balancing (fdpg: 1)
  int rescales = 0;
  int restarts = 0;  // fdpg: momentum restarts in this call
};

// Called on every rank after each iteration, with a function that captures the current state
// (for checkpoints; with fdpg the capture is collective: call it on every rank or on none);
// returning true stops the iteration (collectively: the caller must decide
// the same on every rank, e.g. from IterationInfo only).
using IterationCallback =
    std::function<bool(const IterationInfo&, const std::function<SolverState()>& capture)>;

// Objective of the log model with alpha = beta = 1 on edge vector w ([KP19] eq. 5, each pair once):
// 2 w^T tz - sum_i log((S w)_i) + ||w||^2. Collective; +inf when a node has zero degree.
double log_objective(const EdgeSet& edges, const std::vector<double>& tz,
                     const std::vector<double>& w);

// Collective. A dual scale c for SolverParams: sqrt(sum ||w_i||^2 / 2 / sum lambda_i^2) over the
// one-node solutions ([KP19] Thm. 2) of every node's candidate list at this theta, i.e. the ratio
// of the expected primal and dual (1/degree) magnitudes, clipped to [0.02, 1]. Measured: within
// a factor 1.5 of the best fixed c on Fashion-MNIST, blobs, latent-space and manifold data.
double estimate_dual_scale(MPI_Comm comm, const Candidates& cand, double theta);

// Collective. Learns w >= 0 (one per local edge, alpha = beta = 1) for scaled distances
// tz = theta * z (one per local edge), from w = 0, v = 0 or from `start` (a state captured by an
// earlier run of the same solver on the same edges, possibly on another number of ranks and
// redistributed), with the solver params.solver (CollectiveError for another name).
std::vector<double> learn_log(const EdgeSet& edges, const std::vector<double>& tz,
                              const SolverParams& params, SolverReport& report,
                              const IterationCallback& on_iteration = nullptr,
                              const SolverState* start = nullptr);

// Collective. learn_log with FISTA on the dual (fdpg): from lambda = 1 or from start->v. Uses
// tol, max_iterations, norm_iterations and interrupt of params; fills every SolverReport field
// (gamma: the step 1/L; rel_change_primal: the KKT residual; rel_change_dual: the relative
// change of lambda).
std::vector<double> learn_log_fdpg(const EdgeSet& edges, const std::vector<double>& tz,
                                   const SolverParams& params, SolverReport& report,
                                   const IterationCallback& on_iteration = nullptr,
                                   const SolverState* start = nullptr);

}  // namespace lsgl
