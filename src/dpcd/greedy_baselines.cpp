// Top-k by degree, the Feige-style greedy and the truncated power method (see baselines.hpp).
#include <algorithm>

#include "lsgl/dpcd/baselines.hpp"
#include "lsgl/graph/csr_exchange.hpp"
#include "lsgl/util/select.hpp"

namespace lsgl::dpcd {

namespace {

std::vector<std::int64_t> masked(const FixedPointGraph& g, const std::vector<char>& mask) {
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < mask.size(); ++i)
    if (mask[i]) out.push_back(g.begin() + static_cast<std::int64_t>(i));
  return out;
}

}  // namespace

std::vector<std::int64_t> top_degree(const FixedPointGraph& g, std::int64_t k) {
  std::vector<SelectKey> keys(g.local_rows());
  for (std::int64_t i = 0; i < g.local_rows(); ++i)
    keys[i] = make_key(encode_int(g.degree[i]), 0, g.begin() + i);
  return masked(g, select_top(g.comm, keys, k));
}

std::vector<std::int64_t> feige(const FixedPointGraph& g, std::int64_t k) {
  const std::int64_t h = k / 2;
  std::vector<std::int64_t> top = top_degree(g, h);
  const std::vector<std::int64_t> wx = weight_into(g, top);
  std::vector<char> in(g.local_rows(), 0);
  for (auto m : top) in[m - g.begin()] = 1;
  std::vector<SelectKey> keys;
  std::vector<std::int64_t> local;
  for (std::int64_t i = 0; i < g.local_rows(); ++i) {
    if (in[i]) continue;
    keys.push_back(make_key(encode_int(wx[i]), encode_int(g.degree[i]), g.begin() + i));
    local.push_back(i);
  }
  const std::vector<char> mask = select_top(g.comm, keys, k - h);
  for (std::size_t t = 0; t < keys.size(); ++t)
    if (mask[t]) top.push_back(g.begin() + local[t]);
  std::sort(top.begin(), top.end());
  return top;
}

std::vector<std::int64_t> tpower(const FixedPointGraph& g, std::int64_t k,
                                 const std::vector<std::int64_t>& init, int max_iterations,
                                 std::vector<double>* history, int* iterations) {
  const std::int64_t nl = g.local_rows(), lo = g.begin();
  std::vector<char> in(nl, 0);
  for (auto m : init) in[m - lo] = 1;
  std::vector<std::int64_t> wx = weight_into(g, init);
  auto xwx = [&] {
    std::int64_t s = 0;
    for (std::int64_t i = 0; i < nl; ++i)
      if (in[i]) s += wx[i];
    return allreduce_sum(g.comm, s);
  };
  std::int64_t cur = xwx(), best = cur;
  std::vector<char> best_in = in;
  if (history) history->assign(1, g.to_double(cur));
  int it = 0;
  std::vector<SelectKey> keys(nl);
  for (it = 1; it <= max_iterations; ++it) {
    for (std::int64_t i = 0; i < nl; ++i)
      keys[i] = make_key(encode_int(wx[i]), encode_int(g.degree[i]), lo + i);
    const std::vector<char> next = select_top(g.comm, keys, k);
    std::vector<std::pair<std::int64_t, std::int64_t>> src;
    for (std::int64_t i = 0; i < nl; ++i)
      if (next[i] != in[i]) src.push_back({i, next[i] ? 1 : -1});
    const std::int64_t changes = allreduce_sum(g.comm, static_cast<std::int64_t>(src.size()));
    if (changes == 0) {
      --it;
      break;
    }
    const auto deltas = push_rows<std::int64_t>(
        g.comm, g.part, g.rows, src, [&](std::int64_t e, std::int64_t c) { return c * g.q[e]; });
    for (const auto& d : deltas) wx[d.local] += d.value;
    in = next;
    cur = xwx();
    if (history) history->push_back(g.to_double(cur));
    if (cur > best) {
      best = cur;
      best_in = in;
    }
  }
  if (iterations) *iterations = std::min(it, max_iterations);
  return masked(g, best_in);
}

}  // namespace lsgl::dpcd
