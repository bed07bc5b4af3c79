#pragma once
// Sparse exchanges over the rows of a symmetric matrix W held as LocalCsr blocks (each rank a
// contiguous block of rows, lsgl::Partition). Because W is symmetric, row j lists every
// neighbour i of j, so the change of (W x)_i caused by a change of x_j is computed by j's owner
// and sent to i's owner: the cost of an update is proportional to the degrees of the changed
// nodes, not to n.
#include <mpi.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "lsgl/graph/local_csr.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl {

// One contribution to a local node: local row index and value.
template <class P>
struct NodeDelta {
  std::int64_t local;
  P value;
};

// Collective. For every (local row r, coefficient c) in `sources` and every stored entry
// (r, i) of that row (entry index e), payload(e, c) is delivered to the owner of node i.
// Returns the contributions to this rank's nodes: first those computed here (in source order),
// then those received, by source rank. Every rank must call it (possibly with no sources).
template <class P, class Payload>
std::vector<NodeDelta<P>> push_rows(
    MPI_Comm comm, const Partition& part, const LocalCsr& m,
    const std::vector<std::pair<std::int64_t, std::int64_t>>& sources, Payload&& payload) {
  const int size = comm_size(comm), rank = comm_rank(comm);
  const std::int64_t lo = m.begin, hi = m.begin + m.local_rows();
  struct Wire {
    std::int64_t node;
    P value;
  };
  std::vector<NodeDelta<P>> out;
  std::vector<std::vector<Wire>> send(size);
  for (const auto& [r, c] : sources) {
    for (std::int64_t e = m.indptr[r]; e < m.indptr[r + 1]; ++e) {
      const std::int64_t i = m.indices[e];
      if (i >= lo && i < hi)
        out.push_back({i - lo, payload(e, c)});
      else
        send[part.owner(i)].push_back({i, payload(e, c)});
    }
  }
  (void)rank;
  const std::vector<Wire> recv = alltoallv(comm, send);
  out.reserve(out.size() + recv.size());
  for (const auto& w : recv) out.push_back({w.node - lo, w.value});
  return out;
}

// The whole matrix on rank 0 (other ranks get an empty one): indptr (n + 1), column indices as
// 32-bit integers (4 B per stored entry of the whole graph on rank 0: the caller checks
// n < 2^32) and optionally int64 values (e.g. fixed-point weights) given per stored entry.
// Collective.
struct RootCsr {
  std::int64_t n = 0;
  std::vector<std::int64_t> indptr;
  std::vector<std::uint32_t> indices;
  std::vector<std::int64_t> values;  // empty when not requested
};
RootCsr gather_rows_to_root(MPI_Comm comm, const LocalCsr& m,
                            const std::vector<std::int64_t>* values);

}  // namespace lsgl
