#pragma once
// Basic statistics of a graph held as row blocks of its symmetric weight matrix W (LocalCsr, as
// read by read_graph_input). The eval measures all work on the cleaned graph: no self loops, no
// stored zeros, columns sorted, W symmetric (graph/symmetry_check.hpp).
#include <mpi.h>

#include <cstdint>

#include "lsgl/graph/local_csr.hpp"

namespace lsgl {

struct GraphStats {
  std::int64_t n = 0;
  std::int64_t nnz = 0;     // stored entries of W (both (i,j) and (j,i))
  std::int64_t edges = 0;   // undirected edges = nnz / 2
  double total_weight = 0;  // sum of the edge weights, each undirected edge once (= ||W||_1,1 / 2)
  double avg_degree = 0;    // nnz / n (neighbours per node), as the graph file's avg_degree
  std::int64_t degree_min = 0, degree_max = 0;              // neighbours per node
  double weighted_degree_min = 0, weighted_degree_max = 0;  // row sums of W
  double weighted_degree_mean = 0;
  std::int64_t isolated = 0;  // nodes without any neighbour
};

// Collective. Statistics of a cleaned graph (a few all-reduces).
GraphStats graph_stats(MPI_Comm comm, const LocalCsr& m);

}  // namespace lsgl
