#pragma once
// Connectivity between classes ([KP19] Fig. 5 and 6): with W normalised to ||W||_1,1 = 1,
// the share of the total weight between nodes of labels a and b, and the share on "wrong" edges
// (between different labels).
#include <cstdint>
#include <vector>

#include "lsgl/eval/labels.hpp"
#include "lsgl/graph/csr_ghosts.hpp"
#include "lsgl/graph/local_csr.hpp"

namespace lsgl {

struct ClassConnectivity {
  std::vector<std::int64_t> classes;  // label values (= NodeLabels::classes)
  std::vector<std::int64_t> nodes;    // nodes per class
  // share[a * C + b] = sum of W_ij over i of class a, j of class b, divided by ||W||_1,1 (the sum
  // of all stored entries, both directions): symmetric, sums to 1. The share of the pair {a, b},
  // a != b, is share[a][b] + share[b][a]; the share within a is share[a][a].
  std::vector<double> share;
  double wrong_share = 0;  // sum of share[a][b] over a != b (0 for a graph without edges)
  double total = 0;        // ||W||_1,1
};

// Collective. One ghost exchange of class indices and one all-reduce of C x C numbers.
// Unlabelled nodes (labels.index -1) and their edges are left out of every count.
ClassConnectivity class_connectivity(const CsrGhosts& ghosts, const LocalCsr& m,
                                     const NodeLabels& labels);

}  // namespace lsgl
