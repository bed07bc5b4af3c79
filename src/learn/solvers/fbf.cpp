// FBF: the forward-backward-forward primal-dual iteration of the log model (Komodakis & Pesquet
// 2015; Kalofolias 2016 Alg. 1), the reference solver and the test oracle of fdpg.
#include <algorithm>
#include <cmath>

#include "kernels.hpp"
#include "lsgl/learn/solvers/log.hpp"

namespace lsgl {

namespace {

using learn_kernels::positive_part;
using learn_kernels::relative;

// Prox of the conjugate of -alpha * sum log (alpha = 1): p = (y - sqrt(y^2 + 4 gamma)) / 2.
inline double prox_log_conjugate(double y, double gamma) {
  return 0.5 * (y - std::sqrt(y * y + 4.0 * gamma));
}

// Forward-backward-forward iteration (Kalofolias 2016 Alg. 1) on S/c (c = dual scale), fused so
// that each iteration makes one pass over the edges, one over the nodes, one forward and one
// reverse node exchange and one all-reduce. Per edge only w and D = w - Y are kept: P is
// recomputed from them as max(0, w - D - 2 g z).
//   nodes: y = v + g S w / c;  p = prox(y);  q = p + g S P / c;  v <- v - y + q
//   edges: Q = P - g (2 P + S^T p / c);  w <- Q + D  (= w - Y + Q);
//          then the next iteration's  D = g (2 w + S^T v / c)  (= w - Y),  P = max(0, w - D - 2 g
//          z)
class FbfIteration {
 public:
  FbfIteration(const EdgeSet& edges, const std::vector<double>& tz, double step, double norm_S)
      : e_(edges),
        tz_(tz),
        step_(step),
        norm_S_(norm_S),
        w_(edges.local_edges(), 0.0),
        D_(edges.local_edges(), 0.0),
        v_(edges.local_nodes(), 0.0),
        acc_(edges.make_node_vector(2)),
        pv_(edges.make_node_vector(2)) {}

  // Continues from a captured state: w, v on S/c.
  void load(const SolverState& st) {
    w_ = st.w;
    v_ = st.v;
    c_ = st.dual_scale;
    g_ = step_ / (2.0 * kBeta + norm_S_ / c_);
    restart();
  }

  SolverState capture(int iteration, int rescales) const {
    return SolverState{w_, v_, c_, iteration, rescales, {}, 1.0};
  }

  double gamma() const { return g_; }
  double scale() const { return c_; }
  std::vector<double>& weights() { return w_; }

  // Runs on S/c from now on. The dual solution scales with c (v* = -c / degree), so v is
  // rescaled and D, S w, S P are recomputed from (w, v): the iteration restarts from the same
  // point of the same problem.
  void set_scale(double c) {
    for (auto& x : v_) x *= c / c_;
    c_ = c;
    g_ = step_ / (2.0 * kBeta + norm_S_ / c_);
    restart();
  }

  // One iteration; sums = |w_new - w|^2, |w|^2, |q - y|^2, |v|^2 over this rank.
  void iterate(double sums[4]) {
    const std::int64_t nl = e_.local_nodes();
    const double g = g_, si = 1.0 / c_;
    sums[0] = sums[1] = sums[2] = sums[3] = 0.0;
    const double* a2 = acc_->values();
    double* out = pv_->values();
    for (std::int64_t i = 0; i < nl; ++i) {
      const double y = v_[i] + g * si * a2[2 * i];
      const double p = prox_log_conjugate(y, g);
      const double q = p + g * si * a2[2 * i + 1];
      sums[2] += (q - y) * (q - y);
      sums[3] += v_[i] * v_[i];
      v_[i] += q - y;
      out[2 * i] = p;
      out[2 * i + 1] = v_[i];
    }
    pv_->forward();
    edge_pass<true>(sums);
  }

 private:
  static constexpr double kBeta = 1.0;

  // D and (S w, S P) from (w, v).
  void restart() {
    double* out = pv_->values();
    for (std::int64_t i = 0; i < e_.local_nodes(); ++i) {
      out[2 * i] = 0.0;
      out[2 * i + 1] = v_[i];
    }
    pv_->forward();
    double unused[4];
    edge_pass<false>(unused);
  }

  // The edge pass; with kFinish, first completes the iteration (Q, new w) from p.
  template <bool kFinish>
  void edge_pass(double sums[4]) {
    const std::int64_t nl = e_.local_nodes(), ne = e_.local_edges();
    const auto& ptr = e_.row_ptr();
    const std::int32_t* __restrict__ other = e_.other().data();
    const double g = g_, si = 1.0 / c_;
    const double* __restrict__ x = pv_->values();
    double* __restrict__ s = acc_->values();
    double* __restrict__ w = w_.data();
    double* __restrict__ D = D_.data();
    const double* __restrict__ tz = tz_.data();
    std::fill(s, s + 2 * (nl + static_cast<std::int64_t>(e_.ghosts().size())), 0.0);
    constexpr std::int64_t kAhead = 16;  // prefetch distance for the random node accesses
    double d0 = 0.0, d1 = 0.0;
    for (std::int64_t a = 0; a < nl; ++a) {
      const double pa = x[2 * a], va = x[2 * a + 1];
      double sw = 0.0, sp = 0.0;
      for (std::int64_t e = ptr[a]; e < ptr[a + 1]; ++e) {
        if (e + kAhead < ne) {
          __builtin_prefetch(x + 2 * other[e + kAhead]);
          __builtin_prefetch(s + 2 * other[e + kAhead], 1);
        }
        const std::int32_t b = other[e];
        const double tze = 2.0 * g * tz[e];
        double wn = w[e];
        if (kFinish) {
          const double we = w[e], De = D[e];
          const double P = positive_part(we - De - tze);
          const double Q = P - g * (2.0 * kBeta * P + si * (pa + x[2 * b]));
          wn = Q + De;
          d0 += (wn - we) * (wn - we);
          d1 += we * we;
          w[e] = wn;
        }
        const double Dn = g * (2.0 * kBeta * wn + si * (va + x[2 * b + 1]));
        const double Pn = positive_part(wn - Dn - tze);
        D[e] = Dn;
        sw += wn;
        sp += Pn;
        s[2 * b] += wn;
        s[2 * b + 1] += Pn;
      }
      s[2 * a] += sw;
      s[2 * a + 1] += sp;
    }
    sums[0] = d0;
    sums[1] = d1;
    acc_->reverse_add();
  }

  const EdgeSet& e_;
  const std::vector<double>& tz_;
  double step_, norm_S_;
  double c_ = 1.0, g_ = 0.0;
  std::vector<double> w_, D_, v_;
  std::unique_ptr<GhostedNodeVector> acc_;  // (S w, S P) per node
  std::unique_ptr<GhostedNodeVector> pv_;   // (p, new v) per node, forwarded to ghosts
};

}  // namespace

std::vector<double> learn_log_fbf(const EdgeSet& edges, const std::vector<double>& tz,
                                  const SolverParams& params, SolverReport& report,
                                  const IterationCallback& on_iteration,
                                  const SolverState* start) {
  const std::int64_t nl = edges.local_nodes(), ne = edges.local_edges();
  report.norm_S = params.norm_S > 0 ? params.norm_S : edges.norm_S(params.norm_iterations);
  report.bytes_sent_per_iteration = 2 * edges.bytes_sent_per_exchange(2);
  // Per edge: read w, D, tz, other (28 B), write w, D (16 B); per local or ghost node slot: the
  // two 2-valued node vectors written and read (64 B); per local node: v (16 B).
  report.bytes_moved_per_iteration =
      ne * 44 + (nl + static_cast<std::int64_t>(edges.ghosts().size())) * 64 + nl * 16;

  FbfIteration fbf(edges, tz, params.step, report.norm_S);
  int rescales = 0, first = 1;
  if (start) {
    fbf.load(*start);
    rescales = start->rescales;
    first = start->iteration + 1;
  } else {
    fbf.set_scale(params.dual_scale);  // from w = 0, v = 0: D = 0, S w = S P = 0
  }
  report.converged = false;
  report.iterations = first - 1;
  report.iterations_run = 0;
  const double t0 = MPI_Wtime();
  for (int it = first; it <= params.max_iterations; ++it) {
    double sums[5];
    fbf.iterate(sums);
    sums[4] = stop_requested(params) ? 1.0 : 0.0;
    MPI_Allreduce(MPI_IN_PLACE, sums, 5, MPI_DOUBLE, MPI_SUM, edges.comm());
    IterationInfo info;
    info.iteration = report.iterations = it;
    info.rel_change_primal = report.rel_change_primal = relative(sums[0], sums[1]);
    info.rel_change_dual = report.rel_change_dual = relative(sums[2], sums[3]);
    info.converged = report.converged =
        it > 1 && info.rel_change_primal < params.tol && info.rel_change_dual < params.tol;
    info.interrupted = sums[4] > 0.0;
    params.monitor->iteration(
        {"fbf", it, "rel. change primal", info.rel_change_primal, info.rel_change_dual});
    const bool stop =
        on_iteration && on_iteration(info, [&](bool) { return fbf.capture(it, rescales); });
    report.iterations_run = it - first + 1;
    if (info.converged || stop) {
      report.interrupted = stop && info.interrupted;
      break;
    }
    // Residual balancing: when one side settles 10x faster than the other, move c by 2x toward
    // the lagging side (smaller c speeds up the primal, larger c the dual). At most
    // max_rescales times, so the iteration ends as a plain FBF iteration.
    if (params.balance_every > 0 && it % params.balance_every == 0 &&
        rescales < params.max_rescales) {
      const double ratio = info.rel_change_primal / info.rel_change_dual;
      if (ratio > 10.0 || ratio < 0.1) {
        fbf.set_scale(fbf.scale() * (ratio > 10.0 ? 0.5 : 2.0));
        ++rescales;
      }
    }
  }
  report.iteration_seconds = MPI_Wtime() - t0;
  report.gamma = fbf.gamma();
  report.final_dual_scale = fbf.scale();
  report.rescales = rescales;
  // The forward-backward-forward iterate w is feasible only in the limit (P is the projected
  // point); remove the round-off-sized negative entries that remain.
  std::vector<double> w = std::move(fbf.weights());
  for (auto& e : w) e = std::max(0.0, e);
  return w;
}

}  // namespace lsgl
