// The shared pieces of util/: splitmix64 against its published outputs and Floyd's sample
// against its definition (distinct, sorted, every pair equally likely), the all-gather against
// the items each rank holds, distributed selection against a serial sort, reproducible sums
// exact for integers, the small dense matrix (eigenvectors, largest eigenvalue, polar factor)
// against their definitions, and thread scopes that restore what they set; on 1, 2 and 3 ranks.
#include <cblas.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <tuple>

#include "lsgl/util/dense.hpp"
#include "lsgl/util/json.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/reproducible_sum.hpp"
#include "lsgl/util/rounds.hpp"
#include "lsgl/util/select.hpp"
#include "lsgl/util/splitmix.hpp"
#include "lsgl/util/threads.hpp"

using namespace lsgl;

namespace {

MPI_Comm world() { return MPI_COMM_WORLD; }

Mat random_mat(std::int64_t r, std::int64_t c, std::mt19937_64& rng) {
  std::normal_distribution<double> nd(0.0, 1.0);
  Mat m(r, c);
  for (auto& v : m.a) v = nd(rng);
  return m;
}

}  // namespace

// ------------------------------------------------------------------------------ random numbers

// The first outputs of the reference splitmix64 (Vigna's splitmix64.c) from state 0.
TEST(SplitMix, SequenceGivesThePublishedOutputs) {
  SplitMix64 rng(0);
  EXPECT_EQ(rng.next(), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(rng.next(), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(rng.next(), 0x06c45d188009454fULL);
  const std::uint64_t s = 12345;
  SplitMix64 again(s);
  for (std::uint64_t k = 0; k < 10; ++k)
    EXPECT_EQ(again.next(), splitmix64(s + k * kSplitMixGamma));
}

TEST(SplitMix, SampleDistinctIsSortedDistinctAndInRange) {
  for (std::int64_t n : {1, 7, 100, 1000})
    for (std::int64_t count : {std::int64_t(0), std::int64_t(1), n / 2, n - 1, n, n + 3}) {
      SplitMix64 rng(static_cast<std::uint64_t>(n * 31 + count));
      const std::vector<std::int64_t> ids = sample_distinct(n, count, rng);
      ASSERT_EQ(static_cast<std::int64_t>(ids.size()), std::min(count, n)) << n << " " << count;
      for (std::size_t i = 0; i < ids.size(); ++i) {
        EXPECT_GE(ids[i], 0);
        EXPECT_LT(ids[i], n);
        if (i > 0) EXPECT_LT(ids[i - 1], ids[i]);
      }
    }
}

// Floyd's algorithm draws every subset of the size with equal probability: each of the 15 pairs
// of [0, 6) in 1/15 of 30,000 draws, within 5 standard deviations (0.0072).
TEST(SplitMix, SampleDistinctDrawsEveryPairEquallyOften) {
  const int trials = 30000;
  std::vector<int> seen(36, 0);
  SplitMix64 rng(7);
  for (int t = 0; t < trials; ++t) {
    const std::vector<std::int64_t> ids = sample_distinct(6, 2, rng);
    ++seen[ids[0] * 6 + ids[1]];
  }
  for (int a = 0; a < 6; ++a)
    for (int b = a + 1; b < 6; ++b)
      EXPECT_NEAR(seen[a * 6 + b] / double(trials), 1.0 / 15.0, 0.0072) << a << " " << b;
}

// ------------------------------------------------------------------------------ all-gather

// Rank r holds r items of 24 bytes; every rank receives all of them in rank order.
TEST(Allgather, ItemsOfEveryRankInRankOrder) {
  struct Item {
    std::int64_t rank, k;
    double w;
  };
  const int rank = comm_rank(world()), size = comm_size(world());
  std::vector<Item> mine;
  for (int k = 0; k < rank; ++k) mine.push_back({rank, k, rank + 0.5 * k});
  const std::vector<Item> all = allgather_items(world(), mine);
  std::size_t t = 0;
  for (int p = 0; p < size; ++p)
    for (int k = 0; k < p; ++k, ++t) {
      ASSERT_LT(t, all.size());
      EXPECT_EQ(all[t].rank, p);
      EXPECT_EQ(all[t].k, k);
      EXPECT_EQ(all[t].w, p + 0.5 * k);
    }
  EXPECT_EQ(all.size(), t);
}

// RoundExchange delivers every item made on any rank to its destination once, with its key
// first, whatever the round size; rank 0 has no sources and takes part in every round.
TEST(RoundExchange, EveryItemReachesItsRankOnceAfterItsKey) {
  struct Item {
    std::int64_t rank, source, copy;
  };
  const int rank = comm_rank(world()), size = comm_size(world());
  const auto sources_of = [](int p) { return p == 0 ? 0 : 7 * p + 3; };
  const auto dest_of = [size](std::int64_t p, std::int64_t s, std::int64_t c) {
    return static_cast<std::size_t>((s * 5 + c + p) % size);
  };
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, int> want;
  std::map<std::int32_t, int> want_keys;
  for (int p = 0; p < size; ++p)
    for (std::int64_t s = 0; s < sources_of(p); ++s)
      for (std::int64_t c = 0; c < s % 3; ++c)
        if (dest_of(p, s, c) == static_cast<std::size_t>(rank)) {
          ++want[{p, s, c}];
          ++want_keys[static_cast<std::int32_t>(100 * p + s)];
        }
  for (std::int64_t round : {1, 2, 1000}) {
    const auto make = [&](std::int64_t first, std::int64_t count, std::vector<Item>& out) {
      ASSERT_LE(count, round);
      out.clear();
      for (std::int64_t s = first; s < first + count; ++s)
        for (std::int64_t c = 0; c < s % 3; ++c) out.push_back({rank, s, c});
    };
    const auto dest = [&](const Item& x) { return dest_of(x.rank, x.source, x.copy); };
    auto exchange = round_exchange<Item>(world(), sources_of(rank), round, make, dest);
    std::map<std::int32_t, int> keys;
    exchange.keys([](const Item& x) { return static_cast<std::int32_t>(100 * x.rank + x.source); },
                  [&](std::int32_t k) { ++keys[k]; });
    std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, int> got;
    exchange.items([&](const Item& x) { ++got[{x.rank, x.source, x.copy}]; });
    EXPECT_EQ(keys, want_keys) << "round " << round;
    EXPECT_EQ(got, want) << "round " << round;
  }
}

// ------------------------------------------------------------------------------ selection

TEST(Select, TopMMatchesSerialSortWithTies) {
  const int rank = comm_rank(world()), size = comm_size(world());
  for (unsigned seed = 1; seed <= 5; ++seed) {
    const std::int64_t n = 1000 + 37 * seed;
    std::mt19937_64 rng(seed);
    std::vector<double> v(n);
    for (auto& x : v) x = static_cast<double>(static_cast<int>(rng() % 50)) - 25.0;  // many ties
    const Partition part(n, size);
    std::vector<SelectKey> keys;
    for (std::int64_t i = part.begin(rank); i < part.end(rank); ++i)
      keys.push_back(make_key(encode_double(v[i]), 0, i));
    std::vector<std::int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](auto a, auto b) { return v[a] != v[b] ? v[a] > v[b] : a < b; });
    for (std::int64_t m :
         {std::int64_t(0), std::int64_t(1), std::int64_t(7), n / 3, n - 1, n, n + 5}) {
      SelectKey th;
      const auto mask = select_top(world(), keys, m, &th);
      std::vector<char> expect(n, 0);
      for (std::int64_t t = 0; t < std::min(m, n); ++t) expect[order[t]] = 1;
      for (std::int64_t i = part.begin(rank); i < part.end(rank); ++i)
        ASSERT_EQ(mask[i - part.begin(rank)], expect[i]) << "m=" << m << " i=" << i;
      if (m >= 1) {
        const std::int64_t last = order[std::min(m, n) - 1];
        EXPECT_EQ(th.index(), last);
        EXPECT_EQ(decode_double(th.w[0]), v[last]);
      }
    }
  }
}

// Integer primary and secondary words that share their high bytes (the selection skips them)
// and tie often, against a serial sort by (primary, secondary, -index).
TEST(Select, TopMWithSecondaryWordMatchesSerialSort) {
  const int rank = comm_rank(world()), size = comm_size(world());
  for (unsigned seed = 1; seed <= 4; ++seed) {
    const std::int64_t n = 800 + 53 * seed;
    std::mt19937_64 rng(seed);
    std::vector<std::int64_t> a(n), b(n);
    for (std::int64_t i = 0; i < n; ++i) {
      const auto r = static_cast<std::int64_t>(rng() % 70000);
      a[i] = seed % 2 ? r % 9 : (std::int64_t(1) << 40) + r;
      b[i] = static_cast<std::int64_t>(rng() % 4) - 2;
    }
    const Partition part(n, size);
    std::vector<SelectKey> keys;
    for (std::int64_t i = part.begin(rank); i < part.end(rank); ++i)
      keys.push_back(make_key(encode_int(a[i]), encode_int(b[i]), i));
    std::vector<std::int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](auto x, auto y) {
      return a[x] != a[y] ? a[x] > a[y] : b[x] != b[y] ? b[x] > b[y] : x < y;
    });
    for (std::int64_t m : {std::int64_t(1), std::int64_t(5), n / 4, n / 2 + 1, n - 1}) {
      SelectKey th;
      const auto mask = select_top(world(), keys, m, &th);
      std::vector<char> expect(n, 0);
      for (std::int64_t t = 0; t < m; ++t) expect[order[t]] = 1;
      for (std::int64_t i = part.begin(rank); i < part.end(rank); ++i)
        ASSERT_EQ(mask[i - part.begin(rank)], expect[i])
            << "seed " << seed << " m " << m << " i " << i;
      EXPECT_EQ(th.index(), order[m - 1]);
    }
  }
}

TEST(Select, SmallestPairMatchesSerialSort) {
  const int rank = comm_rank(world()), size = comm_size(world());
  for (unsigned seed = 1; seed <= 6; ++seed) {
    const std::int64_t n = 500 + 41 * seed;
    std::mt19937_64 rng(seed);
    std::vector<double> v(n);
    for (auto& x : v) {  // odd seeds: many ties; even seeds: spread over many binades
      x = seed % 2 ? static_cast<double>(static_cast<int>(rng() % 30)) - 15.0
                   : std::ldexp(static_cast<double>(rng() % 1000) - 500.0,
                                -static_cast<int>(rng() % 60));
    }
    const Partition part(n, size);
    const std::vector<double> mine(v.begin() + part.begin(rank), v.begin() + part.end(rank));
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    for (std::int64_t r : {std::int64_t(1), std::int64_t(2), n / 3, n / 2, n - 1}) {
      const std::array<double, 2> got = smallest_pair_at(world(), mine, r);
      EXPECT_EQ(got[0], sorted[r - 1]) << "seed " << seed << " r " << r;
      EXPECT_EQ(got[1], sorted[r]) << "seed " << seed << " r " << r;
    }
  }
}

TEST(Select, EncodingsPreserveOrder) {
  const double vals[] = {-1e300, -3.5, -1e-300, -0.0, 0.0, 1e-300, 2.0, 1e300};
  for (std::size_t i = 0; i + 1 < sizeof vals / sizeof vals[0]; ++i) {
    EXPECT_LE(encode_double(vals[i]), encode_double(vals[i + 1]));
    EXPECT_EQ(decode_double(encode_double(vals[i])), vals[i] == 0 ? 0.0 : vals[i]);
  }
  EXPECT_LT(encode_int(-5), encode_int(3));
  EXPECT_EQ(decode_int(encode_int(-42)), -42);
}

TEST(Select, ReproducibleSumIsExactForIntegers) {
  const int rank = comm_rank(world()), size = comm_size(world());
  const Partition part(1000, size);
  ReproducibleSum s(1000.0, 1000);
  double serial = 0;
  for (int i = 0; i < 1000; ++i) serial += i;
  for (std::int64_t i = part.begin(rank); i < part.end(rank); ++i) s.add(static_cast<double>(i));
  EXPECT_EQ(s.result(world()), serial);
}

// ------------------------------------------------------------------------------ dense matrix

// gram: scale * X^T X over every stride-th row block, symmetric, against the plain triple loop.
TEST(Dense, GramMatchesTheSumOfOuterProducts) {
  std::mt19937_64 rng(5);
  const Mat X = random_mat(9, 4, rng);  // 9 rows of 4; the gram of rows 0, 2, ..., 8 (stride 8)
  const Mat G = gram(X.a.data(), 5, 4, 8, 0.5);
  ASSERT_EQ(G.rows, 4);
  ASSERT_EQ(G.cols, 4);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      double ref = 0;
      for (int r = 0; r < 9; r += 2) ref += X(r, i) * X(r, j);
      EXPECT_NEAR(G(i, j), 0.5 * ref, 1e-12);
      EXPECT_EQ(G(i, j), G(j, i));
    }
}

TEST(Dense, EigenvectorsAndPolarFactorSatisfyTheirDefinitions) {
  std::mt19937_64 rng(3);
  // Eigenvectors: A E = E diag, orthonormal, sign convention.
  Mat S = random_mat(6, 6, rng);
  Mat Sym(6, 6);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) Sym(i, j) = S(i, j) + S(j, i);
  const Mat E = top_eigenvectors(Sym, 3);
  const Mat AE = multiply(Sym, E);
  const Mat EtE = multiply_at_b(E, E);
  double prev = 1e300;
  for (int t = 0; t < 3; ++t) {
    double lambda = 0;
    for (int i = 0; i < 6; ++i) lambda += E(i, t) * AE(i, t);
    EXPECT_LE(lambda, prev + 1e-12);
    prev = lambda;
    for (int i = 0; i < 6; ++i) EXPECT_NEAR(AE(i, t), lambda * E(i, t), 1e-10);
    for (int u = 0; u < 3; ++u) EXPECT_NEAR(EtE(t, u), t == u ? 1.0 : 0.0, 1e-12);
  }
  EXPECT_NEAR(largest_eigenvalue(Sym), [&] {
    double l = 0;
    for (int i = 0; i < 6; ++i) l += E(i, 0) * AE(i, 0);
    return l;
  }(), 1e-10);
  // The polar factor is orthogonal and maximises tr(R^T M): R^T M is symmetric positive
  // semidefinite (its smallest eigenvalue, -largest of -R^T M, is >= 0), and no orthogonal Q
  // (polar factors of random matrices) gives a larger tr(Q^T M).
  const Mat M = random_mat(5, 5, rng);
  const Mat R = polar_orthogonal(M);
  const Mat RtR = multiply_at_b(R, R), RtM = multiply_at_b(R, M);
  Mat minus(5, 5);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) {
      EXPECT_NEAR(RtR(i, j), i == j ? 1.0 : 0.0, 1e-12);
      EXPECT_NEAR(RtM(i, j), RtM(j, i), 1e-10);
      minus(i, j) = -0.5 * (RtM(i, j) + RtM(j, i));
    }
  EXPECT_LE(largest_eigenvalue(minus), 1e-10);
  const auto trace_at_b = [](const Mat& A, const Mat& B) {
    double t = 0;
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j) t += A(i, j) * B(i, j);
    return t;
  };
  for (int trial = 0; trial < 200; ++trial) {
    const Mat Q = polar_orthogonal(random_mat(5, 5, rng));
    EXPECT_LE(trace_at_b(Q, M), trace_at_b(R, M) + 1e-12);
  }
}

// ------------------------------------------------------------------------------ JSON

// Always valid JSON: valid UTF-8 as it is, escapes for '"', '\\' and control characters, and
// bytes that start no UTF-8 sequence (a Latin-1 file name) as the code point of the same number.
TEST(Json, StringsAreValidJsonForAnyBytes) {
  EXPECT_EQ(json_string("a\"b\\c\n\t\r\x01"), "\"a\\\"b\\\\c\\n\\t\\r\\u0001\"");
  EXPECT_EQ(json_string("caf\xc3\xa9 \xe6\xbc\xa2 \xf0\x9f\x98\x80"),
            "\"caf\xc3\xa9 \xe6\xbc\xa2 \xf0\x9f\x98\x80\"");
  EXPECT_EQ(json_string("caf\xe9"), "\"caf\\u00e9\"");
  // Overlong, surrogate, truncated and beyond U+10FFFF: each byte on its own.
  EXPECT_EQ(json_string("\xc0\xaf"), "\"\\u00c0\\u00af\"");
  EXPECT_EQ(json_string("\xed\xa0\x80"), "\"\\u00ed\\u00a0\\u0080\"");
  EXPECT_EQ(json_string("\xe6\xbc"), "\"\\u00e6\\u00bc\"");
  EXPECT_EQ(json_string("\xf4\x90\x80\x80"), "\"\\u00f4\\u0090\\u0080\\u0080\"");
}

// ------------------------------------------------------------------------------ threads

// A scope sets its count while it lives and gives back the one before, nested too; a scope of
// one kind leaves the other kind alone.
TEST(ThreadScope, SetsWhileItLivesAndRestoresTheCountBefore) {
  const int openmp = omp_get_max_threads(), blas = openblas_get_num_threads();
  {
    const auto outer = ThreadScope::openmp(openmp + 2);
    EXPECT_EQ(omp_get_max_threads(), openmp + 2);
    EXPECT_EQ(openblas_get_num_threads(), blas);
    {
      const auto inner = ThreadScope::openmp(openmp + 1);
      EXPECT_EQ(omp_get_max_threads(), openmp + 1);
    }
    EXPECT_EQ(omp_get_max_threads(), openmp + 2);
  }
  EXPECT_EQ(omp_get_max_threads(), openmp);
  const int other = blas == 1 ? 2 : 1;
  {
    const auto outer = ThreadScope::blas(other);
    EXPECT_EQ(openblas_get_num_threads(), other);
    EXPECT_EQ(omp_get_max_threads(), openmp);
    {
      const auto inner = ThreadScope::blas(blas);
      EXPECT_EQ(openblas_get_num_threads(), blas);
    }
    EXPECT_EQ(openblas_get_num_threads(), other);
  }
  EXPECT_EQ(openblas_get_num_threads(), blas);
}
