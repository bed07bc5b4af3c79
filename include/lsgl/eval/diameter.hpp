#pragma once
// Unweighted (hop) diameter of the largest connected component, as [KP19]'s manifold
// experiment counts it (Fig. 9: a 64 x 64 grid 4-NN graph has diameter 127).
//  - Exact when the component has at most exact_max_nodes nodes (default 5,000): the component's
//    adjacency is gathered on every rank (at most exact_max_nodes rows, a documented small-n
//    path) and each rank runs BFS from its share of the sources; cost O(s * (s + edges)) / ranks.
//  - Beyond that, a lower bound by the iterated double sweep (Magnien, Latapy & Habib 2009):
//    distributed BFS from the component's smallest node, then each further BFS from the farthest
//    node of the previous one (ties: smallest index); the diameter estimate is the largest
//    eccentricity seen (a lower bound), and min(2 * eccentricity) an upper bound. Each BFS costs
//    one all-to-all and one all-reduce per level.
// Results do not depend on the number of ranks.
#include <cstdint>
#include <string>
#include <vector>

#include "lsgl/eval/components.hpp"
#include "lsgl/graph/csr_ghosts.hpp"
#include "lsgl/graph/local_csr.hpp"

namespace lsgl {

struct DiameterParams {
  std::int64_t exact_max_nodes = 5000;  // exact up to this component size
  int bfs_runs = 4;                     // BFS runs of the lower bound (>= 2: a double sweep)
};

struct DiameterResult {
  std::int64_t diameter = 0;  // exact, or the lower bound
  bool exact = false;
  std::int64_t upper_bound = 0;   // = diameter when exact
  std::int64_t component_id = 0;  // smallest node of the largest component
  std::int64_t component_nodes = 0;
  int bfs_runs = 0;  // distributed BFS runs (0 when exact)
  std::string method;
};

// Collective.
DiameterResult hop_diameter(const CsrGhosts& ghosts, const LocalCsr& m, const Components& c,
                            const DiameterParams& params);

struct BfsResult {
  std::vector<std::int64_t> hops;  // per local row, -1 when not reached
  std::int64_t eccentricity = 0;   // largest hop count reached
  std::int64_t farthest = 0;       // smallest global index at that distance
  std::int64_t reached = 0;        // nodes reached, source included
};

// Collective. Level-synchronous distributed BFS from global node `source`; each ghost is sent to
// its owner at most once.
BfsResult bfs_hops(const CsrGhosts& ghosts, const LocalCsr& m, std::int64_t source);

}  // namespace lsgl
