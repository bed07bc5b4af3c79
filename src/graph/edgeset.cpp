#include "lsgl/graph/edgeset.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <numeric>

#include "lsgl/graph/community_order.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/petsc.hpp"
#include "lsgl/util/rounds.hpp"

namespace lsgl {

namespace {

// An edge on the rank that owns it, as from_pairs stores it: an EdgeEntry whose i is the anchor
// (a local node) and j the other end.
using OwnedEdge = EdgeEntry;

// Local. The end of pair {i, j} (i != j, either order) whose rank owns it: the lower end when
// i + j is even, the upper one when odd (the edges spread evenly over both ends' ranks).
std::int64_t anchor_of(const EdgeEntry& e) {
  return ((e.i + e.j) & 1) == 0 ? std::min(e.i, e.j) : std::max(e.i, e.j);
}

// Local. Within each anchor's group of own (CSR offsets ptr, rewritten), the edges sorted by
// (other, z) and the repeats of a pair merged: the first in (other, z) order kept, with its value
// or, with `sum`, the sum of the repeats' values. A sort of each anchor's few edges: linear in the
// edges (one sort of all of them cost 26 passes over memory at 10^7 nodes), same result as
// sorting by (a, b, z) and keeping the first of each (a, b).
void merge_repeats(std::vector<OwnedEdge>& own, std::vector<std::int64_t>& ptr,
                   RepeatValues repeats) {
  const auto by_other = [](const OwnedEdge& x, const OwnedEdge& y) {
    return x.j != y.j ? x.j < y.j : x.z < y.z;
  };
  const std::int64_t nl = static_cast<std::int64_t>(ptr.size()) - 1;
  std::int64_t kept = 0;
  for (std::int64_t r = 0; r < nl; ++r) {
    const auto first = own.begin() + ptr[r], last = own.begin() + ptr[r + 1];
    std::sort(first, last, by_other);
    ptr[r] = kept;
    for (auto it = first; it != last; ++it)
      if (it == first || it->j != (it - 1)->j)
        own[kept++] = *it;
      else if (repeats == RepeatValues::kSum)
        own[kept - 1].value += it->value;
  }
  ptr[nl] = kept;
  own.resize(kept);
}

// Collective. Each pair (self-loops dropped) on the rank of its anchor, the lower end when
// i + j is even and the upper one when odd, as (anchor, other), grouped by anchor (CSR offsets
// of the local anchors lo..lo + nl - 1 into `nat`), sorted by (b, z) within each anchor, with
// repeats of a pair merged (the first by z kept, values as `repeats` says). The pairs travel in
// rounds (RoundExchange): the anchors first, to count each anchor's edges, then the pairs,
// each placed straight at its anchor's place. The only buffer as large as the pairs is the
// result.
std::vector<OwnedEdge> owned_edges(MPI_Comm comm, const Partition& part, std::int64_t lo,
                                   std::int64_t nl, const PairSource& pairs,
                                   std::vector<std::int64_t>& nat, RepeatValues repeats) {
  const auto make = [&](std::int64_t first, std::int64_t count, std::vector<EdgeEntry>& out) {
    out.resize(static_cast<std::size_t>(count));
    if (count > 0) pairs.fill(first, count, out.data());
    std::size_t kept = 0;
    for (EdgeEntry e : out) {
      if (e.i == e.j) continue;
      if (e.i > e.j) std::swap(e.i, e.j);
      out[kept++] = e;
    }
    out.resize(kept);
  };
  const auto rank_of = [&](const EdgeEntry& e) {
    return static_cast<std::size_t>(part.owner(anchor_of(e)));
  };
  const auto offset = [&](const EdgeEntry& e) {  // the anchor's place on its rank
    const std::int64_t a = anchor_of(e);
    return static_cast<std::int32_t>(a - part.begin(part.owner(a)));
  };
  auto exchange = round_exchange<EdgeEntry>(comm, pairs.size, pairs.round, make, rank_of);
  nat.assign(static_cast<std::size_t>(nl + 1), 0);
  exchange.keys(offset, [&](std::int32_t a) { ++nat[static_cast<std::size_t>(a) + 1]; });
  std::partial_sum(nat.begin(), nat.end(), nat.begin());
  std::vector<OwnedEdge> own(static_cast<std::size_t>(nat[nl]));
  std::vector<std::int64_t> at(nat.begin(), nat.end() - 1);
  exchange.items([&](const EdgeEntry& e) {
    const std::int64_t a = anchor_of(e), b = a == e.i ? e.j : e.i;
    own[at[a - lo]++] = {a, b, e.z, e.value};
  });
  merge_repeats(own, nat, repeats);
  return own;
}

// Local. The adjacency of the nl local nodes (from lo) over the local-local edges, both
// directions (CSR: adj_ptr, adj).
void local_adjacency(const std::vector<OwnedEdge>& own, std::int64_t lo, std::int64_t nl,
                     std::vector<std::int64_t>& adj_ptr, std::vector<std::int32_t>& adj) {
  const std::int64_t hi = lo + nl;
  adj_ptr.assign(nl + 1, 0);
  for (const auto& e : own)
    if (e.j >= lo && e.j < hi) ++adj_ptr[e.i - lo + 1], ++adj_ptr[e.j - lo + 1];
  std::partial_sum(adj_ptr.begin(), adj_ptr.end(), adj_ptr.begin());
  adj.resize(adj_ptr[nl]);
  std::vector<std::int64_t> fill(adj_ptr.begin(), adj_ptr.end() - 1);
  for (const auto& e : own)
    if (e.j >= lo && e.j < hi) {
      adj[fill[e.i - lo]++] = static_cast<std::int32_t>(e.j - lo);
      adj[fill[e.j - lo]++] = static_cast<std::int32_t>(e.i - lo);
    }
}

// Local. The local nodes in community order (community_order.hpp) of the local-local edges.
std::vector<std::int32_t> slot_order(const std::vector<OwnedEdge>& own, std::int64_t lo,
                                     std::int64_t nl) {
  std::vector<std::int64_t> adj_ptr;
  std::vector<std::int32_t> adj;
  local_adjacency(own, lo, nl, adj_ptr, adj);
  return community_order(adj_ptr, adj);
}

// Local. The ghosts (other ends held by other ranks) numbered by first use when the anchors'
// edges are read in slot order (slot_node: the local node of each slot; nat: the edges of each
// anchor in `own`): their global ids in that order into `ghosts`; returns (global id, number)
// sorted by global id.
std::vector<std::pair<std::int64_t, std::int32_t>> number_ghosts(
    const std::vector<OwnedEdge>& own, const std::vector<std::int64_t>& nat,
    const std::vector<std::int32_t>& slot_node, std::int64_t lo, std::int64_t nl,
    std::vector<std::int64_t>& ghosts) {
  std::vector<std::pair<std::int64_t, std::int32_t>> ghost_slot;  // (global id, slot), sorted
  for (std::int32_t a : slot_node)
    for (std::int64_t k = nat[a]; k < nat[a + 1]; ++k) {
      const std::int64_t b = own[k].j;
      if (b >= lo && b < lo + nl) continue;
      ghost_slot.push_back({b, 0});
    }
  // First use order: stable unique by global id keeping the first position.
  for (std::size_t t = 0; t < ghost_slot.size(); ++t)
    ghost_slot[t].second = static_cast<std::int32_t>(t);
  std::stable_sort(ghost_slot.begin(), ghost_slot.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  ghost_slot.erase(std::unique(ghost_slot.begin(), ghost_slot.end(),
                               [](const auto& x, const auto& y) { return x.first == y.first; }),
                   ghost_slot.end());
  std::vector<std::pair<std::int32_t, std::int64_t>> by_use;  // (first position, global id)
  by_use.reserve(ghost_slot.size());
  for (const auto& [g, pos] : ghost_slot) by_use.push_back({pos, g});
  std::sort(by_use.begin(), by_use.end());
  ghosts.reserve(by_use.size());
  for (std::size_t t = 0; t < by_use.size(); ++t) ghosts.push_back(by_use[t].second);
  for (auto& gs : ghost_slot) {
    gs.second = static_cast<std::int32_t>(
        std::lower_bound(by_use.begin(), by_use.end(), std::make_pair(gs.second, gs.first)) -
        by_use.begin());
  }
  return ghost_slot;
}

// Collective. How many of our nodes other ranks hold as ghosts (for the communication volume
// report).
std::int64_t served_ghost_slots(MPI_Comm comm, const Partition& part,
                                const std::vector<std::int64_t>& ghosts) {
  const int size = comm_size(comm);
  std::vector<std::int64_t> ghosts_per_owner(size, 0), served(size, 0);
  for (auto g : ghosts) ++ghosts_per_owner[part.owner(g)];
  MPI_Alltoall(ghosts_per_owner.data(), 1, MPI_INT64_T, served.data(), 1, MPI_INT64_T, comm);
  return std::accumulate(served.begin(), served.end(), std::int64_t(0));
}

}  // namespace

GhostedNodeVector::GhostedNodeVector(MPI_Comm comm, std::int64_t local_nodes,
                                     const std::vector<std::int64_t>& ghosts, int bs)
    : slots_((local_nodes + static_cast<std::int64_t>(ghosts.size())) * bs), bs_(bs) {
  std::vector<PetscInt> g(ghosts.begin(), ghosts.end());
  petsc_check(VecCreateGhostBlock(comm, bs, static_cast<PetscInt>(local_nodes * bs), PETSC_DECIDE,
                                  static_cast<PetscInt>(g.size()), g.data(), &vec_),
              "VecCreateGhostBlock");
  petsc_check(VecGhostGetLocalForm(vec_, &local_), "VecGhostGetLocalForm");
  get_array();
  std::fill(local_form_, local_form_ + slots_, 0.0);
}

GhostedNodeVector::~GhostedNodeVector() {
  restore_array();
  VecGhostRestoreLocalForm(vec_, &local_);
  VecDestroy(&vec_);
}

void GhostedNodeVector::get_array() {
  petsc_check(VecGetArray(local_, &local_form_), "VecGetArray");
}

void GhostedNodeVector::restore_array() {
  petsc_check(VecRestoreArray(local_, &local_form_), "VecRestoreArray");
}

void GhostedNodeVector::forward() {
  restore_array();
  petsc_check(VecGhostUpdateBegin(vec_, INSERT_VALUES, SCATTER_FORWARD), "VecGhostUpdateBegin");
  petsc_check(VecGhostUpdateEnd(vec_, INSERT_VALUES, SCATTER_FORWARD), "VecGhostUpdateEnd");
  get_array();
}

void GhostedNodeVector::reverse_add() {
  restore_array();
  petsc_check(VecGhostUpdateBegin(vec_, ADD_VALUES, SCATTER_REVERSE), "VecGhostUpdateBegin");
  petsc_check(VecGhostUpdateEnd(vec_, ADD_VALUES, SCATTER_REVERSE), "VecGhostUpdateEnd");
  get_array();
  PetscInt local_size = 0;
  petsc_check(VecGetLocalSize(vec_, &local_size), "VecGetLocalSize");
  std::fill(local_form_ + local_size, local_form_ + slots_, 0.0);
}

EdgeSet EdgeSet::from_candidates(MPI_Comm comm, std::int64_t n, const Candidates& cand,
                                 std::vector<double>* listings) {
  const PairSource pairs{static_cast<std::int64_t>(cand.idx.size()),
                         [&](std::int64_t first, std::int64_t count, EdgeEntry* out) {
                           for (std::int64_t t = first; t < first + count; ++t) {
                             const std::int64_t u = cand.begin + t / cand.m, v = cand.idx[t];
                             *out++ = {std::min(u, v), std::max(u, v), cand.dist[t], 1.0};
                           }
                         }};
  return from_pairs(comm, n, pairs, listings, RepeatValues::kSum);
}

EdgeSet EdgeSet::from_pairs(MPI_Comm comm, std::int64_t n, const std::vector<EdgeEntry>& pairs,
                            std::vector<double>* values, RepeatValues repeats) {
  const PairSource source{static_cast<std::int64_t>(pairs.size()),
                          [&](std::int64_t first, std::int64_t count, EdgeEntry* out) {
                            std::copy_n(pairs.begin() + first, count, out);
                          }};
  return from_pairs(comm, n, source, values, repeats);
}

EdgeSet EdgeSet::from_pairs(MPI_Comm comm, std::int64_t n, const PairSource& pairs,
                            std::vector<double>* values, RepeatValues repeats) {
  const int size = comm_size(comm), rank = comm_rank(comm);
  // Ghost indices are PETSc (32-bit) block indices of a 2-valued node vector.
  collective_check(
      comm, n * 2 < static_cast<std::int64_t>(std::numeric_limits<PetscInt>::max()),
      "n = " + std::to_string(n) + " is too large for this PETSc build (32-bit indices)");
  EdgeSet s;
  s.comm_ = comm;
  s.part_ = Partition(n, size);
  s.first_ = s.part_.begin(rank);
  s.local_nodes_ = s.part_.count(rank);
  collective_check(comm, s.local_nodes_ < INT_MAX, "too many nodes on one rank: use more ranks");
  const std::int64_t nl = s.local_nodes_, lo = s.first_;
  std::vector<std::int64_t> nat;
  const std::vector<OwnedEdge> own = owned_edges(comm, s.part_, lo, nl, pairs, nat, repeats);

  s.slot_node_ = slot_order(own, lo, nl);
  std::vector<std::int64_t> node_slot(static_cast<std::size_t>(nl));
  for (std::int64_t t = 0; t < nl; ++t) node_slot[s.slot_node_[t]] = t;
  const std::vector<std::pair<std::int64_t, std::int32_t>> ghost_slot =
      number_ghosts(own, nat, s.slot_node_, lo, nl, s.ghosts_);
  collective_check(comm, nl + static_cast<std::int64_t>(s.ghosts_.size()) < INT_MAX,
                   "too many nodes and ghost nodes on one rank: use more ranks");
  // A ghost's value sits in its owner's slot of that node.
  s.ghost_slots_ = fetch_from_owners(comm, s.part_, s.ghosts_, node_slot);
  for (std::size_t t = 0; t < s.ghosts_.size(); ++t)
    s.ghost_slots_[t] += s.part_.begin(s.part_.owner(s.ghosts_[t]));

  // Rows in slot order.
  if (values) values->clear();
  s.row_ptr_.assign(nl + 1, 0);
  s.other_.reserve(own.size());
  s.z_.reserve(own.size());
  for (std::int64_t r = 0; r < nl; ++r) {
    const std::int32_t a = s.slot_node_[r];
    for (std::int64_t k = nat[a]; k < nat[a + 1]; ++k) {
      const std::int64_t b = own[k].j;
      std::int64_t slot;
      if (b >= lo && b < lo + nl) {
        slot = node_slot[b - lo];
      } else {
        const auto it = std::lower_bound(
            ghost_slot.begin(), ghost_slot.end(), std::make_pair(b, std::int32_t(0)),
            [](const auto& x, const auto& y) { return x.first < y.first; });
        slot = nl + it->second;
      }
      s.other_.push_back(static_cast<std::int32_t>(slot));
      s.z_.push_back(own[k].z);
      if (values) values->push_back(own[k].value);
    }
    s.row_ptr_[r + 1] = static_cast<std::int64_t>(s.other_.size());
  }
  s.global_edges_ = allreduce_sum(comm, static_cast<std::int64_t>(own.size()));
  s.served_ghost_slots_ = served_ghost_slots(comm, s.part_, s.ghosts_);
  return s;
}

std::vector<std::pair<std::int64_t, std::int64_t>> EdgeSet::global_pairs() const {
  std::vector<std::pair<std::int64_t, std::int64_t>> out(other_.size());
  for (std::int64_t r = 0; r < local_nodes_; ++r) {
    const std::int64_t a = first_ + slot_node_[r];
    for (std::int64_t e = row_ptr_[r]; e < row_ptr_[r + 1]; ++e) {
      const std::int64_t b = global_id(other_[e]);
      out[e] = {std::min(a, b), std::max(a, b)};
    }
  }
  return out;
}

std::unique_ptr<GhostedNodeVector> EdgeSet::make_node_vector(int bs) const {
  return std::make_unique<GhostedNodeVector>(comm_, local_nodes_, ghost_slots_, bs);
}

void EdgeSet::apply_S(const std::vector<double>& w, GhostedNodeVector& out) const {
  double* o = out.values();
  std::fill(o, o + local_nodes_ + static_cast<std::int64_t>(ghosts_.size()), 0.0);
  for (std::int64_t r = 0; r < local_nodes_; ++r) {
    double sum = 0.0;
    for (std::int64_t e = row_ptr_[r]; e < row_ptr_[r + 1]; ++e) {
      sum += w[e];
      o[other_[e]] += w[e];
    }
    o[r] += sum;
  }
  out.reverse_add();
}

void EdgeSet::apply_St(GhostedNodeVector& v, std::vector<double>& out) const {
  v.forward();
  const double* x = v.values();
  out.resize(other_.size());
  for (std::int64_t r = 0; r < local_nodes_; ++r) {
    const double xa = x[r];
    for (std::int64_t e = row_ptr_[r]; e < row_ptr_[r + 1]; ++e) out[e] = xa + x[other_[e]];
  }
}

void EdgeSet::apply_SSt(GhostedNodeVector& v, GhostedNodeVector& out) const {
  v.forward();
  const double* x = v.values();
  double* o = out.values();
  std::fill(o, o + local_nodes_ + static_cast<std::int64_t>(ghosts_.size()), 0.0);
  for (std::int64_t r = 0; r < local_nodes_; ++r) {
    const double xa = x[r];
    double sum = 0.0;
    for (std::int64_t e = row_ptr_[r]; e < row_ptr_[r + 1]; ++e) {
      const double t = xa + x[other_[e]];
      sum += t;
      o[other_[e]] += t;
    }
    o[r] += sum;
  }
  out.reverse_add();
}

std::vector<double> EdgeSet::edge_counts() const {
  auto count = make_node_vector(1);
  double* c = count->values();
  std::fill(c, c + local_nodes_ + static_cast<std::int64_t>(ghosts_.size()), 0.0);
  for (std::int64_t r = 0; r < local_nodes_; ++r) {
    for (std::int64_t e = row_ptr_[r]; e < row_ptr_[r + 1]; ++e) c[other_[e]] += 1.0;
    c[r] += static_cast<double>(row_ptr_[r + 1] - row_ptr_[r]);
  }
  count->reverse_add();
  return std::vector<double>(c, c + local_nodes_);
}

double EdgeSet::norm_S(int iterations) const {
  // Bound: ||S||^2 = lambda_max(S S^T) <= 2 * largest number of edges at one node.
  double max_deg = 0.0;
  for (const double c : edge_counts()) max_deg = std::max(max_deg, c);
  MPI_Allreduce(MPI_IN_PLACE, &max_deg, 1, MPI_DOUBLE, MPI_MAX, comm_);
  const double bound = std::sqrt(2.0 * max_deg);
  if (max_deg == 0.0) return 0.0;

  auto u = make_node_vector(1), next = make_node_vector(1);
  std::fill(u->values(), u->values() + local_nodes_, 1.0);
  double lambda = 0.0;
  for (int it = 0; it < iterations; ++it) {
    double uu = 0.0;
    for (std::int64_t i = 0; i < local_nodes_; ++i) uu += u->values()[i] * u->values()[i];
    apply_SSt(*u, *next);
    const double* x = u->values();
    const double* y = next->values();
    double all[3] = {uu, 0.0, 0.0};
    for (std::int64_t i = 0; i < local_nodes_; ++i) all[1] += x[i] * y[i];
    for (std::int64_t i = 0; i < local_nodes_; ++i) all[2] += y[i] * y[i];
    MPI_Allreduce(MPI_IN_PLACE, all, 3, MPI_DOUBLE, MPI_SUM, comm_);
    lambda = all[1] / all[0];  // Rayleigh quotient of S S^T at the previous iterate
    const double scale = 1.0 / std::sqrt(all[2]);
    for (std::int64_t i = 0; i < local_nodes_; ++i) next->values()[i] *= scale;
    std::swap(u, next);
  }
  return std::min(bound, std::sqrt(lambda));
}

std::vector<double> EdgeSet::to_node_order(const std::vector<double>& by_slot) const {
  std::vector<double> out(static_cast<std::size_t>(local_nodes_));
  for (std::int64_t t = 0; t < local_nodes_; ++t) out[slot_node_[t]] = by_slot[t];
  return out;
}

std::vector<double> EdgeSet::to_slot_order(const std::vector<double>& by_node) const {
  std::vector<double> out(static_cast<std::size_t>(local_nodes_));
  for (std::int64_t t = 0; t < local_nodes_; ++t) out[t] = by_node[slot_node_[t]];
  return out;
}

std::int64_t EdgeSet::bytes_sent_per_exchange(int bs) const {
  return (static_cast<std::int64_t>(ghosts_.size()) + served_ghost_slots_) * bs *
         static_cast<std::int64_t>(sizeof(double));
}

}  // namespace lsgl
