#include "lsgl/pipeline/learn.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "lsgl/graph/graph_io.hpp"
#include "lsgl/io/dataset.hpp"
#include "lsgl/learn/theta.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/petsc.hpp"

namespace lsgl {

namespace {

// Times one phase on every rank (barrier before and after) inside its own PETSc log stage.
template <class Fn>
double timed_phase(MPI_Comm comm, const char* name, bool verbose, Fn&& fn) {
  LogStage stage(name);
  MPI_Barrier(comm);
  const double t0 = MPI_Wtime();
  fn();
  MPI_Barrier(comm);
  const double dt = MPI_Wtime() - t0;
  if (verbose) {
    std::printf("[%-10s] %8.2f s\n", name, dt);
    std::fflush(stdout);
  }
  return dt;
}

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
}

std::string utc_now() {
  char buf[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// Counts, over all nodes, those whose every allowed edge kept a weight (r too small if many)
// and those left without any edge.
void count_saturated(const EdgeSet& edges, const std::vector<double>& w, double threshold,
                     LearnSummary& s) {
  auto counts = edges.make_node_vector(2);  // (allowed edges, kept edges)
  double* c = counts->values();
  const auto& ptr = edges.anchor_ptr();
  for (std::int64_t a = 0; a < edges.local_nodes(); ++a)
    for (std::int64_t e = ptr[a]; e < ptr[a + 1]; ++e) {
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

}  // namespace

LearnSummary run_learn(MPI_Comm comm, const LearnOptions& o) {
  const bool talk = comm_rank(comm) == 0 && !o.quiet;
  const double t_start = MPI_Wtime();
  validate(comm, o);
  check_writable(comm, o.output);
  LearnSummary s;
  const int m = static_cast<int>(std::lround(o.r * o.k));
  s.candidates_per_node = m;

  LocalRows data;
  s.t_read = timed_phase(comm, "read", talk, [&] {
    data = read_dataset(comm, o.input, o.dataset);
  });
  s.n = data.n;
  s.d = data.d;
  collective_check(comm, data.n > m,
                   "need more points than candidates per node: n = " + std::to_string(data.n) +
                       " <= r*k = " + std::to_string(m));
  if (talk) std::printf("  n = %lld, d = %lld\n", (long long)data.n, (long long)data.d);

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

  std::unique_ptr<EdgeSet> edges;
  std::vector<double> tz;
  s.t_theta = timed_phase(comm, "theta", talk, [&] {
    edges = std::make_unique<EdgeSet>(EdgeSet::from_candidates(comm, data.n, cand));
    if (o.alpha > 0) {
      s.theta = 1.0 / std::sqrt(o.alpha * o.beta);
      s.alpha = o.alpha;
      s.beta = o.beta;
      s.delta = std::sqrt(o.alpha / o.beta);
    } else {
      s.theta = o.theta > 0 ? o.theta : theta_from_k(comm, cand, o.k).theta;
      s.alpha = s.beta = 1.0 / s.theta;
      s.delta = 1.0;
    }
    tz = edges->z();
    for (auto& x : tz) x *= s.theta;
    s.dual_scale = o.solver.dual_scale > 0 ? o.solver.dual_scale
                                           : estimate_dual_scale(comm, cand, s.theta);
  });
  s.allowed_edges = edges->global_edges();
  data = LocalRows();
  cand = Candidates();
  if (talk)
    std::printf("  theta = %.6g, %lld allowed edges, dual scale %.4g\n", s.theta,
                (long long)s.allowed_edges, s.dual_scale);

  std::vector<double> w;
  s.t_learn = timed_phase(comm, "learn", talk, [&] {
    SolverParams sp = o.solver;
    sp.dual_scale = s.dual_scale;
    w = learn_log(*edges, tz, sp, s.solver, [&](int it, double rp, double rd) {
      if (talk && o.progress_every > 0 && it % o.progress_every == 0) {
        std::printf("  iteration %5d   rel. change primal %.3e  dual %.3e\n", it, rp, rd);
        std::fflush(stdout);
      }
    });
  });
  if (talk)
    std::printf("  ||S|| = %.4g (power iteration), gamma = %.4g, dual scale %.4g after %d rescales\n",
                s.solver.norm_S, s.solver.gamma, s.solver.final_dual_scale, s.solver.rescales);
  count_saturated(*edges, w, o.prune, s);
  {
    const double moved = static_cast<double>(
        allreduce_sum(comm, s.solver.bytes_moved_per_iteration) * s.solver.iterations);
    double seconds = s.solver.iteration_seconds;
    MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
    s.learn_bandwidth = seconds > 0 ? moved / seconds : 0.0;
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
    std::printf("  learning           %.2f ms per iteration, %.2f GB/s effective, at most %lld "
                "bytes sent per rank and iteration\n",
                1e3 * s.t_learn / std::max(1, s.solver.iterations), s.learn_bandwidth / 1e9,
                (long long)s.bytes_sent_max);
    std::printf("  phases             read %.2f s, candidates %.2f s, theta %.2f s, learn %.2f s, "
                "write %.2f s\n",
                s.t_read, s.t_candidates, s.t_theta, s.t_learn, s.t_write);
    std::printf("  peak memory        %.1f MB max per rank, %.1f MB total\n",
                s.peak_rss_max / 1e6, s.peak_rss_sum / 1e6);
    std::printf("  total time         %.2f s\n", s.t_total);
    std::printf("  output             %s\n", o.output.c_str());
    std::fflush(stdout);
  }
  return s;
}

}  // namespace lsgl
