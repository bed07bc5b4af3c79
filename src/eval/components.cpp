// Connected components: local union-find plus min-id propagation over the ghost edges.
#include "lsgl/eval/components.hpp"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "lsgl/util/mpi.hpp"

namespace lsgl {

namespace {

std::int64_t find(std::vector<std::int64_t>& parent, std::int64_t x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

}  // namespace

Components connected_components(const CsrGhosts& ghosts, const LocalCsr& m) {
  MPI_Comm comm = ghosts.comm();
  const std::int64_t nl = m.local_rows(), lo = m.begin;
  const auto& slot = ghosts.slot();
  std::vector<std::int64_t> parent(nl);
  std::iota(parent.begin(), parent.end(), std::int64_t(0));
  for (std::int64_t r = 0; r < nl; ++r)
    for (std::int64_t e = m.indptr[r]; e < m.indptr[r + 1]; ++e)
      if (slot[e] < nl) {
        const std::int64_t a = find(parent, r), b = find(parent, slot[e]);
        if (a != b) parent[std::max(a, b)] = std::min(a, b);  // root = smallest local index
      }
  for (std::int64_t r = 0; r < nl; ++r) parent[r] = find(parent, r);  // parent = root
  // Root label: the smallest global index in the local piece (the root itself, by construction).
  std::vector<std::int64_t> label(nl);
  for (std::int64_t r = 0; r < nl; ++r) label[r] = lo + r;

  Components c;
  std::vector<std::int64_t> node(nl), ghost;
  for (;;) {
    for (std::int64_t r = 0; r < nl; ++r) node[r] = label[parent[r]];
    ghosts.exchange(node, ghost);
    int changed = 0;
    for (std::int64_t r = 0; r < nl; ++r)
      for (std::int64_t e = m.indptr[r]; e < m.indptr[r + 1]; ++e)
        if (slot[e] >= nl) {
          const std::int64_t cand = ghost[slot[e] - nl];
          std::int64_t& own = label[parent[r]];
          if (cand < own) {
            own = cand;
            changed = 1;
          }
        }
    ++c.rounds;
    MPI_Allreduce(MPI_IN_PLACE, &changed, 1, MPI_INT, MPI_MAX, comm);
    if (!changed) break;
  }
  c.id.resize(nl);
  for (std::int64_t r = 0; r < nl; ++r) c.id[r] = label[parent[r]];

  const std::vector<std::int64_t> ones(nl, 1);
  const std::vector<std::int64_t> size = component_sums(ghosts, c, ones);
  std::int64_t local[2] = {0, 0};  // components, singletons (counted at their smallest node)
  std::int64_t best_size = 0, best_id = m.n;
  for (std::int64_t r = 0; r < nl; ++r) {
    if (c.id[r] != lo + r) continue;
    ++local[0];
    if (size[r] == 1) ++local[1];
    if (size[r] > best_size) {  // rows ascend, so ties keep the smallest id
      best_size = size[r];
      best_id = c.id[r];
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, local, 2, MPI_INT64_T, MPI_SUM, comm);
  c.count = local[0];
  c.singletons = local[1];
  c.largest_size = allreduce_max(comm, best_size);
  std::int64_t id = best_size == c.largest_size ? best_id : m.n;
  MPI_Allreduce(MPI_IN_PLACE, &id, 1, MPI_INT64_T, MPI_MIN, comm);
  c.largest_id = id;
  return c;
}

std::vector<std::int64_t> component_sums(const CsrGhosts& ghosts, const Components& c,
                                         const std::vector<std::int64_t>& value) {
  MPI_Comm comm = ghosts.comm();
  const Partition& part = ghosts.partition();
  const int size = comm_size(comm);
  const std::int64_t nl = ghosts.local_rows(), lo = part.begin(comm_rank(comm));
  // Local totals per component id, sent to the owner of the id (the component's smallest node).
  std::unordered_map<std::int64_t, std::int64_t> local;
  for (std::int64_t r = 0; r < nl; ++r) local[c.id[r]] += value[r];
  struct Pair {
    std::int64_t id, v;
  };
  std::vector<std::vector<Pair>> send(size);
  for (const auto& [id, v] : local) send[part.owner(id)].push_back({id, v});
  for (auto& s : send)
    std::sort(s.begin(), s.end(), [](const Pair& a, const Pair& b) { return a.id < b.id; });
  std::vector<std::int64_t> total(nl, 0);  // at the owner, indexed by id - lo
  for (const Pair& p : alltoallv(comm, send)) total[p.id - lo] += p.v;
  // Answers: the same lists come back with the totals.
  std::vector<std::vector<std::int64_t>> ask(size);
  for (int p = 0; p < size; ++p)
    for (const Pair& x : send[p]) ask[p].push_back(x.id);
  const std::vector<std::int64_t> asked = alltoallv(comm, ask);
  // `asked` is concatenated by source rank; answer in the same order.
  std::vector<std::int64_t> counts(size, 0);
  {
    std::vector<std::int64_t> mine(size);
    for (int p = 0; p < size; ++p) mine[p] = static_cast<std::int64_t>(ask[p].size());
    MPI_Alltoall(mine.data(), 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, comm);
  }
  std::vector<std::vector<std::int64_t>> answer(size);
  std::size_t at = 0;
  for (int p = 0; p < size; ++p)
    for (std::int64_t k = 0; k < counts[p]; ++k) answer[p].push_back(total[asked[at++] - lo]);
  const std::vector<std::int64_t> got = alltoallv(comm, answer);
  std::unordered_map<std::int64_t, std::int64_t> result;
  at = 0;
  for (int p = 0; p < size; ++p)
    for (const Pair& x : send[p]) result[x.id] = got[at++];
  std::vector<std::int64_t> out(nl);
  for (std::int64_t r = 0; r < nl; ++r) out[r] = result[c.id[r]];
  return out;
}

}  // namespace lsgl
