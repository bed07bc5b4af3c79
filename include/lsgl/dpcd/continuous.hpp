#pragma once
// Building blocks of the continuous-relaxation baselines (relaxations.hpp): a continuous x in R^n
// distributed like the rows of the graph (this rank holds x_i for its own rows), W x by a sparse
// product through the ghost exchange, inner products that do not depend on the number of ranks,
// the exact projection onto the capped simplex, projected-gradient ascent on it, and the rounding
// to a k-set. Every function is collective unless marked local.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "lsgl/dpcd/dense_subgraph.hpp"
#include "lsgl/graph/csr_ghosts.hpp"

namespace lsgl::dpcd {

// y = W x with the graph's double weights: x of the ghost columns is fetched from their owners
// (CsrGhosts), then each row is summed by its owner in its stored column order, so y does not
// depend on the number of ranks.
class GraphProduct {
 public:
  // Collective (finds the ghost columns once).
  explicit GraphProduct(const FixedPointGraph& g);
  // Collective. y = W x on this rank's rows (x: this rank's entries).
  void apply(const std::vector<double>& x, std::vector<double>& y);
  std::int64_t products() const { return products_; }  // apply() calls so far

 private:
  const FixedPointGraph& g_;
  CsrGhosts ghosts_;
  std::vector<double> ghost_x_;
  std::int64_t products_ = 0;
};

// Collective. sum_i terms[i] over all ranks (n: the global number of terms, a bound), added in
// two levels of int64 fixed point (the value, then its rounding residual), each scaled from the
// largest |term| so that nothing overflows: independent of the number of ranks and of the order,
// and more accurate than a double sum. NaN or infinite terms give NaN.
double fixed_point_total(MPI_Comm comm, const std::vector<double>& terms, std::int64_t n);
// Collective. sum_i a_i b_i, as fixed_point_total.
double dot(MPI_Comm comm, const std::vector<double>& a, const std::vector<double>& b,
           std::int64_t n);

// Collective. The Euclidean projection of v onto the capped simplex {0 <= x <= 1, sum x = k}
// (1 <= k <= n): x_i = clip(v_i - tau, 0, 1) with tau the root of
// phi(tau) = sum_i clip(v_i - tau, 0, 1) = k. phi is piecewise linear with breakpoints v_i - 1
// and v_i; a safeguarded Newton iteration (Newton from the current piece, bisection of the
// bracket when Newton leaves it) lands on the root's piece and then solves it exactly, one pass
// and one all-reduce per step. *tau: a starting guess (e.g. the previous projection's) on
// input when finite, the root on output.
std::vector<double> project_capped_simplex(MPI_Comm comm, const std::vector<double>& v,
                                           std::int64_t k, std::int64_t n, double* tau);

// Collective. This rank's members of the k largest entries of x (ties: larger weighted degree,
// then smaller index). Refuses (CollectiveError) an x with a NaN or infinite entry.
std::vector<std::int64_t> round_top_k(const FixedPointGraph& g, const std::vector<double>& x,
                                      std::int64_t k, const char* method);

// A term added to x^T W x that depends on x only through s = <x, w>: value(s) and its
// derivative slope(s); the gradient of the sum is 2 W x + slope(s) w. An empty w means none.
struct ScalarPenalty {
  std::vector<double> w;  // this rank's entries
  std::function<double(double)> value, slope;
};

// The state of projected-gradient ascent on h(x) = x^T W x + penalty(<x, w>) over the capped
// simplex {0 <= x <= 1, sum x = k}.
struct AscentState {
  std::vector<double> x, wx;  // x and W x (this rank's entries)
  double xwx = 0.0;           // x^T W x
  double xw = 0.0;            // <x, w> (0 without a penalty)
  double step = 0.0;          // the next trial step
  double tau = 0.0;           // the last projection's tau (a starting guess for the next)
};

// Collective. The start of every relaxation: x proportional to the weighted degree, scaled to
// sum k and projected onto the capped simplex (x = (k / n) 1 on a graph without edges).
// [DPCD] does not say how its baselines were started; the uniform (k / n) 1 would be a fixed
// point of l2box-admm at its published parameters (symmetric box and sphere steps, an x-update
// that meets its relative tolerance at once).
std::vector<double> degree_start(const FixedPointGraph& g, std::int64_t k);

// Collective. x = degree_start and its products; the first trial step 1 / (2 max weighted
// degree) (2 ||W||_2 <= 2 max degree bounds the Lipschitz constant of 2 W x).
AscentState ascent_start(const FixedPointGraph& g, GraphProduct& W, std::int64_t k);

// Collective. At most max_steps steps x <- P(x + t grad h(x)) (P the projection above). Each step
// tries t = twice the last accepted step and halves it until the ascent condition
//   h(x+) >= h(x) + <grad h(x), x+ - x> - ||x+ - x||^2 / (2 t)
// holds (it does for every t <= 1 / L, L the Lipschitz constant of grad h). Stops early when a
// step raises h by at most tol |h| (returns true then: converged). *steps: the steps made.
bool ascend(const FixedPointGraph& g, GraphProduct& W, std::int64_t k, const ScalarPenalty& penalty,
            int max_steps, double tol, AscentState& s, int* steps);

}  // namespace lsgl::dpcd
