#pragma once
// The distributed set of allowed edges, built once and used by every model: which rank owns
// which edge, which nodes are ghosts, and how S (edges -> node sums) and S^T (nodes -> edges)
// are applied across ranks.
//
// Nodes are partitioned in contiguous blocks (lsgl::Partition). An allowed pair {i, j} (i < j)
// is owned by the rank of i when i + j is even and by the rank of j otherwise, which balances
// edges across ranks; the owned endpoint is the edge's "anchor", the other its "other" end
// (a local node or a ghost). Local edges are stored grouped by anchor (CSR rows), each row sorted
// by the other end's global id.
//
// Node vectors hold a rank's nodes in slots: slot s < local_nodes() holds node first_node() +
// local_node(s), in the community order of the local graph (community_order.hpp), then the
// ghosts numbered in order of first use; row r is the anchor in slot r. An edge pass then finds
// an edge's two ends close in memory at any n (cache locality). The order is internal and does
// not change any result beyond round-off; per-node values leave and enter in node order through
// to_node_order and to_slot_order.
#include <mpi.h>
#include <petscvec.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "lsgl/ann/candidates.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl {

// One allowed pair with its squared distance, as given to EdgeSet::build.
struct EdgeEntry {
  std::int64_t i;
  std::int64_t j;
  double z;
  double value = 0.0;  // carried to the owning rank (e.g. a weight from a checkpoint)
};

// A rank's pairs for EdgeSet::from_pairs, made on demand: fill(first, count, out) writes pairs
// first .. first + count - 1 of the `size` to out (the same pairs whenever asked). from_pairs
// asks for them at most `round` at a time, twice (util/rounds.hpp), so that no rank holds a copy
// of all its pairs (at 10^7 nodes, 2.4 GB of pages per rank that the kernel would zero first).
struct PairSource {
  std::int64_t size = 0;
  std::function<void(std::int64_t first, std::int64_t count, EdgeEntry* out)> fill;
  std::int64_t round = std::int64_t(1) << 21;  // 64 MB of pairs
};

// What from_pairs carries for a pair given more than once: the value of the copy it keeps, or
// the sum of the copies' values (e.g. 1 per copy: how many lists name the pair).
enum class RepeatValues { kKept, kSum };

// A node vector with `bs` values per node over local nodes plus this rank's ghosts (a PETSc
// ghosted vector over PETSc indices `ghosts`). values() addresses local nodes first, then
// ghosts, bs values each.
class GhostedNodeVector {
 public:
  GhostedNodeVector(MPI_Comm comm, std::int64_t local_nodes,
                    const std::vector<std::int64_t>& ghosts, int bs);
  ~GhostedNodeVector();
  GhostedNodeVector(const GhostedNodeVector&) = delete;
  GhostedNodeVector& operator=(const GhostedNodeVector&) = delete;
  double* values() { return local_form_; }
  const double* values() const { return local_form_; }
  int bs() const { return bs_; }
  // Collective. Ghost slots receive their owners' values.
  void forward();
  // Collective. Owners receive the sum of the ghost slots added to their value; ghost slots
  // are then zeroed.
  void reverse_add();

 private:
  void get_array();
  void restore_array();
  Vec vec_ = nullptr;
  Vec local_ = nullptr;
  double* local_form_ = nullptr;
  std::int64_t slots_ = 0;
  int bs_ = 1;
};

class EdgeSet {
 public:
  // Collective. The union of every node's candidate list, each pair once (built from the
  // lists, not from distances: duplicate points at distance 0 stay). With `listings`, how many
  // of the edge's two nodes list the other (1 or 2), per local edge in edge order.
  static EdgeSet from_candidates(MPI_Comm comm, std::int64_t n, const Candidates& cand,
                                 std::vector<double>* listings = nullptr);
  // Collective. From pairs given on any rank (i != j; duplicates and (j, i) repeats merged,
  // the first in (i, j, z) order kept). With `values`, returns each local edge's carried value
  // in edge order: that of the copy kept, or with RepeatValues::kSum the sum over the repeats.
  static EdgeSet from_pairs(MPI_Comm comm, std::int64_t n, const std::vector<EdgeEntry>& pairs,
                            std::vector<double>* values = nullptr,
                            RepeatValues repeats = RepeatValues::kKept);
  // Collective. The same from pairs made on demand.
  static EdgeSet from_pairs(MPI_Comm comm, std::int64_t n, const PairSource& pairs,
                            std::vector<double>* values = nullptr,
                            RepeatValues repeats = RepeatValues::kKept);

  MPI_Comm comm() const { return comm_; }
  const Partition& partition() const { return part_; }
  std::int64_t n() const { return part_.n; }
  std::int64_t local_nodes() const { return local_nodes_; }
  std::int64_t first_node() const { return first_; }
  std::int64_t local_edges() const { return static_cast<std::int64_t>(other_.size()); }
  std::int64_t global_edges() const { return global_edges_; }
  // Global ids of the ghosts (ghost t in slot local_nodes() + t).
  const std::vector<std::int64_t>& ghosts() const { return ghosts_; }

  // Row r holds the edges [row_ptr[r], row_ptr[r+1]) anchored at the node in slot r (every
  // local node has exactly one row).
  const std::vector<std::int64_t>& row_ptr() const { return row_ptr_; }
  // Slot of each edge's other end: < local_nodes() for a local node, else local_nodes() +
  // position in ghosts().
  const std::vector<std::int32_t>& other() const { return other_; }
  const std::vector<double>& z() const { return z_; }
  // Local index (global id - first_node()) of the node in slot s < local_nodes().
  std::int64_t local_node(std::int64_t s) const { return slot_node_[s]; }
  // Global id of the node in slot s (a local node or a ghost).
  std::int64_t global_id(std::int64_t s) const {
    return s < local_nodes_ ? first_ + slot_node_[s] : ghosts_[s - local_nodes_];
  }
  // Local. Per-node values of the local nodes from slot order to node order (index global id -
  // first_node()), and back.
  std::vector<double> to_node_order(const std::vector<double>& by_slot) const;
  std::vector<double> to_slot_order(const std::vector<double>& by_node) const;

  // Global (i, j), i < j, of every local edge, in edge order. Local.
  std::vector<std::pair<std::int64_t, std::int64_t>> global_pairs() const;

  // A ghosted node vector matching this edge set.
  std::unique_ptr<GhostedNodeVector> make_node_vector(int bs) const;

  // Collective. out = S w: out[i] = sum of w over the edges at node i (local nodes, bs = 1).
  void apply_S(const std::vector<double>& w, GhostedNodeVector& out) const;
  // Collective. out = S^T v: out[e] = v_i + v_j (v: local values, bs = 1; ghosts refreshed).
  void apply_St(GhostedNodeVector& v, std::vector<double>& out) const;
  // Collective. out = S S^T v in one pass over the edges (v_i + v_j added at both ends of every
  // edge), the same sums in the same order as apply_St followed by apply_S; v's ghosts refreshed.
  void apply_SSt(GhostedNodeVector& v, GhostedNodeVector& out) const;
  // Collective. The number of allowed edges at each local node (S applied to all ones).
  std::vector<double> edge_counts() const;
  // Collective. Spectral norm ||S|| by power iteration on S S^T (from the all-ones vector),
  // never above the bound sqrt(2 * largest number of edges at one node).
  double norm_S(int iterations = 30) const;

  // Bytes this rank sends in one forward() plus one reverse_add() of a bs-valued node vector.
  std::int64_t bytes_sent_per_exchange(int bs) const;

 private:
  EdgeSet() = default;
  MPI_Comm comm_ = MPI_COMM_NULL;
  Partition part_;
  std::int64_t first_ = 0;
  std::int64_t local_nodes_ = 0;
  std::int64_t global_edges_ = 0;
  std::vector<std::int64_t> row_ptr_;
  std::vector<std::int32_t> slot_node_;  // local node of each slot
  std::vector<std::int32_t> other_;
  std::vector<double> z_;
  std::vector<std::int64_t> ghosts_;       // global id of each ghost
  std::vector<std::int64_t> ghost_slots_;  // its PETSc index: owner's first node + owner's slot
  std::int64_t served_ghost_slots_ = 0;  // how many of our nodes are ghosts elsewhere (with mult.)
};

}  // namespace lsgl
