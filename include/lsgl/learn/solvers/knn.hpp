#pragma once
// The k-nearest-neighbour graph with Gaussian weights, the baseline of [KP19]'s comparisons:
// the union of every node's k nearest candidates, each pair once, w_ij = exp(-Z_ij / sigma^2).
#include <mpi.h>

#include <vector>

#include "lsgl/ann/candidates.hpp"
#include "lsgl/graph/edgeset.hpp"

namespace lsgl {

// Local. The first k entries of every candidate list (lists are sorted by distance); k <= m.
Candidates first_k(const Candidates& cand, int k);

// Collective. The default sigma^2: the mean over all nodes of the squared distance to the k-th
// candidate (the lists' k-th column, k <= m). 1 when that mean is 0 (every k-th neighbour a
// duplicate point: every kept weight is then exp(0) = 1 whatever sigma is). Summed in fixed point
// (util/reproducible_sum.hpp): the same bits on any number of ranks.
double knn_default_sigma2(MPI_Comm comm, const Candidates& cand, int k);

// Local. The Gaussian kernel weight of every local edge: w_e = exp(-z_e / sigma2).
std::vector<double> knn_weights(const EdgeSet& edges, double sigma2);

// Local. The mutual k-NN graph from the union's weights: w_e = 0 for every edge listed by one of
// its nodes only (listings[e] < 2, EdgeSet::from_candidates).
void keep_mutual(const std::vector<double>& listings, std::vector<double>& w);

}  // namespace lsgl
