#include "lsgl/graph/edgeset.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>

#include "lsgl/util/error.hpp"
#include "lsgl/util/petsc.hpp"

namespace lsgl {

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

EdgeSet EdgeSet::from_candidates(MPI_Comm comm, std::int64_t n, const Candidates& cand) {
  std::vector<EdgeEntry> pairs;
  pairs.reserve(cand.idx.size());
  for (std::int64_t r = 0; r < cand.local_rows(); ++r) {
    const std::int64_t u = cand.begin + r;
    for (int c = 0; c < cand.m; ++c) {
      const std::int64_t v = cand.idx[r * cand.m + c];
      pairs.push_back({std::min(u, v), std::max(u, v), cand.dist[r * cand.m + c]});
    }
  }
  return from_pairs(comm, n, std::move(pairs));
}

EdgeSet EdgeSet::from_pairs(MPI_Comm comm, std::int64_t n, std::vector<EdgeEntry> pairs) {
  const int size = comm_size(comm), rank = comm_rank(comm);
  // Ghost indices are PETSc (32-bit) block indices of a 2-valued node vector.
  collective_check(comm, n * 2 < static_cast<std::int64_t>(std::numeric_limits<PetscInt>::max()),
                   "n = " + std::to_string(n) + " is too large for this PETSc build (32-bit indices)");
  EdgeSet s;
  s.comm_ = comm;
  s.part_ = Partition(n, size);
  s.first_ = s.part_.begin(rank);
  s.local_nodes_ = s.part_.count(rank);

  // Route each pair to its owning rank.
  std::vector<std::vector<EdgeEntry>> send(size);
  for (auto e : pairs) {
    if (e.i == e.j) continue;
    if (e.i > e.j) std::swap(e.i, e.j);
    const bool even = ((e.i + e.j) & 1) == 0;
    send[s.part_.owner(even ? e.i : e.j)].push_back(e);
  }
  pairs.clear();
  pairs.shrink_to_fit();
  std::vector<EdgeEntry> mine = alltoallv(comm, send);
  send.clear();

  // (anchor, other) per edge; sort, merge repeats.
  struct Owned {
    std::int64_t a, b;
    double z;
  };
  const std::int64_t lo = s.first_, hi = s.first_ + s.local_nodes_;
  std::vector<Owned> own;
  own.reserve(mine.size());
  for (const auto& e : mine) {
    const bool even = ((e.i + e.j) & 1) == 0;
    const std::int64_t a = even ? e.i : e.j, b = even ? e.j : e.i;
    own.push_back({a, b, e.z});
  }
  mine.clear();
  mine.shrink_to_fit();
  std::sort(own.begin(), own.end(), [](const Owned& x, const Owned& y) {
    return std::tie(x.a, x.b, x.z) < std::tie(y.a, y.b, y.z);
  });
  own.erase(std::unique(own.begin(), own.end(),
                        [](const Owned& x, const Owned& y) { return x.a == y.a && x.b == y.b; }),
            own.end());

  for (const auto& e : own)
    if (e.b < lo || e.b >= hi) s.ghosts_.push_back(e.b);
  std::sort(s.ghosts_.begin(), s.ghosts_.end());
  s.ghosts_.erase(std::unique(s.ghosts_.begin(), s.ghosts_.end()), s.ghosts_.end());
  collective_check(comm, s.local_nodes_ + static_cast<std::int64_t>(s.ghosts_.size()) < INT_MAX,
                   "too many nodes and ghost nodes on one rank: use more ranks");

  s.anchor_ptr_.assign(s.local_nodes_ + 1, 0);
  s.other_.resize(own.size());
  s.z_.resize(own.size());
  for (std::size_t e = 0; e < own.size(); ++e) {
    ++s.anchor_ptr_[own[e].a - lo + 1];
    const std::int64_t b = own[e].b;
    s.other_[e] = static_cast<std::int32_t>(
        b >= lo && b < hi ? b - lo
                          : s.local_nodes_ + (std::lower_bound(s.ghosts_.begin(), s.ghosts_.end(), b) -
                                              s.ghosts_.begin()));
    s.z_[e] = own[e].z;
  }
  std::partial_sum(s.anchor_ptr_.begin(), s.anchor_ptr_.end(), s.anchor_ptr_.begin());
  s.global_edges_ = allreduce_sum(comm, static_cast<std::int64_t>(own.size()));

  // How many of our nodes other ranks hold as ghosts (for the communication volume report).
  std::vector<std::int64_t> ghosts_per_owner(size, 0), served(size, 0);
  for (auto g : s.ghosts_) ++ghosts_per_owner[s.part_.owner(g)];
  MPI_Alltoall(ghosts_per_owner.data(), 1, MPI_INT64_T, served.data(), 1, MPI_INT64_T, comm);
  s.served_ghost_slots_ = std::accumulate(served.begin(), served.end(), std::int64_t(0));
  return s;
}

std::unique_ptr<GhostedNodeVector> EdgeSet::make_node_vector(int bs) const {
  return std::make_unique<GhostedNodeVector>(comm_, local_nodes_, ghosts_, bs);
}

void EdgeSet::apply_S(const std::vector<double>& w, GhostedNodeVector& out) const {
  double* o = out.values();
  std::fill(o, o + local_nodes_ + static_cast<std::int64_t>(ghosts_.size()), 0.0);
  for (std::int64_t a = 0; a < local_nodes_; ++a) {
    double sum = 0.0;
    for (std::int64_t e = anchor_ptr_[a]; e < anchor_ptr_[a + 1]; ++e) {
      sum += w[e];
      o[other_[e]] += w[e];
    }
    o[a] += sum;
  }
  out.reverse_add();
}

void EdgeSet::apply_St(GhostedNodeVector& v, std::vector<double>& out) const {
  v.forward();
  const double* x = v.values();
  out.resize(other_.size());
  for (std::int64_t a = 0; a < local_nodes_; ++a)
    for (std::int64_t e = anchor_ptr_[a]; e < anchor_ptr_[a + 1]; ++e) out[e] = x[a] + x[other_[e]];
}

double EdgeSet::norm_S(int iterations) const {
  auto u = make_node_vector(1);
  std::vector<double> t(other_.size(), 1.0);
  // Bound: ||S||^2 = lambda_max(S S^T) <= 2 * largest number of edges at one node.
  apply_S(t, *u);
  double max_deg = 0.0;
  for (std::int64_t i = 0; i < local_nodes_; ++i) max_deg = std::max(max_deg, u->values()[i]);
  MPI_Allreduce(MPI_IN_PLACE, &max_deg, 1, MPI_DOUBLE, MPI_MAX, comm_);
  const double bound = std::sqrt(2.0 * max_deg);
  if (max_deg == 0.0) return 0.0;

  std::fill(u->values(), u->values() + local_nodes_, 1.0);
  double lambda = 0.0;
  for (int it = 0; it < iterations; ++it) {
    double uu = 0.0;
    for (std::int64_t i = 0; i < local_nodes_; ++i) uu += u->values()[i] * u->values()[i];
    std::vector<double> before(u->values(), u->values() + local_nodes_);
    apply_St(*u, t);
    apply_S(t, *u);
    double sums[2] = {uu, 0.0};
    for (std::int64_t i = 0; i < local_nodes_; ++i) sums[1] += before[i] * u->values()[i];
    double uv = 0.0;
    for (std::int64_t i = 0; i < local_nodes_; ++i) uv += u->values()[i] * u->values()[i];
    double all[3] = {sums[0], sums[1], uv};
    MPI_Allreduce(MPI_IN_PLACE, all, 3, MPI_DOUBLE, MPI_SUM, comm_);
    lambda = all[1] / all[0];  // Rayleigh quotient of S S^T at the previous iterate
    const double scale = 1.0 / std::sqrt(all[2]);
    for (std::int64_t i = 0; i < local_nodes_; ++i) u->values()[i] *= scale;
  }
  return std::min(bound, std::sqrt(lambda));
}

std::int64_t EdgeSet::bytes_sent_per_exchange(int bs) const {
  return (static_cast<std::int64_t>(ghosts_.size()) + served_ghost_slots_) * bs *
         static_cast<std::int64_t>(sizeof(double));
}

}  // namespace lsgl
