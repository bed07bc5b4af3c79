#pragma once
// Choosing theta from the desired number of neighbours k (seed section 4.2).
// One-node functions are local (not collective); theta_from_k and eq18_degree_slope are
// collective.
#include <mpi.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "lsgl/ann/candidates.hpp"

namespace lsgl {

// Solution of the one-node problem ([KP19] eq. 9) for ascending distances z:
// min_{w>=0} theta w^T z - log(1^T w) + 1/2 ||w||^2.
struct OneNodeSolution {
  std::vector<double> w;  // same order as z
  int k = 0;              // number of non-zeros
  double lambda = 0.0;
};

// lambda for the first i entries, b_i = z_1 + ... + z_i ([KP19] Thm. 2).
double one_node_lambda(double theta, double b, int i);

// Non-zero count and weights for one node ([KP19] Alg. 1, with the erratum in docs/design.md,
// "Theta from k": the scan stops at the first i with lambda_i <= theta z_i, k = i - 1). z must
// be ascending. Local.
OneNodeSolution one_node_solve(const std::vector<double>& z, double theta);

// Interval (lower, upper] of theta giving exactly k non-zeros for one node ([KP19] Thm. 3), from
// the first k+1 ascending distances. A bound whose denominator is not positive (ties or
// duplicate points) is returned as +infinity. Local.
std::pair<double, double> theta_interval(const double* z, int k);

struct ThetaChoice {
  double theta = 0.0;
  double lower_mean = 0.0;  // mean of finite lower bounds over nodes
  double upper_mean = 0.0;  // mean of finite upper bounds over nodes (0 when k == 1)
  std::int64_t nodes_without_lower = 0;  // nodes whose lower bound is infinite (skipped)
  std::int64_t nodes_without_upper = 0;  // nodes whose upper bound is infinite (skipped)
};

// Collective. theta for an average of k neighbours per node ([KP19] eq. 18): the geometric mean of
// the mean lower and mean upper bounds over all nodes, from each node's ascending candidate
// distances (needs cand.m > k). Nodes with an infinite bound (ties, duplicates) are left out of
// that bound's mean and counted; for k == 1 the upper bound is always infinite and theta is
// 1.1 * lower (as the reference code does). Throws CollectiveError if no node has a finite
// lower bound (e.g. all points identical).
ThetaChoice theta_from_k(MPI_Comm comm, const Candidates& cand, int k);

// Collective. The slope d log k / d log theta (negative) of eq. 18's own k -> theta curve at k,
// from the same candidate distances: the secant between eq. 18's theta for k - 1 and k + 1 (k
// and k + 1 when k == 2: at 1 eq. 18 is another rule). It predicts how the learned degree
// answers a change of theta. 0 (no estimate) when k < 2, when the candidates are too few
// (cand.m <= k + 1) or when no node has finite bounds.
double eq18_degree_slope(MPI_Comm comm, const Candidates& cand, int k);

}  // namespace lsgl
