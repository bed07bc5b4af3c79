#pragma once
// The log model ([KP19] eq. 3 and 5) on a fixed allowed edge set, with alpha = beta = 1 on
// theta * z ([KP19] Prop. 1), solved with the forward-backward-forward primal-dual iteration
// (Komodakis & Pesquet 2015; Kalofolias 2016 Alg. 1; "fbf", the reference) or with FISTA on the
// dual (Saboksayr & Mateos 2021; "fdpg"). The iterations are in src/learn/solvers/fbf.cpp and
// fdpg.cpp.
#include <vector>

#include "lsgl/ann/candidates.hpp"
#include "lsgl/graph/edgeset.hpp"
#include "lsgl/learn/solver.hpp"

namespace lsgl {

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
// redistributed), with the solver params.solver.
std::vector<double> learn_log(const EdgeSet& edges, const std::vector<double>& tz,
                              const SolverParams& params, SolverReport& report,
                              const IterationCallback& on_iteration = nullptr,
                              const SolverState* start = nullptr);

// Collective. learn_log with the forward-backward-forward iteration (fbf), from w = 0, v = 0 or
// from `start`.
std::vector<double> learn_log_fbf(const EdgeSet& edges, const std::vector<double>& tz,
                                  const SolverParams& params, SolverReport& report,
                                  const IterationCallback& on_iteration = nullptr,
                                  const SolverState* start = nullptr);

// Collective. learn_log with FISTA on the dual (fdpg): from lambda = 1 or from start->v. Uses
// tol, max_iterations, norm_iterations, interrupt and monitor of params; fills every SolverReport
// field (gamma: the largest step; kkt_residual; rel_change_dual: the relative change of lambda;
// rel_change_primal stays 0).
std::vector<double> learn_log_fdpg(const EdgeSet& edges, const std::vector<double>& tz,
                                   const SolverParams& params, SolverReport& report,
                                   const IterationCallback& on_iteration = nullptr,
                                   const SolverState* start = nullptr);

}  // namespace lsgl
