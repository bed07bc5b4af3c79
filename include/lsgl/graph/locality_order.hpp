#pragma once
// A locality order of the nodes: nodes whose rows are close in feature space get close indices,
// so that with contiguous blocks per rank most allowed edges join two nodes of one rank (fewer
// ghost nodes, fewer bytes sent per learning iteration) and a rank's node values are touched in
// a cache-friendly order. The data rows themselves stay in input order (the neighbour search is
// unchanged); only the allowed edges are renumbered, and the graph is written in input order.
//
// The key of a row is a Z-order code of its coordinates along the (up to) eight principal
// directions of a fixed sample of rows: cells of about equal width along every direction (a
// direction of half the span gets one bit fewer), split coarse to fine, 63 bits in all; nodes
// are ordered by (key, input index). Eight directions follow clusters that three mix up (blobs
// in 8 latent dimensions, 4,000,000 rows: a learning iteration took 1.45x as long in the
// three-direction order of earlier releases, docs/benchmarks.md). The sample (rows whose index
// hashes below a cut-off) is gathered on every rank in index order, so the directions, the keys and
// hence the order are the same on any number of ranks.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "lsgl/ann/candidates.hpp"
#include "lsgl/graph/edgeset.hpp"
#include "lsgl/io/dataset.hpp"
#include "lsgl/util/names.hpp"

namespace lsgl {

// --order: locality (renumber the nodes by the locality order below, when it is more local than
// the input order) or input (keep the input order).
enum class NodeOrder { kLocality, kInput };
inline constexpr Named<NodeOrder> kNodeOrderNames[] = {{NodeOrder::kLocality, "locality"},
                                                       {NodeOrder::kInput, "input"}};
constexpr const auto& names(NodeOrder) { return kNodeOrderNames; }

// How often a sampled row's nearest sampled row falls in the same of kOrderScoreBlocks equal
// blocks, under the input order and under the locality order.
inline constexpr int kOrderScoreBlocks = 16;
struct OrderScore {
  double input = 0.0, locality = 0.0;
};

struct LocalityOrder {
  std::vector<std::int64_t> input;     // input index of each node of this rank's block (new order);
                                       // empty: the input order is kept
  std::vector<std::int64_t> position;  // new index of each of this rank's input rows
  OrderScore score;
};

// Collective. The locality order of the rows of `data` (each rank its contiguous block of input
// rows), blocks of the new order following Partition(n, size); or, when the input order scores
// at least 1/1.25 of it on the sample (data already in a good order), none (input empty). The
// choice depends on the data only.
LocalityOrder locality_order(MPI_Comm comm, const LocalRows& data);

// Collective. The allowed pairs of `cand` (lists of this rank's input rows, in input indices),
// renumbered into the new order (`order.input` not empty), for EdgeSet::from_pairs: pair
// r * cand.m + c is row r's c-th candidate, carrying the value 1 (one listing: repeats merged
// with RepeatValues::kSum give the number of nodes listing the pair). Made on demand from `cand`
// and `order`, which must outlive the source.
PairSource renumbered_pairs(MPI_Comm comm, std::int64_t n, const Candidates& cand,
                            const LocalityOrder& order);

// Local. Bits per coordinate for cells of about equal width: a coordinate whose span is
// 2^j (rounded down) times smaller than the widest gets j bits fewer, none when its span is 0;
// as many levels as fit in `total` bits (at most 31 per coordinate).
std::vector<int> cube_bits(const std::vector<double>& span, int total);

// Local. The key of coordinates q[k] of bits[k] bits each, coarse to fine: at each level, from
// the most significant, every coordinate with a bit at that level appends it (in the order k).
std::uint64_t interleave_levels(const std::uint32_t* q, const std::vector<int>& bits);

}  // namespace lsgl
