// RAVI greedy growth (see baselines.hpp).
#include <algorithm>
#include <queue>

#include "lsgl/dpcd/baselines.hpp"
#include "lsgl/graph/csr_exchange.hpp"
#include "lsgl/util/select.hpp"

namespace lsgl::dpcd {

std::vector<std::int64_t> ravi(const FixedPointGraph& g, std::int64_t k) {
  const std::int64_t nl = g.local_rows(), lo = g.begin();
  // Start: the endpoint of a heaviest edge with the largest degree (then smallest index).
  SelectKey start{{0, 0, 0}};
  for (std::int64_t i = 0; i < nl; ++i) {
    std::int64_t wmax = 0;
    for (std::int64_t e = g.rows.indptr[i]; e < g.rows.indptr[i + 1]; ++e)
      wmax = std::max(wmax, g.q[e]);
    start = std::max(start, make_key(encode_int(wmax), encode_int(g.degree[i]), lo + i));
  }
  const std::vector<SelectKey> starts = allgather_keys(g.comm, {start});
  std::vector<char> in(nl, 0);
  std::vector<std::int64_t> wx(nl, 0);
  // Lazy max-heap of (weight into the set, degree, index) over local outside nodes.
  std::priority_queue<SelectKey> heap;
  for (std::int64_t i = 0; i < nl; ++i)
    heap.push(make_key(encode_int(0), encode_int(g.degree[i]), lo + i));
  SelectKey chosen = starts.front();
  for (std::int64_t step = 0; step < k; ++step) {
    if (step > 0) {
      SelectKey best{{0, 0, 0}};
      bool any = false;
      while (!heap.empty()) {
        const SelectKey t = heap.top();
        const std::int64_t i = t.index() - lo;
        if (in[i] || decode_int(t.w[0]) != wx[i]) {
          heap.pop();
          continue;
        }
        best = t;
        any = true;
        break;
      }
      std::vector<SelectKey> mine;
      if (any) mine.push_back(best);
      const std::vector<SelectKey> all = allgather_keys(g.comm, mine);
      if (all.empty()) break;
      chosen = all.front();
    }
    const std::int64_t v = chosen.index();
    std::vector<std::pair<std::int64_t, std::int64_t>> src;
    if (v >= lo && v < lo + nl) {
      in[v - lo] = 1;
      src.push_back({v - lo, 1});
    }
    const auto deltas = push_rows<std::int64_t>(
        g.comm, g.part, g.rows, src, [&](std::int64_t e, std::int64_t c) { return c * g.q[e]; });
    for (const auto& d : deltas) {
      wx[d.local] += d.value;
      if (!in[d.local])
        heap.push(make_key(encode_int(wx[d.local]), encode_int(g.degree[d.local]), lo + d.local));
    }
  }
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < nl; ++i)
    if (in[i]) out.push_back(lo + i);
  return out;
}

}  // namespace lsgl::dpcd
