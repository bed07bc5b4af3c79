#pragma once
// The l2 model ([KP19] eq. 4; Hu et al. 2013, Dong et al. 2015) on a fixed allowed edge set:
//   minimize over w >= 0:  2 w^T z + alpha ||S w||^2 + 2 alpha ||w||^2   s.t.  2 * 1^T w = n,
// solved by accelerated projected gradient (the objective is 4 alpha-strongly convex, so a
// constant momentum is used) with the Euclidean projection onto {w >= 0, 1^T w = n/2}.
// Sparsity is set by alpha alone (larger alpha: denser); there is no closed-form alpha for a
// degree, so l2_to_degree searches it with the degree search of the log model (search_degree).
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "lsgl/graph/edgeset.hpp"
#include "lsgl/learn/degree_search.hpp"
#include "lsgl/learn/solver.hpp"

namespace lsgl {

struct L2Params {
  double tol = 1e-5;        // on ||w_new - w|| / ||w||
  int max_iterations = 1000;
  int norm_iterations = 30;  // power iterations for ||S||
  double norm_S = 0.0;       // > 0: ||S|| known (the alpha search computes it once)
  Monitor* monitor = &null_monitor();  // told every iteration (never null)
};

struct L2Report {
  int iterations = 0;
  bool converged = false;
  double rel_change = 0.0;
  double norm_S = 0.0;
  std::int64_t projection_steps = 0;  // Newton steps of the projections, all iterations
};

// Collective. The objective of [KP19] eq. 4 at w (local edges, each pair once):
// 2 w^T z + alpha ||S w||^2 + 2 alpha ||w||^2 (the constraint is not checked).
double l2_objective(const EdgeSet& edges, double alpha, const std::vector<double>& w);

// Collective. Replaces y (one value per local edge) by its Euclidean projection onto
// {w >= 0, sum over all ranks of w = total} (total > 0): w = max(0, y - tau), tau found exactly
// by Newton steps from the left on the piecewise-linear sum (Michelot's algorithm), one pass and
// one small all-reduce each, starting from `hint` (e.g. the previous tau) when it is left of
// tau, else from -inf. Returns tau; `steps` (optional) receives the number of passes.
double project_scaled_simplex(MPI_Comm comm, std::vector<double>& y, double total,
                              double hint = -std::numeric_limits<double>::infinity(),
                              int* steps = nullptr);

// Collective. Solves [KP19] eq. 4 for one alpha > 0, from `start` when given (any point: it is
// projected first) or from the uniform weights n / (2 |E|).
std::vector<double> learn_l2(const EdgeSet& edges, double alpha, const L2Params& params,
                             L2Report& report, const std::vector<double>* start = nullptr);

struct L2Search {
  double alpha = 0.0;       // the alpha of the returned weights
  double avg_degree = 0.0;  // their average degree (weights > threshold)
  int solves = 0;           // solutions computed
  int iterations = 0;       // iterations over all solves
  bool all_converged = true;
  bool reached = false;     // avg_degree is within the target's tolerance of k
  L2Report last;            // report of the returned solution's solve
};

// Collective. Searches alpha so that the average degree of the solution (weights > threshold)
// is k, with search_degree (degree_search.hpp; the degree grows with alpha): from alpha = mean z
// over the allowed edges, secant steps of at most a factor 4 until k is bracketed, then
// interpolation of log(degree) in log(alpha), until the degree is within target.tol * k of k or
// target.max_solves solutions were computed (target.tol = 0: the first alpha only). Each solve
// runs to params.tol, warm-started from the previous solution. Returns the solution whose degree
// is closest to k. on_solve (same on every rank) is called after each solve.
using L2SolveCallback = std::function<void(double alpha, double degree, const L2Report&)>;
std::vector<double> l2_to_degree(const EdgeSet& edges, double k, double threshold,
                                 const L2Params& params, const DegreeTarget& target,
                                 L2Search& search, const L2SolveCallback& on_solve = nullptr);

}  // namespace lsgl
