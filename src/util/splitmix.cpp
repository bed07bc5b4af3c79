// Floyd's sample of distinct integers (see splitmix.hpp).
#include "lsgl/util/splitmix.hpp"

#include <algorithm>
#include <numeric>
#include <unordered_set>

namespace lsgl {

std::vector<std::int64_t> sample_distinct(std::int64_t n, std::int64_t count, SplitMix64& rng) {
  std::vector<std::int64_t> ids;
  if (count >= n) {
    ids.resize(static_cast<std::size_t>(n));
    std::iota(ids.begin(), ids.end(), std::int64_t(0));
    return ids;
  }
  std::unordered_set<std::int64_t> chosen;
  for (std::int64_t j = n - count; j < n; ++j) {
    const auto t = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(j + 1)));
    if (!chosen.insert(t).second) chosen.insert(j);
  }
  ids.assign(chosen.begin(), chosen.end());
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace lsgl
