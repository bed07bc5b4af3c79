#include "lsgl/graph/community_order.hpp"

#include <algorithm>
#include <numeric>

#include "lsgl/util/splitmix.hpp"

namespace lsgl {

namespace {

// The label node i takes from its neighbours' labels `seen` (sorted in place): the most
// frequent; on a tie its own label `mine` if among the best, else the tied label of the smallest
// hash with i (ties spread over the tied labels: the smallest label would flood the graph).
// Hashes are computed for ties only.
std::int32_t majority_label(std::vector<std::int32_t>& seen, std::int32_t mine, std::int64_t i) {
  const auto hash = [i](std::int32_t label) {
    return mix64(static_cast<std::uint64_t>(i) * kSplitMixGamma ^
                 static_cast<std::uint64_t>(label));
  };
  std::sort(seen.begin(), seen.end());
  std::int32_t best = mine;
  std::size_t best_count = 0, mine_count = 0;
  std::uint64_t best_hash = 0;
  bool best_hashed = false;
  for (std::size_t s = 0; s < seen.size();) {
    std::size_t t = s;
    while (t < seen.size() && seen[t] == seen[s]) ++t;
    const std::size_t count = t - s;
    if (seen[s] == mine) mine_count = count;
    if (count > best_count) {
      best = seen[s], best_count = count, best_hashed = false;
    } else if (count == best_count) {
      if (!best_hashed) best_hash = hash(best), best_hashed = true;
      const std::uint64_t h = hash(seen[s]);
      if (h < best_hash) best = seen[s], best_hash = h;
    }
    s = t;
  }
  return mine_count == best_count ? mine : best;
}

}  // namespace

std::vector<std::int32_t> propagate_labels(const std::vector<std::int64_t>& adj_ptr,
                                           const std::vector<std::int32_t>& adj, int max_rounds) {
  const std::int64_t nodes = static_cast<std::int64_t>(adj_ptr.size()) - 1;
  std::vector<std::int32_t> label(static_cast<std::size_t>(nodes));
  std::iota(label.begin(), label.end(), 0);
  std::vector<std::int32_t> seen;
  for (int round = 0; round < max_rounds; ++round) {
    std::int64_t changed = 0;
    for (std::int64_t i = 0; i < nodes; ++i) {
      if (adj_ptr[i] == adj_ptr[i + 1]) continue;
      seen.clear();
      for (std::int64_t k = adj_ptr[i]; k < adj_ptr[i + 1]; ++k) seen.push_back(label[adj[k]]);
      const std::int32_t next = majority_label(seen, label[i], i);
      changed += next != label[i];
      label[i] = next;
    }
    if (changed * 1000 < nodes) break;
  }
  return label;
}

std::vector<std::int32_t> community_order(const std::vector<std::int64_t>& adj_ptr,
                                          const std::vector<std::int32_t>& adj, int max_rounds) {
  const std::vector<std::int32_t> label = propagate_labels(adj_ptr, adj, max_rounds);
  const std::size_t nodes = label.size();
  // Counting sort by label (labels are node indices), stable: ascending index within a label.
  std::vector<std::int64_t> start(nodes + 1, 0);
  for (std::int32_t l : label) ++start[static_cast<std::size_t>(l) + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  std::vector<std::int32_t> order(nodes);
  for (std::size_t i = 0; i < nodes; ++i)
    order[static_cast<std::size_t>(start[static_cast<std::size_t>(label[i])]++)] =
        static_cast<std::int32_t>(i);
  return order;
}

}  // namespace lsgl
