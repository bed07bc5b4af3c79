// The dense k-subgraph problem for DPCD and the shared fixed-point graph (see
// dense_subgraph.hpp).
#include "lsgl/dpcd/dense_subgraph.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "lsgl/dpcd/baselines.hpp"
#include "lsgl/graph/csr_exchange.hpp"
#include "lsgl/util/error.hpp"

namespace lsgl::dpcd {

namespace {

// The set of member ids in [0, n), for `lookups` membership tests: a bitmap of n bits when
// clearing it costs no more than the lookups (one bit test each), else an open-addressing hash
// set of about 4k slots (one probe per lookup when k is small next to the graph).
class MemberSet {
 public:
  MemberSet(const std::vector<std::int64_t>& ids, std::int64_t n, std::int64_t lookups) {
    if ((n + 63) / 64 <= std::max<std::int64_t>(lookups, 1)) {
      bits_.assign(static_cast<std::size_t>((n + 63) / 64), 0);
      for (auto v : ids) bits_[static_cast<std::size_t>(v) >> 6] |= std::uint64_t(1) << (v & 63);
      return;
    }
    std::size_t cap = 16;
    while (cap < 4 * ids.size()) cap <<= 1;
    mask_ = cap - 1;
    slots_.assign(cap, -1);
    for (auto v : ids) {
      std::size_t h = hash(v);
      while (slots_[h] >= 0 && slots_[h] != v) h = (h + 1) & mask_;
      slots_[h] = v;
    }
  }
  bool contains(std::int64_t v) const {
    if (!bits_.empty()) return (bits_[static_cast<std::size_t>(v) >> 6] >> (v & 63)) & 1;
    for (std::size_t h = hash(v);; h = (h + 1) & mask_) {
      if (slots_[h] == v) return true;
      if (slots_[h] < 0) return false;
    }
  }

 private:
  std::size_t hash(std::int64_t v) const {
    return static_cast<std::size_t>((static_cast<std::uint64_t>(v) * 0x9e3779b97f4a7c15ULL) >> 20) &
           mask_;
  }
  std::vector<std::uint64_t> bits_;
  std::size_t mask_ = 0;
  std::vector<std::int64_t> slots_;
};

std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// Stored entries in the rows of this rank's `members`.
std::int64_t row_entries(const FixedPointGraph& g, const std::vector<std::int64_t>& members) {
  std::int64_t n = 0;
  for (auto m : members) n += g.rows.indptr[m - g.begin() + 1] - g.rows.indptr[m - g.begin()];
  return n;
}

}  // namespace

FixedPointGraph make_fixed_point(MPI_Comm comm, LocalCsr rows) {
  FixedPointGraph g;
  g.comm = comm;
  g.part = partition_of_blocks(comm, rows.n, rows.begin);
  g.rows = std::move(rows);
  double wmax = 0.0, wmin = HUGE_VAL;
  for (double w : g.rows.data) {
    wmax = std::max(wmax, w);
    wmin = std::min(wmin, w);
  }
  wmax = allreduce_max_double(comm, wmax);
  wmin = -allreduce_max_double(comm, -wmin);
  g.nnz = allreduce_sum(comm, static_cast<std::int64_t>(g.rows.indices.size()));
  g.unit_weights = g.nnz == 0 || wmax == wmin;
  // x^T W x <= sum of all weights <= wmax * nnz < 2^60 / 4 after scaling. With wmax = m 2^e
  // (1 <= m < 2), log2(wmax * nnz) = e + log2(m * nnz): no overflow for weights near DBL_MAX,
  // and w * 2^bits is formed directly (2^bits alone overflows for weights near 1e-300).
  const int e = std::ilogb(wmax > 0 ? wmax : 1.0);
  const double m = std::scalbn(wmax > 0 ? wmax : 1.0, -e);
  g.bits = 58 - (e + std::ilogb(m * static_cast<double>(std::max<std::int64_t>(g.nnz, 1))) + 1);
  g.q.resize(g.rows.data.size());
  std::int64_t lost = 0;  // positive weights too small to keep a fixed-point bit
  for (std::size_t e = 0; e < g.q.size(); ++e) {
    g.q[e] = static_cast<std::int64_t>(std::llround(std::ldexp(g.rows.data[e], g.bits)));
    if (g.q[e] == 0 && g.rows.data[e] > 0) ++lost;
  }
  lost = allreduce_sum(comm, lost);
  collective_check(comm, lost == 0,
                   std::to_string(lost) + " weights are below 2^-58 of the largest weight times "
                   "the number of entries and would be zero in the fixed-point arithmetic "
                   "(weights from " + short_number(wmin) + " to " + short_number(wmax) + ")");
  g.degree.assign(g.local_rows(), 0);
  for (std::int64_t r = 0; r < g.local_rows(); ++r)
    for (std::int64_t e = g.rows.indptr[r]; e < g.rows.indptr[r + 1]; ++e) g.degree[r] += g.q[e];
  std::int64_t md = 0;
  for (auto d : g.degree) md = std::max(md, d);
  g.max_degree = allreduce_max(comm, md);
  return g;
}

std::vector<std::int64_t> weight_into(const FixedPointGraph& g,
                                      const std::vector<std::int64_t>& members) {
  std::vector<std::int64_t> wx(g.local_rows(), 0);
  // Push (the members' rows travel to the owners of their neighbours) when the members' rows are
  // a small part of the graph; otherwise pull: every rank scans its own rows against the
  // all-gathered member ids (O(k) per rank), and nothing but the ids travels.
  const std::int64_t volume = allreduce_sum(g.comm, row_entries(g, members));
  if (volume * 8 > g.nnz) {
    const MemberSet in(allgather_items(g.comm, members), g.rows.n,
                       static_cast<std::int64_t>(g.rows.indices.size()));
    for (std::int64_t r = 0; r < g.local_rows(); ++r) {
      std::int64_t acc = 0;
      for (std::int64_t e = g.rows.indptr[r]; e < g.rows.indptr[r + 1]; ++e)
        if (in.contains(g.rows.indices[e])) acc += g.q[e];
      wx[r] = acc;
    }
    return wx;
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> src;
  src.reserve(members.size());
  for (auto m : members) src.push_back({m - g.begin(), 1});
  const auto deltas = push_rows<std::int64_t>(
      g.comm, g.part, g.rows, src, [&](std::int64_t e, std::int64_t c) { return c * g.q[e]; });
  for (const auto& d : deltas) wx[d.local] += d.value;
  return wx;
}

SubgraphStats evaluate_subgraph(const FixedPointGraph& g,
                                const std::vector<std::int64_t>& members) {
  // The members of all ranks (k ids, sorted; small next to the graph), then each rank sums the
  // entries of its member rows whose column is a member: no entries travel.
  const MemberSet in(allgather_items(g.comm, members), g.rows.n, row_entries(g, members));
  std::int64_t acc[3] = {static_cast<std::int64_t>(members.size()), 0, 0};
  for (auto m : members) {
    const std::int64_t r = m - g.begin();
    for (std::int64_t e = g.rows.indptr[r]; e < g.rows.indptr[r + 1]; ++e)
      if (in.contains(g.rows.indices[e])) {
        acc[1] += g.q[e];
        acc[2] += 1;
      }
  }
  MPI_Allreduce(MPI_IN_PLACE, acc, 3, MPI_INT64_T, MPI_SUM, g.comm);
  SubgraphStats s;
  s.k = acc[0];
  s.xwx = acc[1];
  s.edges_inside = acc[2] / 2;
  s.weight_inside = g.to_double(acc[1]) / 2.0;
  s.density = s.k > 0 ? g.to_double(acc[1]) / static_cast<double>(s.k) : 0.0;
  return s;
}

// ------------------------------------------------------------------ DenseSubgraphProblem

DenseSubgraphProblem::DenseSubgraphProblem(const FixedPointGraph& g,
                                           const std::vector<std::int64_t>& members)
    : g_(g) {
  y_.assign(g.local_rows(), -1);
  for (auto m : members) y_[m - g.begin()] = 1;
  wx_ = weight_into(g, members);
  grad_.resize(wx_.size());
  inside_local_ = 0;
  for (std::size_t i = 0; i < wx_.size(); ++i) {
    grad_[i] = -4.0 * g.to_double(wx_[i]);  // grad f = -4 W x
    if (y_[i] > 0) inside_local_ += wx_[i];
  }
  xwx_ = allreduce_sum(g.comm, inside_local_);
}

void DenseSubgraphProblem::flip(const std::vector<std::int64_t>& local) {
  std::vector<std::pair<std::int64_t, std::int64_t>> src;
  src.reserve(local.size());
  for (auto i : local) {
    if (y_[i] > 0) {  // leaves
      inside_local_ -= wx_[i];
      y_[i] = -1;
      src.push_back({i, -1});
    } else {  // enters
      inside_local_ += wx_[i];
      y_[i] = 1;
      src.push_back({i, 1});
    }
  }
  const auto deltas = push_rows<std::int64_t>(
      g_.comm, g_.part, g_.rows, src, [&](std::int64_t e, std::int64_t c) { return c * g_.q[e]; });
  for (const auto& d : deltas) {
    wx_[d.local] += d.value;
    if (y_[d.local] > 0) inside_local_ += d.value;
  }
  for (const auto& d : deltas) grad_[d.local] = -4.0 * g_.to_double(wx_[d.local]);
  xwx_ = allreduce_sum(g_.comm, inside_local_);
}

// f = x^T A x + b^T y + const with A = -W: flipping T changes f by
// sum_i (-2 y_i g_i + 4 A_ii) + sum_{i<j} 8 y_i y_j A_ij  (A_ii = 0).
void DenseSubgraphProblem::flip_model(const std::vector<std::int64_t>& global,
                                      std::vector<double>& single, std::vector<double>& pair) {
  const std::size_t s = global.size();
  single.assign(s, 0.0);
  pair.assign(s * s, 0.0);
  const std::int64_t lo = g_.begin(), hi = lo + g_.local_rows();
  // y of every listed node (owners contribute, others add 0).
  std::vector<double> ys(s, 0.0);
  for (std::size_t t = 0; t < s; ++t)
    if (global[t] >= lo && global[t] < hi) ys[t] = y_[global[t] - lo];
  MPI_Allreduce(MPI_IN_PLACE, ys.data(), static_cast<int>(s), MPI_DOUBLE, MPI_SUM, g_.comm);
  for (std::size_t t = 0; t < s; ++t) {
    const std::int64_t i = global[t];
    if (i < lo || i >= hi) continue;
    const std::int64_t r = i - lo;
    single[t] = -2.0 * y_[r] * grad_[r];
    const auto b = g_.rows.indices.begin() + g_.rows.indptr[r];
    const auto e = g_.rows.indices.begin() + g_.rows.indptr[r + 1];
    for (std::size_t u = t + 1; u < s; ++u) {
      const auto it = std::lower_bound(b, e, global[u]);
      if (it != e && *it == global[u]) {
        const double w = g_.to_double(g_.q[it - g_.rows.indices.begin()]);
        pair[t * s + u] = -8.0 * ys[t] * ys[u] * w;
      }
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, single.data(), static_cast<int>(s), MPI_DOUBLE, MPI_SUM, g_.comm);
  MPI_Allreduce(MPI_IN_PLACE, pair.data(), static_cast<int>(s * s), MPI_DOUBLE, MPI_SUM, g_.comm);
}

std::vector<std::int64_t> DenseSubgraphProblem::members() const {
  std::vector<std::int64_t> m;
  for (std::size_t i = 0; i < y_.size(); ++i)
    if (y_[i] > 0) m.push_back(g_.begin() + static_cast<std::int64_t>(i));
  return m;
}

// ------------------------------------------------------------------ DPCD for dense subgraphs

std::vector<std::int64_t> initial_set(const FixedPointGraph& g, std::int64_t k, InitialSet set,
                                      int tpower_iterations) {
  switch (set) {
    case InitialSet::kDegree: return top_degree(g, k);
    case InitialSet::kFeige: return feige(g, k);
    case InitialSet::kPeel: return peel(g, k);
    case InitialSet::kTpower: break;
  }
  return tpower(g, k, top_degree(g, k), tpower_iterations, nullptr, nullptr);
}

std::vector<std::int64_t> best_initial_set(const FixedPointGraph& g, std::int64_t k,
                                           const std::vector<InitialSet>& sets,
                                           int tpower_iterations, std::string* used,
                                           double* density) {
  std::int64_t best_xwx = -1;
  std::vector<std::int64_t> best;
  for (const InitialSet set : sets) {
    std::vector<std::int64_t> m = initial_set(g, k, set, tpower_iterations);
    const SubgraphStats s = evaluate_subgraph(g, m);
    if (s.xwx > best_xwx) {
      best_xwx = s.xwx;
      best = std::move(m);
      if (used) *used = to_string(set);
      if (density) *density = s.density;
    }
  }
  collective_check(g.comm, best_xwx >= 0, "DPCD: no initialisation given");
  return best;
}

DensestDpcdResult dpcd_from(const FixedPointGraph& g, const std::vector<std::int64_t>& init,
                            const Options& o) {
  DensestDpcdResult res;
  const double t1 = MPI_Wtime();
  Options opt = o;
  opt.domain = Domain::kFixedCount;
  DenseSubgraphProblem p(g, init);
  res.report = minimize(p, opt);
  // History as x^T W x (the quantity maximised): f = -4 x^T W x.
  for (double& f : res.report.objective) f = -f / 4.0;
  res.members = p.members();
  res.dpcd_seconds = MPI_Wtime() - t1;
  return res;
}

DensestDpcdResult dpcd_densest(const FixedPointGraph& g, std::int64_t k,
                               const DensestDpcdOptions& o) {
  const double t0 = MPI_Wtime();
  if (o.from_each) {
    DensestDpcdResult best;
    std::int64_t best_xwx = -1;
    double init_seconds = 0.0, dpcd_seconds = 0.0;
    for (const InitialSet set : o.init) {
      const double t1 = MPI_Wtime();
      const std::vector<std::int64_t> init = initial_set(g, k, set, o.tpower_iterations);
      const double density = evaluate_subgraph(g, init).density;
      init_seconds += MPI_Wtime() - t1;
      DensestDpcdResult r = dpcd_from(g, init, o.dpcd);
      dpcd_seconds += r.dpcd_seconds;
      const std::int64_t x = evaluate_subgraph(g, r.members).xwx;
      if (x > best_xwx) {
        best_xwx = x;
        best = std::move(r);
        best.init_used = to_string(set);
        best.init_density = density;
      }
    }
    best.init_seconds = init_seconds;
    best.dpcd_seconds = dpcd_seconds;
    return best;
  }
  std::string used;
  double density = 0.0;
  const std::vector<std::int64_t> init =
      best_initial_set(g, k, o.init, o.tpower_iterations, &used, &density);
  const double t1 = MPI_Wtime();
  DensestDpcdResult res = dpcd_from(g, init, o.dpcd);
  res.init_used = used;
  res.init_density = density;
  res.init_seconds = t1 - t0;
  return res;
}

}  // namespace lsgl::dpcd
