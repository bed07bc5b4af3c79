#include "lsgl/pipeline/learn.hpp"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <sstream>

#include "lsgl/graph/graph_io.hpp"
#include "lsgl/io/dataset.hpp"
#include "lsgl/learn/checkpoint.hpp"
#include "lsgl/learn/theta.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/phase.hpp"

namespace lsgl {

namespace {

void validate(MPI_Comm comm, const LearnOptions& o) {
  collective_check(comm, o.k >= 1, "--k must be at least 1 (got " + std::to_string(o.k) + ")");
  collective_check(comm, o.r >= 1.0, "--r must be at least 1");
  collective_check(comm, (o.alpha > 0) == (o.beta > 0),
                   "--alpha and --beta must be given together");
  collective_check(comm, o.theta >= 0 && o.alpha >= 0 && o.beta >= 0,
                   "--theta, --alpha and --beta must be positive");
  collective_check(comm, !(o.theta > 0 && o.alpha > 0), "give either --theta or --alpha/--beta");
  collective_check(comm, o.solver.tol > 0 && o.solver.max_iterations >= 1,
                   "--tol must be positive and --max-iter at least 1");
  collective_check(comm, o.solver.step > 0 && o.solver.step < 1, "--step must be in (0, 1)");
  collective_check(comm, !o.input.empty(), "--input is required");
  collective_check(comm, !o.output.empty(), "--output is required");
  collective_check(comm, o.output != o.input, "--output must not be the input file");
}

// Counts, over all nodes, those whose every allowed edge kept a weight (r too small if many)
// and those left without any edge.
void count_saturated(const EdgeSet& edges, const std::vector<double>& w, double threshold,
                     LearnSummary& s) {
  auto counts = edges.make_node_vector(2);  // (allowed edges, kept edges)
  double* c = counts->values();
  const auto& ptr = edges.row_ptr();
  for (std::int64_t r = 0; r < edges.local_nodes(); ++r)
    for (std::int64_t e = ptr[r]; e < ptr[r + 1]; ++e) {
      const std::int64_t a = edges.row_node()[r];
      const double kept = w[e] > threshold ? 1.0 : 0.0;
      c[2 * a] += 1.0;
      c[2 * a + 1] += kept;
      c[2 * edges.other()[e]] += 1.0;
      c[2 * edges.other()[e] + 1] += kept;
    }
  counts->reverse_add();
  std::int64_t local[2] = {0, 0};
  for (std::int64_t i = 0; i < edges.local_nodes(); ++i) {
    if (c[2 * i] > 0 && c[2 * i + 1] == c[2 * i]) ++local[0];
    if (c[2 * i + 1] == 0) ++local[1];
  }
  MPI_Allreduce(MPI_IN_PLACE, local, 2, MPI_INT64_T, MPI_SUM, edges.comm());
  s.saturated_nodes = local[0];
  s.isolated_nodes = local[1];
}

// alpha, beta, delta recorded for a theta (seed Prop. 1): with --alpha/--beta as given (weights
// scaled by delta); otherwise alpha = beta = 1/theta and delta = 1.
void set_model_parameters(const LearnOptions& o, double theta, LearnSummary& s) {
  s.theta = theta;
  if (o.alpha > 0) {
    s.alpha = o.alpha;
    s.beta = o.beta;
    s.delta = std::sqrt(o.alpha / o.beta);
  } else {
    s.alpha = s.beta = 1.0 / theta;
    s.delta = 1.0;
  }
}

// What a checkpoint must match: the data and every option that changes the learned graph
// (not tol, max-iter, prune, threads or output options).
std::string problem_key(const LearnOptions& o, const LocalRows& data, std::uint64_t print) {
  AnnParams ann = o.ann;
  ann.threads = 1;
  std::ostringstream k;
  k.precision(12);
  k << "n=" << data.n << " d=" << data.d << " data=" << std::hex << print << std::dec
    << " k=" << o.k << " r=" << o.r << " theta=" << o.theta << " alpha=" << o.alpha
    << " beta=" << o.beta << " ann=[" << ann.describe() << "] seed=" << o.seed
    << " step=" << o.solver.step << " dual_scale=" << o.solver.dual_scale
    << " balance_every=" << o.solver.balance_every;
  return k.str();
}

volatile std::sig_atomic_t g_interrupt = 0;
extern "C" void on_interrupt(int) { g_interrupt = 1; }

}  // namespace

void install_interrupt_handlers() {
  std::signal(SIGUSR1, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
}

LearnSummary run_learn(MPI_Comm comm, const LearnOptions& o) {
  const bool talk = comm_rank(comm) == 0 && !o.quiet;
  const double t_start = MPI_Wtime();
  validate(comm, o);
  check_writable(comm, o.output);
  if (!o.checkpoint.empty()) check_writable(comm, o.checkpoint);
  LearnSummary s;
  const int m = static_cast<int>(std::lround(o.r * o.k));
  s.candidates_per_node = m;

  LocalRows data;
  s.t_read =
      timed_phase(comm, "read", talk, [&] { data = read_dataset(comm, o.input, o.dataset); });
  s.n = data.n;
  s.d = data.d;
  collective_check(comm, data.n > m,
                   "need more points than candidates per node: n = " + std::to_string(data.n) +
                       " <= r*k = " + std::to_string(m));
  if (talk) std::printf("  n = %lld, d = %lld\n", (long long)data.n, (long long)data.d);

  const std::string key = problem_key(o, data, fingerprint(comm, data));

  // candidates + theta, or both from a checkpoint.
  std::unique_ptr<EdgeSet> edges;
  std::unique_ptr<SolverState> start;
  if (!o.resume.empty()) {
    s.t_candidates = timed_phase(comm, "candidates", talk, [&] {
      LoadedCheckpoint c = read_checkpoint(comm, o.resume);
      collective_check(comm, c.info.key == key,
                       "checkpoint '" + o.resume +
                           "' was written for other data or other parameters (it has: " +
                           c.info.key + ")");
      edges = std::make_unique<EdgeSet>(std::move(c.edges));
      start = std::make_unique<SolverState>(std::move(c.state));
      s.recall = c.info.recall;
      s.theta = c.info.theta;
    });
    if (talk)
      std::printf("  resuming from '%s' at iteration %d\n", o.resume.c_str(), start->iteration);
    s.t_theta = 0.0;
    set_model_parameters(o, s.theta, s);
    s.dual_scale = start->dual_scale;
  } else {
    Candidates cand;
    s.t_candidates = timed_phase(comm, "candidates", talk, [&] {
      cand = find_candidates(comm, data, m, o.ann);
      s.recall = estimate_recall(comm, data, cand, o.recall_sample, o.seed, o.ann.threads);
    });
    if (talk) {
      std::printf("  %d candidates per node, %s\n", m, o.ann.describe().c_str());
      if (s.recall >= 0)
        std::printf("  estimated recall %.3f on %d sampled nodes\n", s.recall, o.recall_sample);
    }
    s.t_theta = timed_phase(comm, "theta", talk, [&] {
      edges = std::make_unique<EdgeSet>(EdgeSet::from_candidates(comm, data.n, cand));
      const double theta =
          o.alpha > 0 ? 1.0 / std::sqrt(o.alpha * o.beta)
                      : (o.theta > 0 ? o.theta : theta_from_k(comm, cand, o.k).theta);
      set_model_parameters(o, theta, s);
      s.dual_scale = o.solver.dual_scale > 0 ? o.solver.dual_scale
                                             : estimate_dual_scale(comm, cand, s.theta);
    });
  }
  s.allowed_edges = edges->global_edges();
  data = LocalRows();
  std::vector<double> tz = edges->z();
  for (auto& x : tz) x *= s.theta;
  if (talk)
    std::printf("  theta = %.6g, %lld allowed edges, dual scale %.4g\n", s.theta,
                (long long)s.allowed_edges, s.dual_scale);

  std::vector<double> w;
  s.t_learn = timed_phase(comm, "learn", talk, [&] {
    SolverParams sp = o.solver;
    sp.dual_scale = s.dual_scale;
    sp.interrupt = &g_interrupt;
    const CheckpointInfo info{key, s.theta, s.recall};
    w = learn_log(
        *edges, tz, sp, s.solver,
        [&](const IterationInfo& it, const std::function<SolverState()>& capture) {
          if (talk && o.progress_every > 0 && it.iteration % o.progress_every == 0) {
            std::printf("  iteration %5d   rel. change primal %.3e  dual %.3e\n", it.iteration,
                        it.rel_change_primal, it.rel_change_dual);
            std::fflush(stdout);
          }
          const bool due = o.checkpoint_every > 0 && it.iteration % o.checkpoint_every == 0 &&
                           !it.converged;
          if (!o.checkpoint.empty() && (due || it.interrupted)) {
            write_checkpoint(o.checkpoint, *edges, capture(), info);
            if (talk) {
              std::printf("  checkpoint written at iteration %d: %s\n", it.iteration,
                          o.checkpoint.c_str());
              std::fflush(stdout);
            }
          }
          return it.interrupted;
        },
        start.get());
  });
  if (talk)
    std::printf(
        "  ||S|| = %.4g (power iteration), gamma = %.4g, dual scale %.4g after %d rescales\n",
        s.solver.norm_S, s.solver.gamma, s.solver.final_dual_scale, s.solver.rescales);
  if (s.solver.interrupted) {
    s.interrupted = true;
    if (talk)
      std::printf("interrupted by a signal at iteration %d; %s\n", s.solver.iterations,
                  o.checkpoint.empty() ? "no --checkpoint was given, nothing saved"
                                       : ("resume with --resume " + o.checkpoint).c_str());
    return s;
  }
  count_saturated(*edges, w, o.prune, s);
  {
    const double moved = static_cast<double>(
        allreduce_sum(comm, s.solver.bytes_moved_per_iteration) * s.solver.iterations_run);
    double seconds = s.solver.iteration_seconds;
    MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
    s.learn_bandwidth = seconds > 0 ? moved / seconds : 0.0;
    s.ms_per_iteration = 1e3 * seconds / std::max(1, s.solver.iterations_run);
    s.bytes_sent_max = allreduce_max(comm, s.solver.bytes_sent_per_iteration);
  }

  s.t_write = timed_phase(comm, "write", talk, [&] {
    const LocalCsr rows = assemble_rows(*edges, w, o.prune, s.delta);
    const std::int64_t nnz = allreduce_sum(comm, static_cast<std::int64_t>(rows.indices.size()));
    s.edges = nnz / 2;
    s.avg_degree = static_cast<double>(nnz) / static_cast<double>(s.n);
    const Attributes graph_attrs = {
        {"n", s.n},
        {"nnz", nnz},
        {"model", std::string("log")},
        {"k_requested", static_cast<std::int64_t>(o.k)},
        {"avg_degree", s.avg_degree},
        {"theta", s.theta},
        {"alpha", s.alpha},
        {"beta", s.beta},
        {"delta", s.delta},
        {"iterations", static_cast<std::int64_t>(s.solver.iterations)},
        {"converged", static_cast<std::int64_t>(s.solver.converged ? 1 : 0)},
        {"rel_change_primal", s.solver.rel_change_primal},
        {"rel_change_dual", s.solver.rel_change_dual},
        {"tol", o.solver.tol},
        {"step", o.solver.step},
        {"dual_scale_initial", s.dual_scale},
        {"dual_scale", s.solver.final_dual_scale},
        {"r", o.r},
        {"candidates_per_node", s.candidates_per_node},
        {"allowed_edges", s.allowed_edges},
        {"ann", o.ann.describe()},
        {"recall_estimate", s.recall},
        {"prune_threshold", o.prune},
    };
    const Attributes file_attrs = {
        {"lsgl_version", std::string(LSGL_VERSION)},
        {"git_commit", std::string(LSGL_GIT_COMMIT)},
        {"command_line", o.command_line},
        {"configuration", o.configuration},
        {"ranks", static_cast<std::int64_t>(comm_size(comm))},
        {"utc_time", utc_now()},
        {"input", o.input},
    };
    write_graph(comm, o.output, rows, graph_attrs, file_attrs);
  });
  s.t_total = MPI_Wtime() - t_start;
  const std::int64_t rss = peak_rss_bytes();
  s.peak_rss_max = allreduce_max(comm, rss);
  s.peak_rss_sum = allreduce_sum(comm, rss);

  if (talk) {
    std::printf("\nsummary\n");
    std::printf("  nodes              %lld (d = %lld)\n", (long long)s.n, (long long)s.d);
    std::printf("  edges              %lld of %lld allowed\n", (long long)s.edges,
                (long long)s.allowed_edges);
    std::printf("  average degree     %.2f (requested k = %d)\n", s.avg_degree, o.k);
    std::printf("  iterations         %d (%s, rel. change primal %.2e, dual %.2e, tol %.0e)\n",
                s.solver.iterations, s.solver.converged ? "converged" : "NOT converged",
                s.solver.rel_change_primal, s.solver.rel_change_dual, o.solver.tol);
    if (s.recall >= 0) std::printf("  candidate recall   %.3f (estimated)\n", s.recall);
    std::printf("  isolated nodes     %lld\n", (long long)s.isolated_nodes);
    if (s.saturated_nodes * 10 > s.n)
      std::printf("  warning: %lld nodes kept all their allowed edges: increase --r\n",
                  (long long)s.saturated_nodes);
    std::printf(
        "  learning           %.2f ms per iteration, %.2f GB/s effective, at most %lld "
        "bytes sent per rank and iteration\n",
        s.ms_per_iteration, s.learn_bandwidth / 1e9,
        (long long)s.bytes_sent_max);
    std::printf(
        "  phases             read %.2f s, candidates %.2f s, theta %.2f s, learn %.2f s, "
        "write %.2f s\n",
        s.t_read, s.t_candidates, s.t_theta, s.t_learn, s.t_write);
    std::printf("  peak memory        %.1f MB max per rank, %.1f MB total\n", s.peak_rss_max / 1e6,
                s.peak_rss_sum / 1e6);
    std::printf("  total time         %.2f s\n", s.t_total);
    std::printf("  output             %s\n", o.output.c_str());
    std::fflush(stdout);
  }
  return s;
}

}  // namespace lsgl
