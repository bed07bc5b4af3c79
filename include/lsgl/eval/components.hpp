#pragma once
// Connected components of a cleaned, symmetric graph (see check_and_clean_graph), distributed:
// union-find inside each rank's block, then the smallest node index of each component spreads
// over the edges between blocks (one exchange of all ghost values per round) until nothing
// changes. The number of rounds is at most one more than the hop diameter of the graph whose
// nodes are the ranks' local pieces: 6 on Fashion-MNIST (2 ranks; 10 on 3), up to the graph's
// own diameter when the rows are numbered without locality. Component ids are the smallest
// global node index in the component, so they do not depend on the number of ranks.
#include <cstdint>
#include <vector>

#include "lsgl/graph/csr_ghosts.hpp"
#include "lsgl/graph/local_csr.hpp"

namespace lsgl {

struct Components {
  std::vector<std::int64_t> id;   // per local row: smallest global node index of its component
  std::int64_t count = 0;         // number of components (an isolated node is one)
  std::int64_t largest_id = 0;    // id of the largest component (ties: smallest id)
  std::int64_t largest_size = 0;  // its number of nodes
  std::int64_t singletons = 0;    // components of one node
  int rounds = 0;                 // exchange rounds used
};

// Collective.
Components connected_components(const CsrGhosts& ghosts, const LocalCsr& m);

// Collective. Per component, the sum over its nodes of `value` (one per local row), returned per
// local row (each node gets the total of its component). Cost: two all-to-alls of at most one
// message per distinct component present on a rank.
std::vector<std::int64_t> component_sums(const CsrGhosts& ghosts, const Components& c,
                                         const std::vector<std::int64_t>& value);

}  // namespace lsgl
