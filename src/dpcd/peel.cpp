// Greedy peeling to size k on rank 0 (see baselines.hpp).
#include <algorithm>

#include "lsgl/dpcd/baselines.hpp"
#include "lsgl/graph/csr_exchange.hpp"
#include "lsgl/util/error.hpp"

namespace lsgl::dpcd {

namespace {

// Unit weights: a lazy bucket queue of integer degrees. A node is appended to the bucket of its
// new degree at every decrement; entries whose degree is stale are skipped when popped. The
// minimum only moves down to a decremented degree, so the run is O(|E| + n + max degree).
// Within a bucket the most recently added node is taken first.
std::vector<std::int64_t> peel_buckets(const RootCsr& m, std::int64_t k) {
  const std::int64_t n = m.n;
  std::vector<std::uint32_t> deg(static_cast<std::size_t>(n));
  std::uint32_t maxd = 0;
  for (std::int64_t v = 0; v < n; ++v) {
    deg[v] = static_cast<std::uint32_t>(m.indptr[v + 1] - m.indptr[v]);
    maxd = std::max(maxd, deg[v]);
  }
  std::vector<std::vector<std::uint32_t>> bucket(static_cast<std::size_t>(maxd) + 1);
  {
    std::vector<std::int64_t> count(static_cast<std::size_t>(maxd) + 1, 0);
    for (std::int64_t v = 0; v < n; ++v) ++count[deg[v]];
    for (std::size_t d = 0; d <= maxd; ++d) bucket[d].reserve(static_cast<std::size_t>(count[d]));
  }
  for (std::int64_t v = n - 1; v >= 0; --v) bucket[deg[v]].push_back(static_cast<std::uint32_t>(v));
  std::vector<char> removed(static_cast<std::size_t>(n), 0);
  std::int64_t left = n;
  std::uint32_t mind = 0;
  while (left > k) {
    while (bucket[mind].empty()) ++mind;
    const std::uint32_t v = bucket[mind].back();
    bucket[mind].pop_back();
    if (removed[v] || deg[v] != mind) continue;  // stale entry
    removed[v] = 1;
    --left;
    for (std::int64_t e = m.indptr[v]; e < m.indptr[v + 1]; ++e) {
      const std::uint32_t u = m.indices[e];
      if (removed[u]) continue;
      const std::uint32_t d = --deg[u];
      bucket[d].push_back(u);
      if (d < mind) mind = d;
    }
  }
  std::vector<std::int64_t> out;
  for (std::int64_t v = 0; v < n; ++v)
    if (!removed[v]) out.push_back(v);
  return out;
}

// Weighted: indexed binary min-heap keyed by (degree, id), decrease-key per edge.
std::vector<std::int64_t> peel_heap(const RootCsr& m, std::int64_t k) {
  const std::int64_t n = m.n;
  std::vector<std::int64_t> deg(n, 0), heap(n), pos(n);
  for (std::int64_t v = 0; v < n; ++v)
    for (std::int64_t e = m.indptr[v]; e < m.indptr[v + 1]; ++e) deg[v] += m.values[e];
  auto less = [&](std::int64_t a, std::int64_t b) {
    return deg[a] != deg[b] ? deg[a] < deg[b] : a < b;
  };
  std::int64_t size = n;
  for (std::int64_t v = 0; v < n; ++v) heap[v] = v;
  auto place = [&](std::int64_t i, std::int64_t v) {
    heap[i] = v;
    pos[v] = i;
  };
  auto sift_down = [&](std::int64_t i) {
    const std::int64_t v = heap[i];
    while (true) {
      std::int64_t c = 2 * i + 1;
      if (c >= size) break;
      if (c + 1 < size && less(heap[c + 1], heap[c])) ++c;
      if (!less(heap[c], v)) break;
      place(i, heap[c]);
      i = c;
    }
    place(i, v);
  };
  auto sift_up = [&](std::int64_t i) {
    const std::int64_t v = heap[i];
    while (i > 0) {
      const std::int64_t p = (i - 1) / 2;
      if (!less(v, heap[p])) break;
      place(i, heap[p]);
      i = p;
    }
    place(i, v);
  };
  for (std::int64_t v = 0; v < n; ++v) pos[v] = v;
  for (std::int64_t i = n / 2 - 1; i >= 0; --i) sift_down(i);
  std::vector<char> removed(n, 0);
  while (size > k) {
    const std::int64_t v = heap[0];
    removed[v] = 1;
    --size;
    if (size > 0) {
      place(0, heap[size]);
      sift_down(0);
    }
    for (std::int64_t e = m.indptr[v]; e < m.indptr[v + 1]; ++e) {
      const std::int64_t u = m.indices[e];
      if (removed[u]) continue;
      deg[u] -= m.values[e];
      sift_up(pos[u]);
    }
  }
  std::vector<std::int64_t> out;
  for (std::int64_t v = 0; v < n; ++v)
    if (!removed[v]) out.push_back(v);
  return out;
}

}  // namespace

std::vector<std::int64_t> peel(const FixedPointGraph& g, std::int64_t k) {
  collective_check(g.comm, g.n() < (std::int64_t(1) << 32),
                   "peel: n = " + std::to_string(g.n()) + " is too large to peel on one rank");
  const RootCsr m = gather_rows_to_root(g.comm, g.rows, g.unit_weights ? nullptr : &g.q);
  std::vector<std::int64_t> all;
  if (comm_rank(g.comm) == 0) all = g.unit_weights ? peel_buckets(m, k) : peel_heap(m, k);
  std::int64_t count = static_cast<std::int64_t>(all.size());
  MPI_Bcast(&count, 1, MPI_INT64_T, 0, g.comm);
  all.resize(static_cast<std::size_t>(count));
  MPI_Bcast(all.data(), static_cast<int>(count), MPI_INT64_T, 0, g.comm);
  const std::int64_t lo = g.begin(), hi = lo + g.local_rows();
  std::vector<std::int64_t> mine;
  for (auto v : all)
    if (v >= lo && v < hi) mine.push_back(v);
  return mine;
}

}  // namespace lsgl::dpcd
