// Hop diameter of the largest component: exact (gathered, all-sources BFS) or the iterated
// double-sweep lower bound (distributed BFS).
#include "lsgl/eval/diameter.hpp"

#include <algorithm>

#include "lsgl/util/mpi.hpp"

namespace lsgl {

BfsResult bfs_hops(const CsrGhosts& ghosts, const LocalCsr& m, std::int64_t source) {
  MPI_Comm comm = ghosts.comm();
  const Partition& part = ghosts.partition();
  const int size = comm_size(comm);
  const std::int64_t nl = m.local_rows(), lo = m.begin;
  const auto& slot = ghosts.slot();
  const auto& ghost_ids = ghosts.ghosts();
  BfsResult res;
  res.hops.assign(nl, -1);
  std::vector<char> sent(ghost_ids.size(), 0);
  std::vector<std::int64_t> frontier, next;
  if (source >= lo && source < lo + nl) {
    res.hops[source - lo] = 0;
    frontier.push_back(source - lo);
  }
  std::int64_t level = 0, reached = 1;
  std::vector<std::vector<std::int64_t>> send(size);
  for (;;) {
    for (auto& s : send) s.clear();
    next.clear();
    for (const std::int64_t u : frontier)
      for (std::int64_t e = m.indptr[u]; e < m.indptr[u + 1]; ++e) {
        const std::int64_t s = slot[e];
        if (s < nl) {
          if (res.hops[s] < 0) {
            res.hops[s] = level + 1;
            next.push_back(s);
          }
        } else if (!sent[s - nl]) {
          sent[s - nl] = 1;
          const std::int64_t g = ghost_ids[s - nl];
          send[part.owner(g)].push_back(g);
        }
      }
    for (const std::int64_t g : alltoallv(comm, send)) {
      const std::int64_t r = g - lo;
      if (res.hops[r] < 0) {
        res.hops[r] = level + 1;
        next.push_back(r);
      }
    }
    const std::int64_t found = allreduce_sum(comm, static_cast<std::int64_t>(next.size()));
    if (found == 0) break;
    reached += found;
    ++level;
    frontier.swap(next);
  }
  res.eccentricity = level;
  res.reached = reached;
  std::int64_t far = m.n;
  for (std::int64_t r = 0; r < nl; ++r)
    if (res.hops[r] == level) {
      far = lo + r;
      break;
    }
  MPI_Allreduce(MPI_IN_PLACE, &far, 1, MPI_INT64_T, MPI_MIN, comm);
  res.farthest = far;
  return res;
}

namespace {

// Exact diameter of the component with id c.largest_id, gathered on every rank.
std::int64_t exact_diameter(const CsrGhosts& ghosts, const LocalCsr& m, const Components& c) {
  MPI_Comm comm = ghosts.comm();
  const int size = comm_size(comm), rank = comm_rank(comm);
  const std::int64_t nl = m.local_rows();
  // Local rows of the component: (global id, degree) and their neighbour lists.
  std::vector<std::int64_t> ids, deg, nbr;
  for (std::int64_t r = 0; r < nl; ++r) {
    if (c.id[r] != c.largest_id) continue;
    ids.push_back(m.begin + r);
    deg.push_back(m.indptr[r + 1] - m.indptr[r]);
    nbr.insert(nbr.end(), m.indices.begin() + m.indptr[r], m.indices.begin() + m.indptr[r + 1]);
  }
  const std::vector<std::int64_t> all_ids = allgather_items(comm, ids);  // ascending: rank order
  const std::vector<std::int64_t> all_deg = allgather_items(comm, deg);
  std::vector<std::int64_t> adj = allgather_items(comm, nbr);
  const std::int64_t s = static_cast<std::int64_t>(all_ids.size());
  std::vector<std::int64_t> ptr(s + 1, 0);
  for (std::int64_t i = 0; i < s; ++i) ptr[i + 1] = ptr[i] + all_deg[i];
  for (auto& j : adj)  // every neighbour is in the same component
    j = std::lower_bound(all_ids.begin(), all_ids.end(), j) - all_ids.begin();
  std::int64_t best = 0;
  std::vector<std::int64_t> dist(s), queue(s);
  for (std::int64_t src = rank; src < s; src += size) {
    std::fill(dist.begin(), dist.end(), -1);
    std::int64_t head = 0, tail = 0;
    dist[src] = 0;
    queue[tail++] = src;
    while (head < tail) {
      const std::int64_t u = queue[head++];
      for (std::int64_t e = ptr[u]; e < ptr[u + 1]; ++e)
        if (dist[adj[e]] < 0) {
          dist[adj[e]] = dist[u] + 1;
          queue[tail++] = adj[e];
        }
    }
    best = std::max(best, dist[queue[tail - 1]]);
  }
  return allreduce_max(comm, best);
}

}  // namespace

DiameterResult hop_diameter(const CsrGhosts& ghosts, const LocalCsr& m, const Components& c,
                            const DiameterParams& params) {
  DiameterResult res;
  res.component_id = c.largest_id;
  res.component_nodes = c.largest_size;
  if (c.largest_size <= params.exact_max_nodes) {
    res.exact = true;
    res.diameter = res.upper_bound = exact_diameter(ghosts, m, c);
    res.method = "exact (all-sources BFS, component of " + std::to_string(c.largest_size) +
                 " nodes gathered)";
    return res;
  }
  std::int64_t start = c.largest_id;
  std::int64_t upper = -1;
  const int runs = std::max(1, params.bfs_runs);
  for (int k = 0; k < runs; ++k) {
    const BfsResult b = bfs_hops(ghosts, m, start);
    res.diameter = std::max(res.diameter, b.eccentricity);
    upper = upper < 0 ? 2 * b.eccentricity : std::min(upper, 2 * b.eccentricity);
    ++res.bfs_runs;
    start = b.farthest;
  }
  res.upper_bound = upper;
  res.exact = res.diameter == res.upper_bound;
  res.method = "lower bound (iterated double sweep: " + std::to_string(runs) +
               " distributed BFS from node " + std::to_string(c.largest_id) + ")";
  return res;
}

}  // namespace lsgl
