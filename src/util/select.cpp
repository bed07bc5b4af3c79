// Distributed radix selection (see select.hpp).
#include "lsgl/util/select.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "lsgl/util/mpi.hpp"

namespace lsgl {

std::uint64_t encode_double(double v) {
  if (v == 0.0) v = 0.0;  // -0.0 -> +0.0
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return (b >> 63) ? ~b : (b | (std::uint64_t(1) << 63));
}

double decode_double(std::uint64_t k) {
  const std::uint64_t b = (k >> 63) ? (k & ~(std::uint64_t(1) << 63)) : ~k;
  double v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

std::vector<char> select_top(MPI_Comm comm, const std::vector<SelectKey>& keys, std::int64_t m,
                             SelectKey* threshold) {
  std::vector<char> mask(keys.size(), 0);
  const std::int64_t total = allreduce_sum(comm, static_cast<std::int64_t>(keys.size()));
  if (m <= 0 || total == 0) return mask;
  if (m >= total) {
    std::fill(mask.begin(), mask.end(), 1);
    if (threshold) {
      SelectKey mn{{~0ULL, ~0ULL, ~0ULL}};
      for (const auto& k : keys) mn = std::min(mn, k);
      std::array<std::uint64_t, 3> in = mn.w, out{};
      // Lexicographic minimum over ranks: gather (tiny).
      const auto all = allgather_items(comm, std::vector<std::array<std::uint64_t, 3>>{in});
      out = *std::min_element(all.begin(), all.end());
      threshold->w = out;
    }
    return mask;
  }
  // cand: local candidates still tied with the threshold prefix, narrowed by one byte per
  // round. Bytes every candidate shares (e.g. the high bytes of small integers) are skipped:
  // at the first round of each word, the global minimum and maximum of that word among the
  // candidates give the common leading bytes.
  std::vector<std::uint32_t> cand(keys.size());
  std::iota(cand.begin(), cand.end(), 0u);
  std::int64_t need = m;
  SelectKey prefix{{0, 0, 0}};
  std::vector<long long> hist(256), ghist(256);
  for (int round = 0; round < 24; ++round) {
    const int word = round / 8, shift = 56 - 8 * (round % 8);
    if (round % 8 == 0) {
      std::uint64_t range[2] = {0, 0};  // ~min, max
      for (std::uint32_t c : cand) {
        range[0] = std::max(range[0], ~keys[c].w[word]);
        range[1] = std::max(range[1], keys[c].w[word]);
      }
      MPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_UINT64_T, MPI_MAX, comm);
      const std::uint64_t lo = ~range[0], diff = lo ^ range[1];
      const int common = diff == 0 ? 8 : __builtin_clzll(diff) / 8;  // leading equal bytes
      if (common > 0) {
        const std::uint64_t keep = common == 8 ? ~0ULL : ~(~0ULL >> (8 * common));
        prefix.w[word] |= lo & keep;
        round += common - 1;
        continue;
      }
    }
    std::fill(hist.begin(), hist.end(), 0);
    for (std::uint32_t c : cand) ++hist[(keys[c].w[word] >> shift) & 0xff];
    MPI_Allreduce(hist.data(), ghist.data(), 256, MPI_LONG_LONG, MPI_SUM, comm);
    long long above = 0;
    int t = 255;
    for (; t >= 0; --t) {
      if (above + ghist[t] >= need) break;
      above += ghist[t];
    }
    // Bins > t are selected; bin t holds the threshold.
    std::vector<std::uint32_t> next;
    next.reserve(static_cast<std::size_t>(hist[t]));
    for (std::uint32_t c : cand) {
      const int b = static_cast<int>((keys[c].w[word] >> shift) & 0xff);
      if (b > t)
        mask[c] = 1;
      else if (b == t)
        next.push_back(c);
    }
    need -= above;
    prefix.w[word] |= static_cast<std::uint64_t>(t) << shift;
    cand.swap(next);
    if (ghist[t] == need) {  // every remaining tied candidate is in
      for (std::uint32_t c : cand) mask[c] = 1;
      if (threshold) {
        SelectKey mn{{~0ULL, ~0ULL, ~0ULL}};
        for (std::uint32_t c : cand) mn = std::min(mn, keys[c]);
        const auto all = allgather_items(comm, std::vector<std::array<std::uint64_t, 3>>{mn.w});
        threshold->w = *std::min_element(all.begin(), all.end());
      }
      return mask;
    }
  }
  // Unreachable with unique keys; keep the mask consistent anyway.
  if (threshold) *threshold = prefix;
  return mask;
}

std::array<double, 2> smallest_pair_at(MPI_Comm comm, const std::vector<double>& values,
                                       std::int64_t r) {
  std::vector<std::uint64_t> cand(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) cand[i] = encode_double(values[i]);
  if (static_cast<std::int64_t>(cand.size()) > r + 1) {
    std::nth_element(cand.begin(), cand.begin() + r, cand.end());
    cand.resize(static_cast<std::size_t>(r + 1));
  }
  std::vector<std::uint64_t> low = cand;  // this rank's r+1 smallest (for v(r) below)
  // Radix selection of the (r+1)-th smallest encoded value x; `below` counts the values < x.
  std::int64_t need = r + 1, below = 0;
  std::uint64_t x = 0;
  std::vector<long long> hist(256), ghist(256);
  for (int shift = 56; shift >= 0; shift -= 8) {
    std::fill(hist.begin(), hist.end(), 0);
    for (std::uint64_t c : cand) ++hist[(c >> shift) & 0xff];
    MPI_Allreduce(hist.data(), ghist.data(), 256, MPI_LONG_LONG, MPI_SUM, comm);
    int t = 0;
    long long under = 0;
    for (; t < 255; ++t) {
      if (under + ghist[t] >= need) break;
      under += ghist[t];
    }
    need -= under;
    below += under;
    x |= static_cast<std::uint64_t>(t) << shift;
    std::vector<std::uint64_t> next;
    for (std::uint64_t c : cand)
      if (static_cast<int>((c >> shift) & 0xff) == t) next.push_back(c);
    cand.swap(next);
  }
  // v(r) = v(r+1) when fewer than r values lie below it, else the largest value below it.
  double vr = decode_double(x);
  if (below == r) {
    std::uint64_t mx = 0;
    for (std::uint64_t c : low)
      if (c < x) mx = std::max(mx, c);
    MPI_Allreduce(MPI_IN_PLACE, &mx, 1, MPI_UINT64_T, MPI_MAX, comm);
    vr = decode_double(mx);
  }
  return {vr, decode_double(x)};
}

std::vector<SelectKey> allgather_keys(MPI_Comm comm, const std::vector<SelectKey>& local) {
  std::vector<SelectKey> all = allgather_items(comm, local);
  std::sort(all.begin(), all.end(), [](const SelectKey& a, const SelectKey& b) { return b < a; });
  return all;
}

}  // namespace lsgl
