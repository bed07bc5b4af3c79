// DPCD: the surrogate identities and flip identities against brute force (the distributed
// selection and reproducible sums it uses are tested in test_util), monotone decrease with L0 +
// eps, the fixed count kept, exhaustive neighbourhood search reaching the global optimum on n <=
// 16, and the dense-subgraph problem (swap gain, incremental W x, exhaustive search, planted
// subgraph, same result as on 1 rank).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "lsgl/dpcd/baselines.hpp"
#include "lsgl/dpcd/dense_subgraph.hpp"
#include "lsgl/dpcd/optimizer.hpp"
#include "lsgl/graph/graph_input.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/reproducible_sum.hpp"
#include "lsgl/util/select.hpp"

using namespace lsgl;
using namespace lsgl::dpcd;

namespace {

MPI_Comm world() { return MPI_COMM_WORLD; }

// ------------------------------------------------------------------ a quadratic test problem
// f(x) = x^T A x + b^T x with A symmetric (replicated; small n), x partitioned by Partition.
class Quadratic : public Problem {
 public:
  Quadratic(MPI_Comm comm, std::vector<double> A, std::vector<double> b,
            const std::vector<std::int8_t>& x_full)
      : comm_(comm), n_(static_cast<std::int64_t>(b.size())), A_(std::move(A)), b_(std::move(b)) {
    const Partition part(n_, comm_size(comm));
    begin_ = part.begin(comm_rank(comm));
    x_.assign(x_full.begin() + begin_, x_full.begin() + begin_ + part.count(comm_rank(comm)));
    full_ = x_full;
    refresh();
  }
  MPI_Comm comm() const override { return comm_; }
  std::int64_t n() const override { return n_; }
  std::int64_t begin() const override { return begin_; }
  const std::vector<std::int8_t>& x() const override { return x_; }
  const std::vector<double>& gradient() const override { return g_; }
  double objective() const override { return f_; }
  void flip(const std::vector<std::int64_t>& local) override {
    std::vector<std::int64_t> mine;
    for (auto i : local) mine.push_back(begin_ + i);
    const auto all = allgather_items(comm_, mine);
    for (auto i : all) full_[i] = static_cast<std::int8_t>(-full_[i]);
    for (auto i : local) x_[i] = static_cast<std::int8_t>(-x_[i]);
    refresh();
  }
  double lipschitz() override {
    double m = 0;
    for (std::int64_t i = 0; i < n_; ++i) {
      double s = 0;
      for (std::int64_t j = 0; j < n_; ++j) s += std::fabs(A_[i * n_ + j]);
      m = std::max(m, s);
    }
    return 2 * m;  // grad = 2 A x + b, ||2A|| <= 2 max row sum
  }
  void flip_model(const std::vector<std::int64_t>& idx, std::vector<double>& single,
                  std::vector<double>& pair) override {
    const std::size_t s = idx.size();
    single.assign(s, 0);
    pair.assign(s * s, 0);
    const auto gf = full_gradient();
    for (std::size_t t = 0; t < s; ++t) {
      const auto i = idx[t];
      single[t] = -2.0 * full_[i] * gf[i] + 4.0 * A_[i * n_ + i];
      for (std::size_t u = t + 1; u < s; ++u)
        pair[t * s + u] = 8.0 * full_[i] * full_[idx[u]] * A_[i * n_ + idx[u]];
    }
  }
  double value(const std::vector<std::int8_t>& x) const {
    double f = 0;
    for (std::int64_t i = 0; i < n_; ++i) {
      f += b_[i] * x[i];
      for (std::int64_t j = 0; j < n_; ++j) f += x[i] * A_[i * n_ + j] * x[j];
    }
    return f;
  }
  std::vector<double> full_gradient() const {
    std::vector<double> g(n_);
    for (std::int64_t i = 0; i < n_; ++i) {
      g[i] = b_[i];
      for (std::int64_t j = 0; j < n_; ++j) g[i] += 2 * A_[i * n_ + j] * full_[j];
    }
    return g;
  }
  const std::vector<std::int8_t>& full() const { return full_; }

 private:
  void refresh() {
    f_ = value(full_);
    const auto gf = full_gradient();
    g_.assign(gf.begin() + begin_, gf.begin() + begin_ + static_cast<std::int64_t>(x_.size()));
  }
  MPI_Comm comm_;
  std::int64_t n_, begin_ = 0;
  std::vector<double> A_, b_;
  std::vector<std::int8_t> x_, full_;
  std::vector<double> g_;
  double f_ = 0;
};

struct QuadData {
  std::vector<double> A, b;
  std::vector<std::int8_t> x;
};

// Same on every rank (seeded).
QuadData random_quadratic(int n, unsigned seed, double offdiag, double linear, int plus = -1) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  QuadData q;
  q.A.assign(n * n, 0);
  for (int i = 0; i < n; ++i)
    for (int j = i; j < n; ++j) q.A[i * n + j] = q.A[j * n + i] = (i == j ? 0.5 : offdiag) * u(rng);
  q.b.resize(n);
  for (auto& v : q.b) v = linear * u(rng);
  q.x.resize(n);
  for (int i = 0; i < n; ++i) q.x[i] = (plus < 0 ? (rng() & 1) : i < plus) ? 1 : -1;
  if (plus >= 0) std::shuffle(q.x.begin(), q.x.end(), rng);
  return q;
}

double brute_min(const Quadratic& p, int n, int plus) {
  double best = std::numeric_limits<double>::infinity();
  std::vector<std::int8_t> x(n);
  for (int mask = 0; mask < (1 << n); ++mask) {
    if (plus >= 0 && __builtin_popcount(mask) != plus) continue;
    for (int i = 0; i < n; ++i) x[i] = (mask >> i) & 1 ? 1 : -1;
    best = std::min(best, p.value(x));
  }
  return best;
}

}  // namespace

// ------------------------------------------------------------------ identities (serial math)

TEST(Identities, SurrogateMinimizerIsExactOnBothDomains) {
  // y minimises g^T (y - x) + (L/2) ||y - x||^2 over {-1,1}^n and over Omega_r (brute force).
  for (unsigned seed = 1; seed <= 30; ++seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-3, 3);
    const int n = 10;
    std::vector<std::int8_t> x(n);
    std::vector<double> g(n);
    for (int i = 0; i < n; ++i) {
      x[i] = (rng() & 1) ? 1 : -1;
      g[i] = u(rng);
    }
    const double L = 0.1 + 0.5 * (seed % 4);
    auto surrogate = [&](const std::vector<std::int8_t>& y) {
      double s = 0;
      for (int i = 0; i < n; ++i)
        s += g[i] * (y[i] - x[i]) + 0.5 * L * (y[i] - x[i]) * (y[i] - x[i]);
      return s;
    };
    int r = 0;
    for (auto v : x) r += v > 0;
    for (Domain d : {Domain::kFree, Domain::kFixedCount}) {
      const auto y = surrogate_minimizer(x, g, L, d);
      double best = std::numeric_limits<double>::infinity();
      std::vector<std::int8_t> z(n);
      for (int mask = 0; mask < (1 << n); ++mask) {
        if (d == Domain::kFixedCount && __builtin_popcount(mask) != r) continue;
        for (int i = 0; i < n; ++i) z[i] = (mask >> i) & 1 ? 1 : -1;
        best = std::min(best, surrogate(z));
      }
      EXPECT_NEAR(surrogate(y), best, 1e-12) << "seed " << seed;
      if (d == Domain::kFixedCount) {
        int ry = 0;
        for (auto v : y) ry += v > 0;
        EXPECT_EQ(ry, r);
      }
    }
  }
}

TEST(Identities, QuadraticFlipChangeAndPairModel) {
  // Exact change of flipping i: -2 x_i g_i + 4 A_ii; of flipping a set: the pairwise model.
  const auto q = random_quadratic(12, 7, 0.7, 1.0);
  Quadratic p(world(), q.A, q.b, q.x);
  const auto g = p.full_gradient();
  for (int i = 0; i < 12; ++i) {
    auto y = q.x;
    y[i] = static_cast<std::int8_t>(-y[i]);
    EXPECT_NEAR(p.value(y) - p.value(q.x), -2.0 * q.x[i] * g[i] + 4.0 * q.A[i * 12 + i], 1e-12);
  }
  std::vector<std::int64_t> idx = {1, 4, 5, 9, 11};
  std::vector<double> single, pair;
  p.flip_model(idx, single, pair);
  for (int mask = 1; mask < 32; ++mask) {
    auto y = q.x;
    double model = 0;
    for (int t = 0; t < 5; ++t) {
      if (!((mask >> t) & 1)) continue;
      y[idx[t]] = static_cast<std::int8_t>(-y[idx[t]]);
      model += single[t];
      for (int u = t + 1; u < 5; ++u)
        if ((mask >> u) & 1) model += pair[t * 5 + u];
    }
    EXPECT_NEAR(p.value(y) - p.value(q.x), model, 1e-12);
  }
}

// ------------------------------------------------------------------ the optimiser

TEST(Optimizer, LipschitzThresholdsNeverRaiseTheObjective) {
  for (Domain d : {Domain::kFree, Domain::kFixedCount}) {
    std::int64_t flips = 0;
    for (unsigned seed = 1; seed <= 10; ++seed) {
      // Weak coupling, strong linear term: L0 is small, so principal coordinates exist.
      const auto q = random_quadratic(16, seed, 0.02, 3.0, d == Domain::kFixedCount ? 6 : -1);
      Quadratic p(world(), q.A, q.b, q.x);
      Options o;
      o.domain = d;
      o.thresholds = ThresholdRule::kLipschitz;
      o.fallback = Fallback::kNone;  // no safeguard: the decrease must come from L0 + eps
      o.ns_m = 0;
      const Report r = minimize(p, o);
      for (std::size_t t = 1; t < r.objective.size(); ++t)
        EXPECT_LE(r.objective[t], r.objective[t - 1]) << "seed " << seed;
      EXPECT_EQ(r.rejected, 0);
      flips += r.flips;
    }
    EXPECT_GT(flips, 0) << "the test must exercise moves";
  }
}

TEST(Optimizer, FixedCountIsKeptAfterEveryIteration) {
  for (unsigned seed = 1; seed <= 5; ++seed) {
    const auto q = random_quadratic(15, seed, 0.5, 1.0, 5);
    Quadratic p(world(), q.A, q.b, q.x);
    Options o;
    o.alpha1 = o.alpha2 = 0.1;
    o.fallback = Fallback::kNone;
    int checked = 0;
    minimize(p, o, [&](int, double) {
      int c = 0;
      for (auto v : p.full()) c += v > 0;
      EXPECT_EQ(c, 5);
      ++checked;
    });
    EXPECT_GT(checked, 0);
  }
}

TEST(Optimizer, ExhaustiveNeighbourhoodFindsTheGlobalMinimum) {
  for (Domain d : {Domain::kFree, Domain::kFixedCount}) {
    for (unsigned seed = 1; seed <= 6; ++seed) {
      const int n = 12, plus = d == Domain::kFixedCount ? 5 : -1;
      const auto q = random_quadratic(n, 100 + seed, 1.0, 1.0, plus);
      Quadratic p(world(), q.A, q.b, q.x);
      Options o;
      o.domain = d;
      o.ns_m = n;        // every point of the domain is a neighbour
      o.ns_pool = n;
      o.ns_exhaustive_limit = 100000;
      const Report r = minimize(p, o);
      EXPECT_NEAR(r.objective.back(), brute_min(p, n, plus), 1e-9) << "seed " << seed;
      EXPECT_TRUE(r.converged);
    }
  }
}

// The smallest f after swapping one +1 and one -1 entry of the current point (its own f if
// none is lower).
double best_swap(const Quadratic& p) {
  std::vector<std::int8_t> x = p.full();
  double best = p.value(x);
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t j = 0; j < x.size(); ++j) {
      if (x[i] != 1 || x[j] != -1) continue;
      x[i] = -1;
      x[j] = 1;
      best = std::min(best, p.value(x));
      x[i] = 1;
      x[j] = -1;
    }
  return best;
}

TEST(Optimizer, AdaptiveRuleWithSafeguardIsMonotone) {
  for (unsigned seed = 1; seed <= 8; ++seed) {
    const auto q = random_quadratic(16, 50 + seed, 0.8, 0.5, 7);
    Quadratic p(world(), q.A, q.b, q.x);
    Options o;
    o.alpha1 = o.alpha2 = 0.1;
    for (Fallback fb : {Fallback::kHalve, Fallback::kLipschitz}) {
      o.fallback = fb;
      Quadratic pp(world(), q.A, q.b, q.x);
      const Report r = minimize(pp, o);
      for (std::size_t t = 1; t < r.objective.size(); ++t)
        EXPECT_LE(r.objective[t], r.objective[t - 1]);
      // It moves, and it stops only where no single swap lowers f (a solver that stopped at
      // once would pass the monotonicity above).
      EXPECT_TRUE(r.converged) << "seed " << seed;
      ASSERT_GT(r.objective.size(), 1u);
      EXPECT_LT(r.objective.back(), r.objective.front()) << "seed " << seed;
      EXPECT_EQ(r.objective.back(), pp.objective());
      EXPECT_GE(best_swap(pp), pp.objective() - 1e-12) << "seed " << seed;
    }
  }
}

// ------------------------------------------------------------------ dense subgraph

namespace {

// A random weighted graph, identical on every rank: entries created on rank 0 of `comm`.
FixedPointGraph small_graph(MPI_Comm comm, int n, double p, unsigned seed, bool weighted,
                            std::vector<double>* dense = nullptr) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> W(n * n, 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (u(rng) < p)
        W[i * n + j] = W[j * n + i] = weighted ? std::round(1 + 100 * u(rng)) / 16 : 1.0;
  std::vector<DirectedEntry> e;
  if (comm_rank(comm) == 0)
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (W[i * n + j] > 0) e.push_back({i, j, W[i * n + j]});
  if (dense) *dense = W;
  return make_fixed_point(comm,
                          symmetrize_entries(comm, n, std::move(e), DuplicateRule::kSum, nullptr));
}

std::vector<std::int64_t> gather_all(MPI_Comm comm, const std::vector<std::int64_t>& mine) {
  auto all = allgather_items(comm, mine);
  std::sort(all.begin(), all.end());
  return all;
}

double xwx_dense(const std::vector<double>& W, int n, const std::vector<std::int64_t>& set) {
  double s = 0;
  for (auto i : set)
    for (auto j : set) s += W[i * n + j];
  return s;
}

// Reference baselines on the dense matrix, written from their specification in baselines.hpp
// (ties: larger degree, then smaller index) by sorting and recomputing W x at every step.
struct DenseBaselines {
  const std::vector<double>& W;
  int n;
  std::vector<double> deg;
  DenseBaselines(const std::vector<double>& w, int nodes) : W(w), n(nodes), deg(nodes, 0.0) {
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) deg[i] += W[i * n + j];
  }
  std::vector<double> weight_into(const std::vector<std::int64_t>& set) const {
    std::vector<double> wx(n, 0.0);
    for (int i = 0; i < n; ++i)
      for (auto j : set) wx[i] += W[i * n + j];
    return wx;
  }
  // The k nodes of largest (primary, degree, -index) among those not in `skip`, sorted.
  std::vector<std::int64_t> top(const std::vector<double>& primary, std::int64_t k,
                                const std::vector<std::int64_t>& skip = {}) const {
    std::vector<std::int64_t> c;
    for (int i = 0; i < n; ++i)
      if (std::find(skip.begin(), skip.end(), i) == skip.end()) c.push_back(i);
    std::sort(c.begin(), c.end(), [&](std::int64_t a, std::int64_t b) {
      if (primary[a] != primary[b]) return primary[a] > primary[b];
      if (deg[a] != deg[b]) return deg[a] > deg[b];
      return a < b;
    });
    c.resize(static_cast<std::size_t>(std::min<std::int64_t>(k, c.size())));
    std::sort(c.begin(), c.end());
    return c;
  }
  // Greedy peeling (the weighted rule): removes the node of smallest (weighted degree among the
  // nodes left, index) until k are left; sorted.
  std::vector<std::int64_t> peel_weighted(std::int64_t k) const {
    std::vector<char> left(n, 1);
    for (std::int64_t size = n; size > k; --size) {
      int worst = -1;
      double wd = 0;
      for (int i = 0; i < n; ++i) {
        if (!left[i]) continue;
        double d = 0;
        for (int j = 0; j < n; ++j)
          if (left[j]) d += W[i * n + j];
        if (worst < 0 || d < wd) {
          worst = i;
          wd = d;
        }
      }
      left[worst] = 0;
    }
    std::vector<std::int64_t> out;
    for (int i = 0; i < n; ++i)
      if (left[i]) out.push_back(i);
    return out;
  }
  std::vector<std::int64_t> top_degree(std::int64_t k) const {
    return top(std::vector<double>(n, 0.0), k);
  }
  std::vector<std::int64_t> feige(std::int64_t k) const {
    std::vector<std::int64_t> set = top_degree(k / 2);
    for (auto v : top(weight_into(set), k - k / 2, set)) set.push_back(v);
    std::sort(set.begin(), set.end());
    return set;
  }
  std::vector<std::int64_t> ravi(std::int64_t k) const {
    std::vector<double> heaviest(n, 0.0);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) heaviest[i] = std::max(heaviest[i], W[i * n + j]);
    std::vector<std::int64_t> set = top(heaviest, 1);
    while (static_cast<std::int64_t>(set.size()) < k)
      set.push_back(top(weight_into(set), 1, set).front());
    std::sort(set.begin(), set.end());
    return set;
  }
  std::vector<std::int64_t> tpower(std::int64_t k, std::vector<std::int64_t> set,
                                   int max_iterations) const {
    std::vector<std::int64_t> best = set;
    for (int it = 0; it < max_iterations; ++it) {
      const std::vector<std::int64_t> next = top(weight_into(set), k);
      if (next == set) break;
      set = next;
      if (xwx_dense(W, n, set) > xwx_dense(W, n, best)) best = set;
    }
    return best;
  }
};

std::vector<std::int64_t> local_part(const FixedPointGraph& g,
                                     const std::vector<std::int64_t>& all) {
  std::vector<std::int64_t> m;
  for (auto v : all)
    if (v >= g.begin() && v < g.begin() + g.local_rows()) m.push_back(v);
  return m;
}

}  // namespace

TEST(DenseSubgraph, SwapGainAndIncrementalUpdatesMatchRecomputation) {
  const int n = 40;
  std::vector<double> W;
  const FixedPointGraph g = small_graph(world(), n, 0.3, 3, true, &W);
  std::mt19937_64 rng(11);
  std::vector<std::int64_t> set;
  for (int i = 0; i < n; ++i)
    if (rng() % 3 == 0) set.push_back(i);
  const std::int64_t k = static_cast<std::int64_t>(set.size());
  DenseSubgraphProblem p(g, local_part(g, set));
  EXPECT_NEAR(g.to_double(p.xwx()), xwx_dense(W, n, set), 1e-9);
  for (int trial = 0; trial < 25; ++trial) {
    // Same random swap on every rank.
    const auto cur = gather_all(world(), p.members());
    ASSERT_EQ(static_cast<std::int64_t>(cur.size()), k);
    std::vector<std::int64_t> out;
    for (int v = 0; v < n; ++v)
      if (!std::binary_search(cur.begin(), cur.end(), v)) out.push_back(v);
    const std::int64_t i = cur[rng() % cur.size()], j = out[rng() % out.size()];
    // (W x)_i, (W x)_j from the dense matrix.
    double wxi = 0, wxj = 0;
    for (auto v : cur) {
      wxi += W[i * n + v];
      wxj += W[j * n + v];
    }
    const double before = xwx_dense(W, n, cur);
    auto next = cur;
    next.erase(std::find(next.begin(), next.end(), i));
    next.push_back(j);
    std::sort(next.begin(), next.end());
    const double direct = xwx_dense(W, n, next) - before;
    // The identity delta = 2 ((Wx)_j - (Wx)_i - W_ij), in fixed point and in double.
    auto fx = [&](double v) {
      return static_cast<std::int64_t>(std::llround(std::ldexp(v, g.bits)));
    };
    EXPECT_NEAR(g.to_double(swap_gain(fx(wxi), fx(wxj), fx(W[i * n + j]))), direct, 1e-9);
    // The optimiser's pairwise model of the same swap: delta f = -4 delta(x^T W x).
    std::vector<double> single, pair;
    p.flip_model({i, j}, single, pair);
    EXPECT_NEAR(single[0] + single[1] + pair[1], -4.0 * direct, 1e-9);
    // Incremental flip against recomputation.
    std::vector<std::int64_t> flips;
    for (auto v : {i, j})
      if (v >= g.begin() && v < g.begin() + g.local_rows()) flips.push_back(v - g.begin());
    p.flip(flips);
    EXPECT_NEAR(g.to_double(p.xwx()), xwx_dense(W, n, next), 1e-9);
    const auto wx = weight_into(g, local_part(g, next));
    ASSERT_EQ(wx, p.wx());
  }
}

TEST(DenseSubgraph, ExhaustiveSearchOnSmallGraphs) {
  for (unsigned seed = 1; seed <= 6; ++seed) {
    const int n = 14 + static_cast<int>(seed % 3);  // 14..16
    const std::int64_t k = 3 + seed % 5;
    std::vector<double> W;
    const FixedPointGraph g = small_graph(world(), n, 0.35, 40 + seed, seed % 2 == 0, &W);
    double best = -1;
    for (int mask = 0; mask < (1 << n); ++mask) {
      if (__builtin_popcount(mask) != k) continue;
      std::vector<std::int64_t> s;
      for (int i = 0; i < n; ++i)
        if ((mask >> i) & 1) s.push_back(i);
      best = std::max(best, xwx_dense(W, n, s));
    }
    DensestDpcdOptions o;
    o.dpcd.ns_m = static_cast<int>(k);
    o.dpcd.ns_pool = n;
    o.dpcd.ns_exhaustive_limit = 200000;
    const DensestDpcdResult r = dpcd_densest(g, k, o);
    const auto all = gather_all(world(), r.members);
    ASSERT_EQ(static_cast<std::int64_t>(all.size()), k);
    EXPECT_NEAR(xwx_dense(W, n, all), best, 1e-9) << "seed " << seed;
    const SubgraphStats st = evaluate_subgraph(g, r.members);
    EXPECT_NEAR(st.density, best / k, 1e-9);
    EXPECT_NEAR(st.weight_inside, best / 2, 1e-9);
    // Every baseline returns its reference's k nodes, no more than the optimum.
    const DenseBaselines ref(W, n);
    for (int m = 0; m < 5; ++m) {
      std::vector<std::int64_t> b;
      int its = 0;
      if (m == 0) b = peel(g, k);
      if (m == 1) b = ravi(g, k);
      if (m == 2) b = feige(g, k);
      if (m == 3) b = tpower(g, k, top_degree(g, k), 50, nullptr, &its);
      if (m == 4) b = top_degree(g, k);
      const auto ball = gather_all(world(), b);
      ASSERT_EQ(static_cast<std::int64_t>(ball.size()), k) << "method " << m;
      // Weighted graphs are peeled by (degree, index); weights are multiples of 1/16, exact in
      // double and in fixed point.
      if (m == 0 && seed % 2 == 0) EXPECT_EQ(ball, ref.peel_weighted(k)) << "seed " << seed;
      if (m == 1) EXPECT_EQ(ball, ref.ravi(k)) << "seed " << seed;
      if (m == 2) EXPECT_EQ(ball, ref.feige(k)) << "seed " << seed;
      if (m == 3) EXPECT_EQ(ball, ref.tpower(k, ref.top_degree(k), 50)) << "seed " << seed;
      if (m == 4) EXPECT_EQ(ball, ref.top_degree(k)) << "seed " << seed;
      EXPECT_LE(xwx_dense(W, n, ball), best + 1e-9);
      EXPECT_NEAR(evaluate_subgraph(g, b).density, xwx_dense(W, n, ball) / k, 1e-9);
    }
  }
}

TEST(DenseSubgraph, LipschitzRuleIsMonotoneAndKeepsK) {
  const FixedPointGraph g = small_graph(world(), 60, 0.2, 9, true);
  for (auto rule : {ThresholdRule::kLipschitz, ThresholdRule::kAdaptive}) {
    const std::int64_t k = 12;
    const auto init = top_degree(g, k);
    DenseSubgraphProblem p(g, init);
    Options o;
    o.thresholds = rule;
    o.fallback = rule == ThresholdRule::kLipschitz ? Fallback::kNone : Fallback::kHalve;
    o.alpha1 = o.alpha2 = 0.1;
    const double start = p.objective();
    double last = start;
    int calls = 0;
    const Report r = minimize(p, o, [&](int, double f) {
      EXPECT_LE(f, last);
      last = f;
      ++calls;
      EXPECT_EQ(allreduce_sum(world(), static_cast<std::int64_t>(p.members().size())), k);
    });
    // It moved (a solver that stops at once calls the hook never) and lowered f.
    EXPECT_GE(calls, 1);
    EXPECT_EQ(calls, r.iterations);
    EXPECT_LT(p.objective(), start);
  }
}

TEST(DenseSubgraph, PlantedSubgraphIsFoundExactly) {
  // Sparse G(n, 3/n) plus a planted set of 30 nodes with edge probability 0.9 inside.
  const int n = 3000, s = 30;
  std::mt19937_64 rng(5);
  std::vector<std::int64_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  std::vector<std::int64_t> planted(perm.begin(), perm.begin() + s);
  std::sort(planted.begin(), planted.end());
  std::vector<DirectedEntry> e;
  std::uniform_real_distribution<double> u(0, 1);
  for (int t = 0; t < 3 * n / 2; ++t) {
    const std::int64_t a = rng() % n, b = rng() % n;
    if (comm_rank(world()) == 0) e.push_back({a, b, 1.0});
  }
  for (int a = 0; a < s; ++a)
    for (int b = a + 1; b < s; ++b)
      if (u(rng) < 0.9 && comm_rank(world()) == 0) e.push_back({planted[a], planted[b], 1.0});
  const FixedPointGraph g =
      make_fixed_point(world(), symmetrize_entries(world(), n, e, DuplicateRule::kMax, nullptr));
  DensestDpcdOptions o;
  const DensestDpcdResult r = dpcd_densest(g, s, o);
  EXPECT_EQ(gather_all(world(), r.members), planted) << "init " << r.init_used;
  DensestDpcdOptions from_degree;
  from_degree.init = {InitialSet::kDegree};
  EXPECT_EQ(gather_all(world(), dpcd_densest(g, s, from_degree).members), planted);
  DensestDpcdOptions from_tpower;
  from_tpower.init = {InitialSet::kTpower};
  from_tpower.tpower_iterations = 3;
  const DensestDpcdResult t = dpcd_densest(g, s, from_tpower);
  EXPECT_EQ(t.init_used, "tpower");
  const std::vector<std::int64_t> three = tpower(g, s, top_degree(g, s), 3, nullptr, nullptr);
  EXPECT_EQ(t.init_density, evaluate_subgraph(g, three).density);
  EXPECT_EQ(gather_all(world(), t.members), planted);
}

TEST(DenseSubgraph, SameSetsAsOnOneRank) {
  // Every method on the full communicator against the same method on rank 0 alone.
  MPI_Comm solo;
  MPI_Comm_split(world(), comm_rank(world()) == 0 ? 0 : MPI_UNDEFINED, 0, &solo);
  auto build = [](MPI_Comm c) {
    // A power-law-ish graph with weights: node i links to i+1..i+d(i).
    std::vector<DirectedEntry> e;
    if (comm_rank(c) == 0) {
      std::mt19937_64 rng(77);
      const int n = 2500;
      for (int t = 0; t < 12000; ++t) {
        const std::int64_t a =
            static_cast<std::int64_t>(n * std::pow((rng() % 100000) / 100000.0, 2.5));
        const std::int64_t b = rng() % n;
        e.push_back({a, b, 1.0 + static_cast<double>(rng() % 4) / 4});
      }
    }
    return make_fixed_point(c, symmetrize_entries(c, 2500, e, DuplicateRule::kSum, nullptr));
  };
  const FixedPointGraph g = build(world());
  for (std::int64_t k : {5, 40, 300}) {
    std::vector<std::vector<std::int64_t>> mine;
    int its = 0;
    DensestDpcdOptions o;
    o.dpcd.ns_every = 3;
    mine.push_back(gather_all(world(), dpcd_densest(g, k, o).members));
    mine.push_back(gather_all(world(), peel(g, k)));
    mine.push_back(gather_all(world(), ravi(g, k)));
    mine.push_back(gather_all(world(), feige(g, k)));
    mine.push_back(gather_all(world(), tpower(g, k, top_degree(g, k), 100, nullptr, &its)));
    DensestDpcdOptions with_tpower = o;
    with_tpower.init.push_back(InitialSet::kTpower);
    mine.push_back(gather_all(world(), dpcd_densest(g, k, with_tpower).members));
    std::vector<std::int64_t> flat;
    for (auto& v : mine) {
      flat.push_back(static_cast<std::int64_t>(v.size()));
      flat.insert(flat.end(), v.begin(), v.end());
    }
    std::int64_t len = static_cast<std::int64_t>(flat.size());
    if (solo != MPI_COMM_NULL) {
      const FixedPointGraph g1 = build(solo);
      std::vector<std::int64_t> ref;
      DensestDpcdOptions with_tpower = o;
      with_tpower.init.push_back(InitialSet::kTpower);
      for (int m = 0; m < 6; ++m) {
        std::vector<std::int64_t> v;
        if (m == 0) v = dpcd_densest(g1, k, o).members;
        if (m == 1) v = peel(g1, k);
        if (m == 2) v = ravi(g1, k);
        if (m == 3) v = feige(g1, k);
        if (m == 4) v = tpower(g1, k, top_degree(g1, k), 100, nullptr, &its);
        if (m == 5) v = dpcd_densest(g1, k, with_tpower).members;
        ref.push_back(static_cast<std::int64_t>(v.size()));
        ref.insert(ref.end(), v.begin(), v.end());
      }
      EXPECT_EQ(ref, flat) << "k = " << k;
    }
    MPI_Bcast(&len, 1, MPI_INT64_T, 0, world());
  }
  if (solo != MPI_COMM_NULL) MPI_Comm_free(&solo);
}
