#pragma once
// The "hard" and "soft" models of Daitch, Kelner & Spielman 2009 on a fixed allowed edge set,
// scaled as in [KP19] appendix C:
//   hard ([KP19] eq. 22):  minimize ||M w||^2                           s.t. w >= 0, S w >= 1
//   soft ([KP19] eq. 23):  minimize ||M w||^2 + mu ||max(1 - S w, 0)||^2  s.t. w >= 0
// with ||L X||_F^2 = ||M w||^2, (M w)_i = sum_j w_ij (x_i - x_j) (a d-vector per node), so M w
// and M^T u cost O(|E| d). soft is solved by FISTA (Beck & Teboulle 2009) with adaptive restart,
// hard by the Condat-Vu primal-dual iteration (a forward-backward primal-dual scheme, as the
// Komodakis & Pesquet Alg. 2 of [KP19]). Every node needs the features of the other end of its
// edges: they are held in a ghosted node vector of d values per node.
#include <memory>
#include <vector>

#include "lsgl/graph/edgeset.hpp"
#include "lsgl/io/dataset.hpp"
#include "lsgl/util/monitor.hpp"

namespace lsgl {

struct DaitchParams {
  double tol = 1e-5;  // on the relative change of primal (and, for hard, dual) variables
  int max_iterations = 1000;
  int norm_iterations = 30;  // power iterations for ||M|| and ||S||
  Monitor* monitor = &null_monitor();  // told every iteration (never null)
};

struct DaitchReport {
  int iterations = 0;
  bool converged = false;
  double rel_change_primal = 0.0;
  double rel_change_dual = 0.0;  // hard only
  double norm_M = 0.0;
  double norm_S = 0.0;
  int restarts = 0;  // soft only: FISTA momentum restarts
};

// M and S together on one edge set: node vectors carry d + 1 values per node, (M w)_i in the
// first d and (S w)_i in the last, so one exchange serves both operators.
class DaitchOperator {
 public:
  // Collective. x holds this rank's rows of the features (x.begin == edges.first_node(),
  // x.n == edges.n()); copied into a ghosted vector, x itself is not kept.
  DaitchOperator(const EdgeSet& edges, const LocalRows& x);
  const EdgeSet& edges() const { return edges_; }
  int dim() const { return d_; }
  // Collective (creates a PETSc vector). A node vector of d + 1 values per node.
  std::unique_ptr<GhostedNodeVector> make_vector() const { return edges_.make_node_vector(d_ + 1); }
  // Collective. out = (M w, S w) per local node.
  void apply(const std::vector<double>& w, GhostedNodeVector& out) const;
  // Collective. out = M^T u + S^T s for (u, s) given on the local nodes of `us` (ghosts are
  // refreshed here): out_e = <u_a - u_b, x_a - x_b> + s_a + s_b.
  void apply_transpose(GhostedNodeVector& us, std::vector<double>& out) const;
  // Collective. ||M|| (spectral norm) by power iteration on M^T M.
  double norm_M(int iterations) const;
  // Collective. Mean of ||x_a - x_b||^2 over the allowed edges (the default mu of soft).
  double mean_squared_distance() const;

 private:
  const EdgeSet& edges_;
  int d_ = 0;
  std::unique_ptr<GhostedNodeVector> x_;  // features, ghosts filled
};

// Collective. ||M w||^2, the objective of [KP19] eq. 22.
double hard_objective(const DaitchOperator& op, const std::vector<double>& w);

// Collective. ||M w||^2 + mu ||max(1 - S w, 0)||^2, [KP19] eq. 23.
double soft_objective(const DaitchOperator& op, double mu, const std::vector<double>& w);

// Collective. Solves [KP19] eq. 23 (mu > 0) by FISTA with projection onto w >= 0, from w = 0.
std::vector<double> learn_soft(const DaitchOperator& op, double mu, const DaitchParams& params,
                               DaitchReport& report);

// Collective. Solves [KP19] eq. 22 by the Condat-Vu iteration from w = 0 (dual step
// sigma = 0.1 ||M||^2 / ||S||^2, primal step 0.99 / (||M||^2 + sigma ||S||^2)). It converges
// slowly (thousands of iterations where soft needs hundreds, as [KP19] notes), and a loose tol
// can stop it early. With `multipliers`, returns the Lagrange multiplier of S w >= 1 of every
// local node (>= 0).
std::vector<double> learn_hard(const DaitchOperator& op, const DaitchParams& params,
                               DaitchReport& report, std::vector<double>* multipliers = nullptr);

}  // namespace lsgl
