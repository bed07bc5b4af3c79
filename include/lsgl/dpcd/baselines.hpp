#pragma once
// Baselines for the dense k-subgraph problem, on the same FixedPointGraph and judged by the same
// evaluate_subgraph(). Every function is collective and returns this rank's members (sorted
// global ids); the sets do not depend on the number of ranks.
#include <cstdint>
#include <vector>

#include "lsgl/dpcd/dense_subgraph.hpp"

namespace lsgl::dpcd {

// The k nodes of largest weighted degree (ties: smaller global index). Distributed selection.
std::vector<std::int64_t> top_degree(const FixedPointGraph& g, std::int64_t k);

// Greedy peeling to size k: repeatedly remove a node of least weighted degree in the remaining
// graph until k are left. The graph is gathered on rank 0 (counted in the time), which peels with
// a bucket queue (all weights equal: O(|E| + n)) or an indexed binary heap keyed by (degree,
// index) (weighted: O(|E| log n)); the k survivors are broadcast.
std::vector<std::int64_t> peel(const FixedPointGraph& g, std::int64_t k);

// RAVI (Ravi, Rosenkrantz & Tayi): start from the heaviest edge (its endpoint of larger degree,
// then smaller index; the other end is then the first node added), repeatedly add the outside
// node with the largest weight into the set (ties: larger degree, then smaller index) until k.
// Each rank keeps a lazy max-heap of its outside nodes; one all-gather of candidates and one
// push of the new member's row per step.
std::vector<std::int64_t> ravi(const FixedPointGraph& g, std::int64_t k);

// Feige-style greedy (Feige, Kortsarz & Peleg): the floor(k/2) nodes of largest degree, then the
// k - floor(k/2) outside nodes with the most weight into them (ties: degree, then index).
std::vector<std::int64_t> feige(const FixedPointGraph& g, std::int64_t k);

// Truncated power method for indicator vectors: x <- the k nodes of largest (W x)_i (ties:
// degree, then index), from `init` (each rank its members), until the set repeats or after
// max_iterations; returns the best set seen. `history` gets x^T W x (double) of each iterate.
std::vector<std::int64_t> tpower(const FixedPointGraph& g, std::int64_t k,
                                 const std::vector<std::int64_t>& init, int max_iterations,
                                 std::vector<double>* history, int* iterations);

}  // namespace lsgl::dpcd
