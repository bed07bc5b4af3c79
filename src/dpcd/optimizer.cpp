// DPCD (see optimizer.hpp and docs/design.md, section "DPCD").
#include "lsgl/dpcd/optimizer.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>

#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/reproducible_sum.hpp"
#include "lsgl/util/select.hpp"
#include "lsgl/util/splitmix.hpp"

namespace lsgl::dpcd {

namespace {

// splitmix64, for the sampled neighbourhood search (identical on every rank).
SplitMix64 search_rng(std::uint64_t seed) {
  return SplitMix64(seed * kSplitMixGamma + 0x632be59bd9b4e019ULL);
}

// A selected set of local coordinates with their selection values (larger is better); keys
// (value, then global index) are only built when a top-m selection is needed.
struct Selection {
  std::vector<double> value;
  std::vector<std::int64_t> local;
  std::int64_t begin = 0;  // global index of local coordinate 0
  explicit Selection(std::int64_t b = 0) : begin(b) {}
  void add(double v, std::int64_t i) {
    value.push_back(v);
    local.push_back(i);
  }
  std::size_t size() const { return local.size(); }
  void append(const Selection& o) {
    value.insert(value.end(), o.value.begin(), o.value.end());
    local.insert(local.end(), o.local.begin(), o.local.end());
  }
  Selection top(MPI_Comm comm, std::int64_t m) const {
    std::vector<SelectKey> keys(local.size());
    for (std::size_t i = 0; i < keys.size(); ++i)
      keys[i] = make_key(encode_double(value[i]), 0, begin + local[i]);
    const std::vector<char> mask = select_top(comm, keys, m);
    Selection s(begin);
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (mask[i]) s.add(value[i], local[i]);
    return s;
  }
};

double binomial(int n, int t) {
  if (t < 0 || t > n) return 0.0;
  double r = 1.0;
  for (int i = 1; i <= t; ++i) r = r * (n - t + i) / i;
  return r;
}

// Enumerates the t-subsets of [0, n) in lexicographic order.
void for_subsets(int n, int t, const std::function<void(const std::vector<int>&)>& fn) {
  if (t > n) return;
  std::vector<int> c(t);
  for (int i = 0; i < t; ++i) c[i] = i;
  while (true) {
    fn(c);
    int i = t - 1;
    while (i >= 0 && c[i] == n - t + i) --i;
    if (i < 0) return;
    ++c[i];
    for (int j = i + 1; j < t; ++j) c[j] = c[j - 1] + 1;
  }
}

// The search over the moves of a neighbourhood search inside the pooled candidates: a of the
// first side (pool positions [0, a)), and for a fixed count b of the second side ([a, a + b));
// a move is a set of pool positions (for a fixed count, t of each side). Moves are scored by the
// flip model (single and pair changes of f) and the best one, and the first of change zero
// (plateau), are kept.
class MoveSearch {
 public:
  MoveSearch(int a, int b, bool fixed, std::vector<double> single, std::vector<double> pair)
      : a_(a), b_(b), s_(a + b), fixed_(fixed), single_(std::move(single)),
        pair_(std::move(pair)) {}

  // All moves of up to m steps when there are at most `limit`, else all single moves, a greedy
  // chain from the best one and `samples` random moves of 1..m steps (drawn from `seed`).
  void run(int m, std::int64_t limit, int samples, std::uint64_t seed) {
    if (moves(m) <= static_cast<double>(limit)) {
      exhaustive(m);
      return;
    }
    singles();
    greedy_chain(m);
    SplitMix64 rng = search_rng(seed);
    sample(m, samples, rng);
  }
  // The best move when it lowers f by more than the rounding of f0.
  bool improving(double f0) const {
    return !best_move_.empty() && best_ < -1e-12 * std::max(1.0, std::fabs(f0));
  }
  const std::vector<int>& best_move() const { return best_move_; }
  const std::vector<int>& plateau_move() const { return plateau_move_; }

 private:
  // Change of f by the flips of move T (flip model).
  double delta(const std::vector<int>& T) const {
    double d = 0.0;
    for (std::size_t u = 0; u < T.size(); ++u) {
      d += single_[T[u]];
      for (std::size_t v = u + 1; v < T.size(); ++v) {
        const int i = std::min(T[u], T[v]), j = std::max(T[u], T[v]);
        d += pair_[static_cast<std::size_t>(i) * s_ + j];
      }
    }
    return d;
  }
  void consider(const std::vector<int>& T) {
    const double d = delta(T);
    if (d < best_ || (best_move_.empty() && d < 0)) {
      best_ = d;
      best_move_ = T;
    } else if (d == 0.0 && plateau_move_.empty()) {
      plateau_move_ = T;
    }
  }
  // Number of moves of up to m steps.
  double moves(int m) const {
    double n = 0.0;
    for (int t = 1; t <= m; ++t) n += fixed_ ? binomial(a_, t) * binomial(b_, t) : binomial(a_, t);
    return n;
  }
  void exhaustive(int m) {
    for (int t = 1; t <= m; ++t) {
      if (fixed_) {
        for_subsets(a_, t, [&](const std::vector<int>& ca) {
          for_subsets(b_, t, [&](const std::vector<int>& cb) {
            std::vector<int> T(ca);
            for (int j : cb) T.push_back(a_ + j);
            consider(T);
          });
        });
      } else {
        for_subsets(a_, t, [&](const std::vector<int>& c) { consider(c); });
      }
    }
  }
  void singles() {
    if (fixed_) {
      for (int i = 0; i < a_; ++i)
        for (int j = 0; j < b_; ++j) consider({i, a_ + j});
    } else {
      for (int i = 0; i < a_; ++i) consider({i});
    }
  }
  // The best move extending `chain` by one step (the first of the smallest delta); false when
  // no step is left.
  bool best_extension(const std::vector<int>& chain, std::vector<int>& bt) const {
    double bd = 0.0;
    bool found = false;
    auto in_chain = [&](int v) { return std::find(chain.begin(), chain.end(), v) != chain.end(); };
    auto offer = [&](const std::vector<int>& T) {
      const double d = delta(T);
      if (!found || d < bd) {
        bd = d;
        bt = T;
        found = true;
      }
    };
    for (int i = 0; i < a_; ++i) {
      if (in_chain(i)) continue;
      if (!fixed_) {
        std::vector<int> T(chain);
        T.push_back(i);
        offer(T);
        continue;
      }
      for (int j = 0; j < b_; ++j) {
        if (in_chain(a_ + j)) continue;
        std::vector<int> T(chain);
        T.push_back(i);
        T.push_back(a_ + j);
        offer(T);
      }
    }
    return found;
  }
  // From the best move so far, adds the best step while the move has fewer than m steps.
  void greedy_chain(int m) {
    std::vector<int> chain = best_move_;
    while (!chain.empty() && static_cast<int>(chain.size()) < (fixed_ ? 2 * m : m)) {
      std::vector<int> bt;
      if (!best_extension(chain, bt)) break;
      chain = bt;
      consider(chain);
    }
  }
  void sample(int m, int samples, SplitMix64& rng) {
    std::vector<int> pa(a_), pb(b_);
    for (int sidx = 0; sidx < samples; ++sidx) {
      const int t = 1 + static_cast<int>(rng.below(static_cast<std::size_t>(m)));
      if (t > a_ || (fixed_ && t > b_)) continue;
      for (int i = 0; i < a_; ++i) pa[i] = i;
      for (int i = 0; i < b_; ++i) pb[i] = i;
      std::vector<int> T;
      for (int i = 0; i < t; ++i) {
        std::swap(pa[i], pa[i + rng.below(static_cast<std::size_t>(a_ - i))]);
        T.push_back(pa[i]);
        if (fixed_) {
          std::swap(pb[i], pb[i + rng.below(static_cast<std::size_t>(b_ - i))]);
          T.push_back(a_ + pb[i]);
        }
      }
      consider(T);
    }
  }

  int a_, b_, s_;
  bool fixed_;
  std::vector<double> single_, pair_;
  double best_ = 0.0;
  std::vector<int> best_move_, plateau_move_;
};

class Runner {
 public:
  Runner(Problem& p, const Options& o) : p_(p), o_(o), comm_(p.comm()) {}

  Report run(const IterationHook& hook);

 private:
  // Thresholds of one update ([DPCD] eq. 7 or L0 + eps) and the centre c.
  struct Thresholds {
    double c = 0.0, L1 = 0.0, L2 = 0.0;
  };
  // Largest and smallest g over the +1 and over the -1 entries (+-inf for an empty side).
  struct Extremes {
    double plus_max = 0.0, plus_min = 0.0, minus_max = 0.0, minus_min = 0.0;
    double max() const { return std::max(plus_max, minus_max); }
    double min() const { return std::min(plus_min, minus_min); }
  };
  Extremes extremes() const;                         // one pass, one all-reduce
  double lipschitz_threshold();
  double centre(const Extremes& e);                  // OPEN choice: Options::centre
  Thresholds thresholds(ThresholdRule rule);         // [DPCD] eq. 7 / L0 + eps
  bool principal_update();                           // [DPCD] Alg. 1, one update
  void principal_sets(ThresholdRule rule, Selection& plus, Selection& minus);  // S+, S-
  bool flip_together(Selection plus, const Selection& minus, double f0);      // Omega_{-1}
  bool flip_balanced(Selection plus, Selection minus, double f0);             // Omega_r
  bool lipschitz_retry() const;  // a rejected adaptive move is retried at L0 + eps
  bool attempt(const std::vector<std::int64_t>& flips, double f0);
  bool neighbourhood_search();                       // [DPCD] Alg. 1, m-neighbours
  // Pooled candidates of a neighbourhood search: global indices, a of the first side then b of
  // the second (fixed count only).
  struct Pool {
    std::vector<std::int64_t> idx;
    int a = 0, b = 0;
  };
  void local_candidates(std::vector<SelectKey>& kp, std::vector<SelectKey>& km) const;
  std::vector<SelectKey> global_top(const std::vector<SelectKey>& keys);  // collective
  Pool pooled_candidates();                                              // collective
  bool apply_move(const Pool& pool, const std::vector<int>& move, bool improving, double f0);

  Problem& p_;
  const Options& o_;
  MPI_Comm comm_;
  Report rep_;
  std::vector<std::int64_t> frozen_;  // global indices moved by plateau moves (sorted)
  std::vector<SelectKey> keys_;       // reused buffer (one key per local coordinate)
  double L0_ = -1.0;  // cached Lipschitz constant (< 0: not asked yet)
  std::vector<double> Li_;  // coordinate-wise constants plus eps (kCoordinate)
  std::int64_t Li_period_ = 0;  // > 0: Li_ holds one value per position in a block
};

// L1 = L2 = L0 + eps (docs/design.md, "Why flipping principal coordinates
// decreases f": f(y) <= f(x) - 2 sum (x_i g_i - L0)).
double Runner::lipschitz_threshold() {
  if (L0_ < 0) L0_ = p_.lipschitz();
  return L0_ + o_.eps * std::max(L0_, 1.0);
}

Runner::Extremes Runner::extremes() const {
  const auto& g = p_.gradient();
  const auto& x = p_.x();
  constexpr double inf = std::numeric_limits<double>::infinity();
  double pmax = -inf, pmin = inf, mmax = -inf, mmin = inf;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (x[i] > 0) {
      pmax = std::max(pmax, g[i]);
      pmin = std::min(pmin, g[i]);
    } else {
      mmax = std::max(mmax, g[i]);
      mmin = std::min(mmin, g[i]);
    }
  }
  double e[4] = {pmax, -pmin, mmax, -mmin};
  MPI_Allreduce(MPI_IN_PLACE, e, 4, MPI_DOUBLE, MPI_MAX, comm_);
  return Extremes{e[0], -e[1], e[2], -e[3]};
}

// The constant subtracted from g before eq. 7 (Omega_r only; OPEN, see Options::centre). `e`
// is used by the split rule only.
double Runner::centre(const Extremes& e) {
  if (o_.domain == Domain::kFree || o_.centre == Centre::kNone) return 0.0;
  const auto& g = p_.gradient();
  const std::int64_t n = p_.n(), b = p_.begin();
  if (o_.centre == Centre::kMean) {
    double mx = 0.0;
    for (double v : g) mx = std::max(mx, std::fabs(v));
    ReproducibleSum s(allreduce_max_double(comm_, mx), n);
    for (double v : g) s.add(v);
    return s.result(comm_) / static_cast<double>(n);
  }
  if (o_.centre == Centre::kMedian) {
    std::vector<SelectKey>& keys = keys_;
    keys.resize(g.size());
    for (std::size_t i = 0; i < g.size(); ++i)
      keys[i] = make_key(encode_double(-g[i]), 0, b + static_cast<std::int64_t>(i));
    SelectKey th;
    select_top(comm_, keys, (n + 1) / 2, &th);
    return -decode_double(th.w[0]);
  }
  // kSplit: midway between the r-th and (r+1)-th smallest g (r = number of +1 entries). With
  // A = the largest g of a +1 entry and B = the smallest g of a -1 entry, these are A and B when
  // A <= B; otherwise both lie in [B, A], so only the entries in [B, A] are selected among.
  const double A = e.plus_max, B = e.minus_min;
  if (!std::isfinite(A) || !std::isfinite(B)) return 0.0;  // r = 0 or r = n
  if (A <= B) return 0.5 * (A + B);
  const auto& x = p_.x();
  std::vector<double> between;
  std::int64_t plus_minus_below = 0;  // (+1 entries) - (entries below B): r - below over ranks
  for (std::size_t i = 0; i < g.size(); ++i) {
    plus_minus_below += x[i] > 0;
    if (g[i] < B)
      --plus_minus_below;
    else if (g[i] <= A)
      between.push_back(g[i]);
  }
  const std::int64_t r = allreduce_sum(comm_, plus_minus_below);
  const std::array<double, 2> v = smallest_pair_at(comm_, between, r);
  return 0.5 * (v[0] + v[1]);
}

// [DPCD] eq. 7 (adaptive: means of the positive and of |negative| centred entries) or
// L1 = L2 = L0 + eps (Lipschitz).
Runner::Thresholds Runner::thresholds(ThresholdRule rule) {
  Thresholds t;
  const bool adaptive = rule == ThresholdRule::kAdaptive;
  const bool split = o_.domain != Domain::kFree && o_.centre == Centre::kSplit;
  const Extremes e = adaptive || split ? extremes() : Extremes{};
  t.c = centre(e);
  if (rule == ThresholdRule::kLipschitz) {
    t.L1 = t.L2 = lipschitz_threshold();
    return t;
  }
  if (rule == ThresholdRule::kCoordinate) return t;  // per coordinate: Li_
  const auto& g = p_.gradient();
  const auto& x = p_.x();
  const bool all = o_.scope == Scope::kAll;
  // max |g_i - c| (rounding is monotone, so the extremes of g give it exactly)
  const double mx = std::max({0.0, e.max() - t.c, t.c - e.min()});
  ReproducibleSum pos(mx, p_.n()), neg(mx, p_.n());
  std::int64_t npos = 0, nneg = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const double v = g[i] - t.c;
    if (v > 0 && (all || x[i] > 0)) {
      pos.add(v);
      ++npos;
    } else if (v < 0 && (all || x[i] < 0)) {
      neg.add(-v);
      ++nneg;
    }
  }
  std::int64_t cnt[2] = {npos, nneg};
  MPI_Allreduce(MPI_IN_PLACE, cnt, 2, MPI_INT64_T, MPI_SUM, comm_);
  const double sp = pos.result(comm_), sn = neg.result(comm_);
  t.L1 = cnt[0] > 0 ? sp / static_cast<double>(cnt[0]) : 0.0;
  t.L2 = cnt[1] > 0 ? sn / static_cast<double>(cnt[1]) : 0.0;
  return t;
}

// Flips, keeps the move if f decreased; otherwise undoes it. Returns whether it was kept.
bool Runner::attempt(const std::vector<std::int64_t>& flips, double f0) {
  p_.flip(flips);
  const double f1 = p_.objective();
  if (f1 < f0 || o_.fallback == Fallback::kNone) {
    rep_.flips += allreduce_sum(comm_, static_cast<std::int64_t>(flips.size()));
    return true;
  }
  p_.flip(flips);  // undo
  ++rep_.rejected;
  return false;
}

// One principal-coordinate update: S+ = {x = +1, g~ > alpha1 L1}, S- = {x = -1, g~ < -alpha2 L2};
// Omega_{-1}: flip S+ and S-; Omega_r: flip the m = min(|S+|, |S-|) entries of largest |g~| of
// each. With the safeguard of Options::fallback.
bool Runner::principal_update() {
  const double f0 = p_.objective();
  Selection plus(p_.begin()), minus(p_.begin());
  principal_sets(o_.thresholds, plus, minus);
  if (o_.domain == Domain::kFree) return flip_together(std::move(plus), minus, f0);
  return flip_balanced(std::move(plus), std::move(minus), f0);
}

// The principal coordinates under `rule`'s thresholds: S+ into plus, S- into minus, each with
// its |g~| (one per block: only the eligible coordinate of largest margin in each block).
void Runner::principal_sets(ThresholdRule rule, Selection& plus, Selection& minus) {
  const Thresholds t = thresholds(rule);
  const double* g = p_.gradient().data();
  const std::int8_t* x = p_.x().data();
  const std::int64_t b = p_.begin(), nloc = static_cast<std::int64_t>(p_.x().size());
  const double a1 = rule == ThresholdRule::kAdaptive ? o_.alpha1 : 1.0;
  const double a2 = rule == ThresholdRule::kAdaptive ? o_.alpha2 : 1.0;
  const double T1 = a1 * t.L1, T2 = a2 * t.L2, c = t.c;
  const double* L = rule == ThresholdRule::kCoordinate ? Li_.data() : nullptr;
  const std::int64_t period = L ? Li_period_ : 0;
  // x_i (g_i - c) minus the threshold th of coordinate i's side: > 0 iff i is principal
  // (S+: x = +1, g~ > T1; S-: x = -1, g~ < -T2).
  auto threshold = [&](std::int64_t i, std::int64_t pos) {
    return L ? L[period > 0 ? pos : i] : (x[i] > 0 ? T1 : T2);
  };
  auto margin = [&](std::int64_t i, std::int64_t pos) {
    return x[i] * (g[i] - c) - threshold(i, pos);
  };
  // Position of local coordinate 0 in its block (periodic constants).
  std::int64_t pos = period > 0 ? b % period : 0;
  auto advance = [&] {
    if (period > 0 && ++pos == period) pos = 0;
  };
  auto add = [&](std::int64_t i) { (x[i] > 0 ? plus : minus).add(x[i] * (g[i] - c), i); };
  // One per block: the eligible coordinate of largest margin in each block.
  const std::int64_t bs = o_.one_per_block && o_.domain == Domain::kFree ? p_.block_size() : 0;
  if (bs > 0) {
    for (std::int64_t lo = 0, hi = std::min(nloc, bs - b % bs); lo < nloc;
         lo = hi, hi = std::min(nloc, hi + bs)) {
      std::int64_t best = lo;
      double bm = margin(lo, pos);
      advance();
      for (std::int64_t i = lo + 1; i < hi; ++i) {
        const double m = margin(i, pos);
        advance();
        if (m > bm) {
          bm = m;
          best = i;
        }
      }
      if (bm > 0) add(best);
    }
    return;
  }
  for (std::int64_t i = 0; i < nloc; ++i) {
    if (margin(i, pos) > 0) add(i);
    advance();
  }
}

bool Runner::lipschitz_retry() const {
  return o_.fallback == Fallback::kLipschitz && p_.lipschitz() > 0 &&
         o_.thresholds == ThresholdRule::kAdaptive;
}

// Omega_{-1} (free domain): flips S+ and S- together (at most max_flips of largest |g~|); when
// f does not decrease, the Lipschitz sets, or halves of the flips of largest |g~|.
bool Runner::flip_together(Selection plus, const Selection& minus, double f0) {
  Selection both = std::move(plus);
  both.append(minus);
  std::int64_t m = allreduce_sum(comm_, static_cast<std::int64_t>(both.size()));
  if (o_.max_flips > 0 && m > o_.max_flips) {
    both = both.top(comm_, o_.max_flips);
    m = o_.max_flips;
  }
  if (m == 0) return false;
  if (attempt(both.local, f0)) return true;
  if (lipschitz_retry()) {
    Selection p2(p_.begin()), m2(p_.begin());
    principal_sets(ThresholdRule::kLipschitz, p2, m2);
    p2.append(m2);
    if (allreduce_sum(comm_, static_cast<std::int64_t>(p2.size())) == 0) return false;
    return attempt(p2.local, f0);
  }
  while (m > 1) {
    m /= 2;
    both = both.top(comm_, m);
    if (attempt(both.local, f0)) return true;
  }
  return false;
}

// Omega_r (fixed count): flips the m = min(|S+|, |S-|) (at most max_flips) entries of largest
// |g~| of each side; when f does not decrease, the same from the Lipschitz sets, or halves.
bool Runner::flip_balanced(Selection plus, Selection minus, double f0) {
  std::int64_t m = std::min(allreduce_sum(comm_, static_cast<std::int64_t>(plus.size())),
                            allreduce_sum(comm_, static_cast<std::int64_t>(minus.size())));
  if (o_.max_flips > 0) m = std::min(m, o_.max_flips);
  if (m == 0) return false;
  plus = plus.top(comm_, m);
  minus = minus.top(comm_, m);
  auto join = [](const Selection& a, const Selection& b) {
    std::vector<std::int64_t> f(a.local);
    f.insert(f.end(), b.local.begin(), b.local.end());
    return f;
  };
  if (attempt(join(plus, minus), f0)) return true;
  if (lipschitz_retry()) {
    Selection p2(p_.begin()), m2(p_.begin());
    principal_sets(ThresholdRule::kLipschitz, p2, m2);
    const std::int64_t m2n = std::min(allreduce_sum(comm_, static_cast<std::int64_t>(p2.size())),
                                      allreduce_sum(comm_, static_cast<std::int64_t>(m2.size())));
    if (m2n == 0) return false;
    return attempt(join(p2.top(comm_, m2n), m2.top(comm_, m2n)), f0);
  }
  while (m > 1) {
    m /= 2;
    plus = plus.top(comm_, m);
    minus = minus.top(comm_, m);
    if (attempt(join(plus, minus), f0)) return true;
  }
  return false;
}

// Local top ns_pool per side (the global top lies in their union), kept in small min-heaps:
// kp holds the +1 side (or all entries for Omega_{-1}), km the -1 side. Frozen entries are
// left out.
void Runner::local_candidates(std::vector<SelectKey>& kp, std::vector<SelectKey>& km) const {
  const auto& g = p_.gradient();
  const auto& x = p_.x();
  const std::int64_t b = p_.begin(), nloc = static_cast<std::int64_t>(g.size());
  const bool fixed = o_.domain == Domain::kFixedCount;
  const std::size_t C = static_cast<std::size_t>(o_.ns_pool);
  auto offer = [C](std::vector<SelectKey>& h, const SelectKey& k) {
    auto greater = [](const SelectKey& a, const SelectKey& c) { return c < a; };
    if (h.size() < C) {
      h.push_back(k);
      std::push_heap(h.begin(), h.end(), greater);
    } else if (h.front() < k) {
      std::pop_heap(h.begin(), h.end(), greater);
      h.back() = k;
      std::push_heap(h.begin(), h.end(), greater);
    }
  };
  // A value below the smallest one in a full heap cannot enter it: skip it before building
  // its key (the scan then costs about one comparison per coordinate).
  auto floor_of = [C](const std::vector<SelectKey>& h) {
    return h.size() < C ? -std::numeric_limits<double>::infinity() : decode_double(h.front().w[0]);
  };
  double fp = floor_of(kp), fm = floor_of(km);
  for (std::int64_t i = 0; i < nloc; ++i) {
    const double v = fixed ? (x[i] > 0 ? g[i] : -g[i]) : x[i] * g[i];
    const bool plus_side = !fixed || x[i] > 0;
    if (v < (plus_side ? fp : fm)) continue;
    if (!frozen_.empty() && std::binary_search(frozen_.begin(), frozen_.end(), b + i)) continue;
    std::vector<SelectKey>& h = plus_side ? kp : km;
    offer(h, make_key(encode_double(v), 0, b + i));
    (plus_side ? fp : fm) = floor_of(h);
  }
}

// The global top ns_pool of the keys, on every rank.
std::vector<SelectKey> Runner::global_top(const std::vector<SelectKey>& keys) {
  const std::vector<char> mask = select_top(comm_, keys, o_.ns_pool);
  std::vector<SelectKey> sel;
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (mask[i]) sel.push_back(keys[i]);
  return allgather_keys(comm_, sel);
}

// Omega_r: the ns_pool +1 entries of largest g and the ns_pool -1 entries of smallest g;
// Omega_{-1}: the ns_pool entries of largest x_i g_i.
Runner::Pool Runner::pooled_candidates() {
  const bool fixed = o_.domain == Domain::kFixedCount;
  std::vector<SelectKey> kp, km;
  local_candidates(kp, km);
  const std::vector<SelectKey> A = global_top(kp);
  const std::vector<SelectKey> B = fixed ? global_top(km) : std::vector<SelectKey>{};
  Pool pool;
  pool.a = static_cast<int>(A.size());
  pool.b = static_cast<int>(B.size());
  for (const auto& k : A) pool.idx.push_back(k.index());
  for (const auto& k : B) pool.idx.push_back(k.index());
  return pool;
}

// Flips the pool entries of `move`: an improving move is kept if f decreased (attempt); a
// plateau move unless f rose (the model is exact for quadratic f), and its entries are frozen.
bool Runner::apply_move(const Pool& pool, const std::vector<int>& move, bool improving,
                        double f0) {
  const std::int64_t b = p_.begin(), nloc = static_cast<std::int64_t>(p_.x().size());
  std::vector<std::int64_t> flips;
  for (int t : move) {
    const std::int64_t gi = pool.idx[t];
    if (gi >= b && gi < b + nloc) flips.push_back(gi - b);
  }
  if (improving) {
    if (!attempt(flips, f0)) return false;
    ++rep_.ns_moves;
    return true;
  }
  // Plateau move: keep it unless f rose (the model is exact for quadratic f).
  p_.flip(flips);
  if (p_.objective() > f0) {
    p_.flip(flips);
    ++rep_.rejected;
    return false;
  }
  rep_.flips += allreduce_sum(comm_, static_cast<std::int64_t>(flips.size()));
  ++rep_.plateau_moves;
  for (int t : move) frozen_.push_back(pool.idx[t]);
  std::sort(frozen_.begin(), frozen_.end());
  return true;
}

// Neighbourhood search: the best point among the m-neighbours reachable inside pools of
// candidates (pooled_candidates), enumerated when there are at most ns_exhaustive_limit moves,
// else sampled (MoveSearch). Moves to it if it lowers f.
bool Runner::neighbourhood_search() {
  ++rep_.ns_runs;
  const bool fixed = o_.domain == Domain::kFixedCount;
  const Pool pool = pooled_candidates();
  if (pool.a == 0 || (fixed && pool.b == 0)) return false;
  std::vector<double> single, pair;
  p_.flip_model(pool.idx, single, pair);
  MoveSearch search(pool.a, pool.b, fixed, std::move(single), std::move(pair));
  search.run(std::max(1, o_.ns_m), o_.ns_exhaustive_limit, o_.ns_samples,
             o_.seed * 1000003ULL + static_cast<std::uint64_t>(rep_.ns_runs));
  const double f0 = p_.objective();
  const bool improving = search.improving(f0);
  const bool plateau =
      !improving && !search.plateau_move().empty() && rep_.plateau_moves < o_.ns_plateau;
  if (!improving && !plateau) return false;
  return apply_move(pool, improving ? search.best_move() : search.plateau_move(), improving, f0);
}

Report Runner::run(const IterationHook& hook) {
  const double t0 = MPI_Wtime();
  collective_check(comm_, o_.max_iterations >= 0, "DPCD: the iteration cap must be >= 0");
  collective_check(comm_, o_.alpha1 >= 0 && o_.alpha2 >= 0, "DPCD: alpha1, alpha2 must be >= 0");
  collective_check(comm_, o_.ns_pool >= 1 && o_.ns_m >= 0, "DPCD: need ns_pool >= 1, ns_m >= 0");
  if (o_.thresholds == ThresholdRule::kLipschitz) {
    L0_ = p_.lipschitz();
    collective_check(comm_, L0_ > 0, "DPCD: the Lipschitz rule needs a known L0 > 0");
  }
  if (o_.thresholds == ThresholdRule::kCoordinate) {
    Li_ = p_.coordinate_lipschitz();
    const std::int64_t bs = p_.block_size();
    const bool periodic = bs > 0 && static_cast<std::int64_t>(Li_.size()) == bs;
    collective_check(comm_, !Li_.empty() && (periodic || Li_.size() == p_.x().size()),
                     "DPCD: the coordinate rule needs the problem's coordinate-wise constants");
    for (double& v : Li_) v += o_.eps * std::max(v, 1.0);
    Li_period_ = periodic ? bs : 0;
  }
  rep_.objective.push_back(p_.objective());
  for (int it = 1; it <= o_.max_iterations; ++it) {
    const bool moved = principal_update();
    bool ns_moved = false;
    if (o_.ns_m > 0 &&
        ((o_.ns_every > 0 && it % o_.ns_every == 0) || (!moved && o_.ns_at_stagnation)))
      ns_moved = neighbourhood_search();
    rep_.iterations = it;
    rep_.objective.push_back(p_.objective());
    if (hook) hook(it, p_.objective());
    if (!moved && !ns_moved) {
      rep_.converged = true;
      break;
    }
  }
  rep_.seconds = MPI_Wtime() - t0;
  return rep_;
}

}  // namespace

Report minimize(Problem& p, const Options& o, const IterationHook& hook) {
  Runner r(p, o);
  return r.run(hook);
}

std::vector<std::int8_t> surrogate_minimizer(const std::vector<std::int8_t>& x,
                                             const std::vector<double>& g, double L,
                                             Domain domain) {
  std::vector<std::int8_t> y(x);
  if (domain == Domain::kFree) {
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double v = L * x[i] - g[i];
      if (v > 0) y[i] = 1;
      else if (v < 0) y[i] = -1;
    }
    return y;
  }
  std::vector<std::size_t> plus, minus;
  for (std::size_t i = 0; i < x.size(); ++i) (x[i] > 0 ? plus : minus).push_back(i);
  std::sort(plus.begin(), plus.end(), [&](std::size_t a, std::size_t b) {
    return g[a] != g[b] ? g[a] > g[b] : a < b;
  });
  std::sort(minus.begin(), minus.end(), [&](std::size_t a, std::size_t b) {
    return g[a] != g[b] ? g[a] < g[b] : a < b;
  });
  for (std::size_t t = 0; t < std::min(plus.size(), minus.size()); ++t) {
    if (!(g[plus[t]] - g[minus[t]] > 2 * L)) break;
    y[plus[t]] = -1;
    y[minus[t]] = 1;
  }
  return y;
}

}  // namespace lsgl::dpcd
