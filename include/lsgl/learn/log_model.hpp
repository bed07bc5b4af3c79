#pragma once
// The log model (seed eq. 3 and 5) on a fixed allowed edge set, solved with the
// forward-backward-forward primal-dual iteration (Komodakis & Pesquet 2015; Kalofolias 2016
// Alg. 1) with alpha = beta = 1 on theta * z (seed Prop. 1).
#include <cstdint>
#include <functional>
#include <vector>

#include "lsgl/graph/edgeset.hpp"

namespace lsgl {

struct SolverParams {
  double tol = 1e-5;       // on the relative change of primal and dual variables
  int max_iterations = 1000;
  double step = 0.5;       // gamma = step / (2 beta + ||S||), step in (0, 1)
  int norm_iterations = 30;  // power iterations for ||S||
};

struct SolverReport {
  int iterations = 0;
  bool converged = false;
  double rel_change_primal = 0.0;
  double rel_change_dual = 0.0;
  double norm_S = 0.0;
  double gamma = 0.0;
  std::int64_t bytes_sent_per_iteration = 0;  // by this rank, node exchanges only
};

// Called on every rank after each iteration (iteration, rel primal, rel dual); for progress.
using IterationCallback = std::function<void(int, double, double)>;

// Objective of the log model with alpha = beta = 1 on edge vector w (seed eq. 5, each pair once):
// 2 w^T tz - sum_i log((S w)_i) + ||w||^2. Collective; +inf when a node has zero degree.
double log_objective(const EdgeSet& edges, const std::vector<double>& tz,
                     const std::vector<double>& w);

// Collective. Learns w >= 0 (one per local edge, alpha = beta = 1) for scaled distances
// tz = theta * z (one per local edge).
std::vector<double> learn_log(const EdgeSet& edges, const std::vector<double>& tz,
                              const SolverParams& params, SolverReport& report,
                              const IterationCallback& on_iteration = nullptr);

}  // namespace lsgl
