#pragma once
// What the solvers of src/learn/solvers/ share: their parameters, the state a solve can continue
// from, what every rank sees after an iteration, what a solve reports, and the average degree of
// a learned graph. The log model's two solvers (fbf, fdpg) use all of it; l2, hard and soft read
// tol and max_iterations and fill a SolverReport through their models.
#include <csignal>
#include <cstdint>
#include <functional>
#include <vector>

#include "lsgl/graph/edgeset.hpp"
#include "lsgl/util/monitor.hpp"
#include "lsgl/util/names.hpp"

namespace lsgl {

// The log model's solvers: fbf (forward-backward-forward, the reference) or fdpg (FISTA on the
// dual, lsgl learn's default).
enum class SolverKind { kFbf, kFdpg };
inline constexpr Named<SolverKind> kSolverKindNames[] = {{SolverKind::kFbf, "fbf"},
                                                         {SolverKind::kFdpg, "fdpg"}};
constexpr const auto& names(SolverKind) { return kSolverKindNames; }

struct SolverParams {
  SolverKind solver = SolverKind::kFbf;
  // fbf: on the relative change of primal and dual variables; fdpg: on the relative change of
  // the dual and the KKT residual ||lambda .* (S w) - 1|| / sqrt(n)
  double tol = 1e-5;
  int max_iterations = 1000;
  double step = 0.9;       // fbf: gamma = step / (2 beta + ||S||/c), step in (0, 1)
  int norm_iterations = 30;  // power iterations for ||S||
  double norm_S = 0.0;       // > 0: ||S|| of this edge set known (a later solve on the same set)
  // fbf only (fdpg is invariant to this scaling). c > 0: the iteration runs on the equivalent
  // problem with S/c in place of S (the log term only changes by a constant), which balances
  // primal and dual progress; c = 1 is the reference iteration. 0 asks the caller to choose
  // (see estimate_dual_scale).
  double dual_scale = 1.0;
  // Residual balancing: every balance_every iterations (0: never), if the relative primal and
  // dual changes differ by more than 10x, c moves by a factor 2 toward the lagging side; at most
  // max_rescales times.
  int balance_every = 50;
  int max_rescales = 8;
  // When set, a flag raised asynchronously (e.g. by a signal handler) on any rank; it is folded
  // into the iteration's all-reduce so every rank sees it at the same iteration.
  const volatile std::sig_atomic_t* interrupt = nullptr;
  // Told every iteration (fbf, fdpg), and polled for a stop with the flag above (never null).
  Monitor* monitor = &null_monitor();
};

// Local. Whether this rank asks the iteration to stop: the interrupt flag is raised or the
// monitor asks (the solvers fold it into their all-reduce).
inline bool stop_requested(const SolverParams& p) {
  return (p.interrupt && *p.interrupt) || p.monitor->stop_requested();
}

// Everything needed to continue the iteration exactly where it was (local parts). fdpg: w is
// w*(lambda), v the dual lambda (> 0), dual_scale 1 and rescales 0; a resumed fdpg restarts its
// momentum from lambda, so it is the same iteration only up to that restart.
struct SolverState {
  std::vector<double> w;  // per local edge
  std::vector<double> v;  // per local node (dual, on S/c)
  double dual_scale = 1.0;
  int iteration = 0;      // iterations done
  int rescales = 0;
  // fdpg: the extrapolated dual per local node and the momentum t_k, so that a resume continues
  // the same sequence (empty: fbf, or a state that restarts the momentum)
  std::vector<double> mu;
  double momentum = 1.0;
};

// What every rank sees after an iteration (identical on all ranks). The stopping rule's two
// measures: fbf's relative change of the primal w (rel_change_primal) or fdpg's KKT residual
// ||lambda .* S w*(mu) - 1|| / sqrt(n) (kkt_residual), and the relative change of the dual.
struct IterationInfo {
  int iteration = 0;
  double rel_change_primal = 0.0;  // fbf (0 for fdpg)
  double kkt_residual = 0.0;       // fdpg (0 for fbf)
  double rel_change_dual = 0.0;
  bool converged = false;
  bool interrupted = false;  // the interrupt flag was raised on some rank
};

struct SolverReport {
  int iterations = 0;       // including those done before a resume
  int iterations_run = 0;   // in this call
  bool converged = false;
  bool interrupted = false;  // stopped because the interrupt flag was raised
  double rel_change_primal = 0.0;  // fbf, l2, hard, soft: ||w_new - w|| / ||w||
  double kkt_residual = 0.0;       // fdpg: ||lambda .* S w - 1|| / sqrt(n)
  double rel_change_dual = 0.0;
  double norm_S = 0.0;
  double gamma = 0.0;
  std::int64_t bytes_sent_per_iteration = 0;  // by this rank, node exchanges only
  // Bytes this rank's iteration streams through memory (edge arrays read and written, node
  // arrays), for the effective bandwidth; and the wall time of the iterations.
  std::int64_t bytes_moved_per_iteration = 0;
  double iteration_seconds = 0.0;
  double final_dual_scale = 1.0;  // c after residual balancing (fdpg: 1)
  int rescales = 0;
  int restarts = 0;  // fdpg: momentum restarts in this call
};

// Called on every rank after each iteration, with a function that captures the current state
// (for checkpoints; with fdpg the capture is collective: call it on every rank or on none);
// returning true stops the iteration (collectively: the caller must decide
// the same on every rank, e.g. from IterationInfo only). capture(false) may leave the state's w
// empty when the iteration continues without it (fdpg: w is a function of the dual; fbf always
// fills it), for a state that only starts a later solve; checkpoints need capture(true).
using IterationCallback = std::function<bool(
    const IterationInfo&, const std::function<SolverState(bool with_weights)>& capture)>;

// Collective. Average degree 2 * #{w_e > threshold} / n.
double average_degree(const EdgeSet& edges, const std::vector<double>& w, double threshold);

}  // namespace lsgl
