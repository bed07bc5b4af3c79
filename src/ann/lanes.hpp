#pragma once
// Private to src/ann: the voronoi engine's vector kernels on panels of kPanel rows (GNU vector
// extensions: one AVX-512 register, or two AVX2 ones). Local, all of them.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

namespace lsgl::ann {

constexpr int kPanel = 16;  // rows per panel

// kPanel floats, one per row of a panel; loads and stores through memcpy (no alignment).
using Lanes = float __attribute__((vector_size(kPanel * sizeof(float))));

// Local. The products of G queries (a: G x d, row-major) with the kPanel rows of a panel
// (d x kPanel, coordinate-major): out[q][r] = a_q . y_r in single precision, in 8 / G
// interleaved partial sums per query so that eight multiply-adds are independent.
template <int G>
void panel_products(const float* panel, const float* a, std::int64_t d, Lanes* out) {
  constexpr int kSums = G >= 8 ? 1 : 8 / G;
  Lanes acc[kSums][G] = {};
  std::int64_t j = 0;
  for (; j + kSums <= d; j += kSums) {
    for (int c = 0; c < kSums; ++c) {
      Lanes y;
      std::memcpy(&y, panel + (j + c) * kPanel, sizeof y);
      for (int q = 0; q < G; ++q) acc[c][q] += a[q * d + j + c] * y;
    }
  }
  for (; j < d; ++j) {
    Lanes y;
    std::memcpy(&y, panel + j * kPanel, sizeof y);
    for (int q = 0; q < G; ++q) acc[0][q] += a[q * d + j] * y;
  }
  for (int q = 0; q < G; ++q) {
    out[q] = acc[0][q];
    for (int c = 1; c < kSums; ++c) out[q] += acc[c][q];
  }
}

// Local. std::nextafter(x, +inf), inline (called on every row that enters a shortlist).
inline float next_up(float x) {
  if (!(x < std::numeric_limits<float>::infinity())) return x;  // +inf, NaN
  if (x == 0.0f) return std::numeric_limits<float>::denorm_min();
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  bits = x > 0.0f ? bits + 1 : bits - 1;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

// Local. Whether some lane of v is at most `bar` (false for NaN lanes).
inline bool any_at_most(const Lanes& v, float bar) {
  using Mask = std::int32_t __attribute__((vector_size(kPanel * sizeof(float))));
  const Mask m = v <= (Lanes{} + bar);
  std::uint64_t words[kPanel / 2];
  std::memcpy(words, &m, sizeof words);
  std::uint64_t any = 0;
  for (const std::uint64_t w : words) any |= w;
  return any != 0;
}

// Local. Lane-wise minimum: m = a < b ? a : b, for any vector width (by reference: vectors
// wider than the target's registers change the calling convention).
template <class V>
inline void lanewise_min(V& m, const V& a, const V& b) {
  m = a < b ? a : b;
}

// Local. The smallest lane of v: four halvings by shuffles.
inline float lane_min(const Lanes& v) {
  using Half = float __attribute__((vector_size(8 * sizeof(float))));
  using Quarter = float __attribute__((vector_size(4 * sizeof(float))));
  using Eighth = float __attribute__((vector_size(2 * sizeof(float))));
  Half h;
  Quarter q;
  Eighth e;
  lanewise_min<Half>(h, __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7),
                     __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15));
  lanewise_min<Quarter>(q, __builtin_shufflevector(h, h, 0, 1, 2, 3),
                        __builtin_shufflevector(h, h, 4, 5, 6, 7));
  lanewise_min<Eighth>(e, __builtin_shufflevector(q, q, 0, 1), __builtin_shufflevector(q, q, 2, 3));
  return std::min(e[0], e[1]);
}

// Local. out[q] = lane_min(v[q]) for G vectors; for G = 8 by transposing halvings (pairs of
// vectors share each shuffle and minimum: three instructions per vector instead of eight).
template <int G>
inline void lane_mins(const Lanes* v, float* out) {
  if constexpr (G != 8) {
    for (int q = 0; q < G; ++q) out[q] = lane_min(v[q]);
  } else {
    using Half = float __attribute__((vector_size(8 * sizeof(float))));
    Lanes w[4], x[2], y;
    Half z;
    for (int j = 0; j < 4; ++j) {  // w[j]: 8 partial minima of v[2j], then 8 of v[2j + 1]
      lanewise_min<Lanes>(w[j],
                          __builtin_shufflevector(v[2 * j], v[2 * j + 1], 0, 1, 2, 3, 4, 5, 6, 7,
                                                  16, 17, 18, 19, 20, 21, 22, 23),
                          __builtin_shufflevector(v[2 * j], v[2 * j + 1], 8, 9, 10, 11, 12, 13, 14,
                                                  15, 24, 25, 26, 27, 28, 29, 30, 31));
    }
    for (int j = 0; j < 2; ++j) {  // x[j]: 4 partial minima of each of v[4j] .. v[4j + 3]
      lanewise_min<Lanes>(x[j],
                          __builtin_shufflevector(w[2 * j], w[2 * j + 1], 0, 1, 2, 3, 8, 9, 10, 11,
                                                  16, 17, 18, 19, 24, 25, 26, 27),
                          __builtin_shufflevector(w[2 * j], w[2 * j + 1], 4, 5, 6, 7, 12, 13, 14,
                                                  15, 20, 21, 22, 23, 28, 29, 30, 31));
    }
    lanewise_min<Lanes>(y,  // lanes 2q, 2q + 1: partial minima of v[q]
                        __builtin_shufflevector(x[0], x[1], 0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20,
                                                21, 24, 25, 28, 29),
                        __builtin_shufflevector(x[0], x[1], 2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22,
                                                23, 26, 27, 30, 31));
    lanewise_min<Half>(z, __builtin_shufflevector(y, y, 0, 2, 4, 6, 8, 10, 12, 14),
                       __builtin_shufflevector(y, y, 1, 3, 5, 7, 9, 11, 13, 15));
    std::memcpy(out, &z, sizeof z);
  }
}

// Local. The position of the smallest of x[0 .. n) (n a multiple of kPanel; the first of equal
// ones; no NaN): lane-wise minima and their positions, then the best lane.
inline std::int64_t smallest_lane(const float* x, std::int64_t n) {
  using Index = std::int32_t __attribute__((vector_size(kPanel * sizeof(std::int32_t))));
  Lanes m;
  std::memcpy(&m, x, sizeof m);
  Index at{}, here{};
  for (int r = 0; r < kPanel; ++r) here[r] = r;
  at = here;
  for (std::int64_t p = kPanel; p < n; p += kPanel) {
    Lanes v;
    std::memcpy(&v, x + p, sizeof v);
    here += kPanel;
    const auto less = v < m;
    m = less ? v : m;
    at = less ? here : at;
  }
  int best = 0;
  for (int r = 1; r < kPanel; ++r)
    if (m[r] < m[best] || (m[r] == m[best] && at[r] < at[best])) best = r;
  return at[best];
}

}  // namespace lsgl::ann
