#pragma once
// The order of a rank's nodes in memory for the learning's edge passes: nodes of one community
// of the local allowed-edge graph next to each other, so that an edge's two ends are close in
// the node vectors at any n. The locality order (locality_order.hpp) cuts the principal space,
// which splits clusters (at 4M rows of issue 27's blobs 10-12% of the edges cross a k-means cut
// against 0.4% between clusters); communities come from the edges themselves.
//
// Communities are those of a label propagation (Raghavan, Albert & Kumara 2007), made
// deterministic: every node starts with its own index as label; in each round, in index order,
// a node takes the label most frequent among its neighbours (their current labels), keeping its
// own on a tie with the best, else the tied label of the smallest hash of (node, label) (a
// deterministic stand-in for the paper's random choice: the smallest label would flood the graph
// through the first round's ties); rounds stop when fewer than 1 in 1,000 nodes change, or after
// kCommunityRounds.
#include <cstdint>
#include <vector>

namespace lsgl {

inline constexpr int kCommunityRounds = 8;

// Local. The labels of the label propagation above on the undirected graph of `nodes` nodes
// given as CSR adjacency (adj_ptr, size nodes + 1; adj: each edge in both directions).
std::vector<std::int32_t> propagate_labels(const std::vector<std::int64_t>& adj_ptr,
                                           const std::vector<std::int32_t>& adj,
                                           int max_rounds = kCommunityRounds);

// Local. The nodes in community order: communities in ascending order of their label, nodes in
// ascending index within one (a permutation of 0..nodes-1).
std::vector<std::int32_t> community_order(const std::vector<std::int64_t>& adj_ptr,
                                          const std::vector<std::int32_t>& adj,
                                          int max_rounds = kCommunityRounds);

}  // namespace lsgl
