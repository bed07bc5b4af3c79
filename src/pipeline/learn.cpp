#include "lsgl/pipeline/learn.hpp"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <limits>
#include <optional>
#include <sstream>

#include "lsgl/graph/graph_io.hpp"
#include "lsgl/graph/locality_order.hpp"
#include "lsgl/io/dataset.hpp"
#include "lsgl/learn/checkpoint.hpp"
#include "lsgl/learn/daitch_model.hpp"
#include "lsgl/learn/degree_search.hpp"
#include "lsgl/learn/knn_model.hpp"
#include "lsgl/learn/l2_model.hpp"
#include "lsgl/learn/projection.hpp"
#include "lsgl/learn/theta.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/file_identity.hpp"
#include "lsgl/util/phase.hpp"
#include "lsgl/util/version.hpp"

namespace lsgl {

namespace {

constexpr double kProgressSeconds = 10.0;  // progress lines of the candidate search

// Rank 0: how the candidate search went (route, cells, ranks searched per query, bytes sent).
void print_search_report(const SearchReport& r, std::int64_t n) {
  const double share = 100.0 / static_cast<double>(std::max<std::int64_t>(n, 1));
  std::printf("  route %s", r.route.c_str());
  if (r.route == "partition") std::printf(" (%d k-means cells)", r.cells);
  std::printf(": queries searched 1 / 2 / 3+ ranks' indexes: %.1f%% / %.1f%% / %.1f%%; "
              "at most %.1f MB sent per rank\n",
              share * r.visits[0], share * r.visits[1], share * r.visits[2],
              r.bytes_sent_max / 1e6);
  std::printf("  rows per index     %lld to %lld\n", (long long)r.rows_min, (long long)r.rows_max);
  std::printf("  search phases      cells %.2f s, index %.2f s, queries %.2f s (rank 0); "
              "%.2f CPU s on all ranks\n",
              r.seconds_cells, r.seconds_index, r.seconds_search, r.cpu_seconds);
}

// More candidates per node than any search serves (round(r * k) must fit an int with room).
constexpr double kMaxCandidates = 1e6;

// Ranges of the numeric options beyond their signs (finiteness is checked by the CLI parser;
// every comparison here is false for NaN as well).
void validate_ranges(MPI_Comm comm, const LearnOptions& o) {
  collective_check(comm, o.r * o.k <= kMaxCandidates,
                   "--r times --k must be at most 1e6 candidates per node (got " +
                       std::to_string(o.r * o.k) + ")");
  collective_check(comm, o.prune >= 0 && std::isfinite(o.prune),
                   "--prune must be a finite number >= 0");
  if (o.alpha > 0 && o.beta > 0) {
    const double theta = 1.0 / std::sqrt(o.alpha * o.beta), delta = std::sqrt(o.alpha / o.beta);
    collective_check(comm, std::isnormal(theta) && std::isnormal(delta) &&
                               std::isnormal(1.0 / theta) && std::isnormal(1.0 / delta),
                     "--alpha and --beta out of range: theta = 1/sqrt(alpha beta) and the weight "
                     "scale sqrt(alpha/beta) must be finite and non-zero");
  }
  collective_check(comm, o.progress_every >= 0 && o.checkpoint_every >= 0 && o.recall_sample >= 0,
                   "--progress-every, --checkpoint-every and --recall-sample must be >= 0");
}

void validate(MPI_Comm comm, const LearnOptions& o) {
  const std::string& m = o.model;
  collective_check(comm, m == "log" || m == "l2" || m == "hard" || m == "soft" || m == "knn",
                   "unknown --model '" + m + "' (expected log, l2, hard, soft or knn)");
  collective_check(comm, o.support == "ann" || o.support == "full",
                   "unknown --support '" + o.support + "' (expected ann or full)");
  collective_check(comm, o.order == "locality" || o.order == "input",
                   "unknown --order '" + o.order + "' (expected locality or input)");
  collective_check(comm, o.k >= 1, "--k must be at least 1 (got " + std::to_string(o.k) + ")");
  collective_check(comm, o.r >= 1.0, "--r must be at least 1");
  collective_check(comm, o.theta >= 0 && o.alpha >= 0 && o.beta >= 0,
                   "--theta, --alpha and --beta must be positive");
  if (m == "log") {
    collective_check(comm, (o.alpha > 0) == (o.beta > 0),
                     "--alpha and --beta must be given together");
    collective_check(comm, !(o.theta > 0 && o.alpha > 0), "give either --theta or --alpha/--beta");
  } else {
    collective_check(comm, o.theta == 0 && o.beta == 0,
                     "--theta and --beta belong to --model log");
    collective_check(comm, o.alpha == 0 || m == "l2", "--alpha belongs to --model log or l2");
    collective_check(comm, o.checkpoint.empty() && o.resume.empty(),
                     "--checkpoint and --resume work with --model log only");
  }
  collective_check(comm, o.sigma >= 0 && (o.sigma == 0 || m == "knn"),
                   "--sigma must be positive and belongs to --model knn");
  collective_check(comm, o.mu >= 0 && (o.mu == 0 || m == "soft"),
                   "--mu must be positive and belongs to --model soft");
  collective_check(comm, o.project_dim >= 0 && (o.project_dim == 0 || m == "hard" || m == "soft"),
                   "--project-dim must be positive and belongs to --model hard or soft");
  collective_check(comm, o.solver.tol > 0 && o.solver.max_iterations >= 1,
                   "--tol must be positive and --max-iter at least 1");
  collective_check(comm, o.degree_tol >= 0 && o.degree_tol < 1 && o.max_solves >= 1,
                   "--degree-tol must be in [0, 1) and --max-solves at least 1");
  collective_check(comm, o.degree_search_tol > 0 && o.degree_search_tol < 1,
                   "--degree-search-tol must be in (0, 1)");
  collective_check(comm, o.solver.step > 0 && o.solver.step < 1, "--step must be in (0, 1)");
  collective_check(comm, o.solver.solver == "fbf" || o.solver.solver == "fdpg",
                   "unknown --solver '" + o.solver.solver + "' (expected fbf or fdpg)");
  collective_check(comm, !o.input.empty(), "--input is required");
  collective_check(comm, !o.output.empty(), "--output is required");
  collective_check(comm, o.output != o.input, "--output must not be the input file");
  validate_ranges(comm, o);
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
  if (o.support != "ann") k << " support=" << o.support;  // absent from older checkpoints
  if (o.order != "input") k << " order=" << o.order;      // node ids of the checkpoint
  if (o.solver.solver != "fbf") k << " solver=" << o.solver.solver;  // meaning of the duals
  return k.str();
}

volatile std::sig_atomic_t g_interrupt = 0;
extern "C" void on_interrupt(int) { g_interrupt = 1; }

// "theta:degree:iterations" of every solve, separated by "; ".
std::string degree_trials_text(const std::vector<DegreeTrial>& trials) {
  std::ostringstream out;
  out.precision(10);
  for (std::size_t i = 0; i < trials.size(); ++i) {
    out << (i ? "; " : "") << trials[i].x << ":" << trials[i].degree << ":" << trials[i].iterations;
  }
  return out.str();
}

// Collective. The log model's iteration at theta = info.theta to `tol`, from `start` if given,
// with progress lines, checkpoints and the interrupt flag; fills s.solver and, when given,
// *final_state with the state after the last iteration.
std::vector<double> solve_log(const LearnOptions& o, const EdgeSet& edges, const CheckpointInfo& info,
                              double tol, const SolverState* start, SolverState* final_state,
                              LearnSummary& s) {
  const bool talk = !o.quiet && comm_rank(edges.comm()) == 0;
  std::vector<double> tz = edges.z();
  for (auto& x : tz) x *= info.theta;
  SolverParams sp = o.solver;
  sp.tol = tol;
  sp.dual_scale = s.dual_scale;
  sp.interrupt = &g_interrupt;
  return learn_log(
      edges, tz, sp, s.solver,
      [&](const IterationInfo& it, const std::function<SolverState()>& capture) {
        if (talk && o.progress_every > 0 && it.iteration % o.progress_every == 0) {
          std::printf("  iteration %5d   rel. change primal %.3e  dual %.3e\n", it.iteration,
                      it.rel_change_primal, it.rel_change_dual);
          std::fflush(stdout);
        }
        const bool due =
            o.checkpoint_every > 0 && it.iteration % o.checkpoint_every == 0 && !it.converged;
        if (!o.checkpoint.empty() && (due || it.interrupted)) {
          write_checkpoint(o.checkpoint, edges, capture(), info);
          if (talk) {
            std::printf("  checkpoint written at iteration %d: %s\n", it.iteration,
                        o.checkpoint.c_str());
            std::fflush(stdout);
          }
        }
        if (final_state && (it.converged || it.iteration >= sp.max_iterations)) {
          *final_state = capture();
        }
        return it.interrupted;
      },
      start);
}

// Collective. The log model at info.theta; when theta came from [KP19] eq. 18 and --degree-tol
// > 0, theta is corrected (search_degree) with solves to --degree-search-tol, each warm-started
// from the previous one's weights and duals, and the closest theta is then solved to --tol from
// its state. Returns those weights; sets s.theta, s.solver (of the last solve), the trials and
// s.iterations_total.
std::vector<double> learn_log_to_degree(const LearnOptions& o, const EdgeSet& edges,
                                        CheckpointInfo info, const SolverState* start,
                                        LearnSummary& s) {
  const bool talk = !o.quiet && comm_rank(edges.comm()) == 0;
  const bool target = o.degree_tol > 0 && o.theta <= 0 && o.alpha <= 0;
  const double search_tol = target ? std::max(o.solver.tol, o.degree_search_tol) : o.solver.tol;
  SolverState last, best_state;
  bool have_last = false;
  std::vector<double> w;
  double best_deviation = std::numeric_limits<double>::infinity();
  s.iterations_total = 0;
  DegreeSearchParams dp;
  dp.k = o.k;
  dp.tolerance = o.degree_tol;
  dp.max_solves = target ? o.max_solves : 1;
  const DegreeSearchResult r = search_degree(dp, info.theta, [&](double theta)
                                                 -> std::optional<DegreeTrial> {
    info.theta = theta;
    if (have_last) {  // warm start at a new theta: a fresh count of iterations
      last.iteration = 0;
      last.rescales = 0;
    }
    SolverState next;
    w = solve_log(o, edges, info, search_tol, have_last ? &last : start, &next, s);
    s.iterations_total += s.solver.iterations_run;
    if (s.solver.interrupted) return std::nullopt;
    last = std::move(next);
    have_last = true;
    const DegreeTrial t{theta, average_degree(edges, w, o.prune), s.solver.iterations};
    if (talk && target) {
      std::printf("  theta %.6g: average degree %.3f (%+.1f%%), %d iterations at tol %.0e%s\n",
                  theta, t.degree, 100.0 * (t.degree - o.k) / o.k, t.iterations, search_tol,
                  s.solver.converged ? "" : " (NOT converged)");
      std::fflush(stdout);
    }
    if (std::abs(t.degree - o.k) < best_deviation) {  // the same choice as r.best
      best_deviation = std::abs(t.degree - o.k);
      best_state = last;
    }
    s.degree_trials.push_back(t);
    return t;
  });
  s.degree_reached = r.reached;
  if (r.interrupted || r.trials.empty()) return w;
  s.theta = info.theta = r.trials[r.best].x;
  if (search_tol > o.solver.tol) {  // the kept theta to --tol, continuing its own solve
    w = solve_log(o, edges, info, o.solver.tol, &best_state, nullptr, s);
    s.iterations_total += s.solver.iterations_run;
    if (s.solver.interrupted) return w;
    const double degree = average_degree(edges, w, o.prune);
    s.degree_reached = std::abs(degree - o.k) <= o.degree_tol * o.k;
    if (talk) {
      std::printf("  theta %.6g: average degree %.3f at tol %.0e, %d more iterations\n", s.theta,
                  degree, o.solver.tol, s.solver.iterations_run);
    }
  }
  return w;
}

}  // namespace

void install_interrupt_handlers() {
  std::signal(SIGUSR1, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
}

LearnSummary run_learn(MPI_Comm comm, const LearnOptions& o) {
  const bool talk = comm_rank(comm) == 0 && !o.quiet;
  const double t_start = MPI_Wtime();
  validate(comm, o);
  // --checkpoint may name the --resume file: it is read whole before the first checkpoint.
  check_distinct_files(comm, {{"--input", o.input}, {"--resume", o.resume}},
                       {{"--output", o.output}});
  check_distinct_files(comm, {{"--input", o.input}},
                       {{"--output", o.output}, {"--checkpoint", o.checkpoint}});
  check_writable(comm, o.output);
  if (!o.checkpoint.empty()) check_writable(comm, o.checkpoint);
  LearnSummary s;
  s.model = o.model;
  const bool log_model = o.model == "log", knn = o.model == "knn";
  const bool daitch = o.model == "hard" || o.model == "soft";
  const bool full = o.support == "full";

  LocalRows data;
  s.t_read =
      timed_phase(comm, "read", talk, [&] { data = read_dataset(comm, o.input, o.dataset); });
  s.n = data.n;
  s.d = data.d;
  if (talk) std::printf("  n = %lld, d = %lld\n", (long long)data.n, (long long)data.d);
  // Nodes renumbered in a locality order (not for hard/soft, whose solvers need the node
  // features in node order); order.input is empty when nodes keep their input order.
  LocalityOrder order;
  if (o.order == "locality" && !daitch) {
    s.t_order = timed_phase(comm, "order", talk, [&] { order = locality_order(comm, data); });
    if (talk)
      std::printf("  %s (sampled nearest neighbours in the same 1/16 block: %.0f%% renumbered, "
                  "%.0f%% in input order)\n",
                  order.input.empty() ? "input order kept" : "nodes renumbered by locality",
                  100 * order.score.locality, 100 * order.score.input);
  }
  auto make_edges = [&](const Candidates& cand) {
    if (order.input.empty()) return EdgeSet::from_candidates(comm, data.n, cand);
    return EdgeSet::from_pairs(comm, data.n, renumbered_pairs(comm, data.n, cand, order));
  };
  // Candidates per node: r*k; knn: k; full support: every other node (exact search), except for
  // knn whose full-support graph is the exact k-NN graph.
  collective_check(comm, !full || data.n <= kFullSupportMaxNodes,
                   "--support full allows every pair and is limited to n <= " +
                       std::to_string(kFullSupportMaxNodes) + " nodes (got n = " +
                       std::to_string(data.n) + "); use --support ann");
  const int m = knn ? o.k
                    : (full ? static_cast<int>(data.n - 1)
                            : static_cast<int>(std::lround(o.r * o.k)));
  AnnParams ann = o.ann;
  if (full) ann.engine = "exact";
  ann.progress_seconds = talk ? kProgressSeconds : 0.0;
  s.candidates_per_node = m;
  collective_check(comm, data.n > m && m >= 1,
                   "need more points than candidates per node: n = " + std::to_string(data.n) +
                       " <= " + (knn ? "k" : (full ? "n - 1" : "r*k")) + " = " + std::to_string(m));

  // Only the log model has checkpoints.
  const std::string key = log_model ? problem_key(o, data, fingerprint(comm, data)) : "";

  // candidates + theta (log), or both from a checkpoint, or candidates + edges (other models).
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
      s.theta_eq18 = c.info.theta_eq18;
      s.search.route = "checkpoint";
    });
    if (talk)
      std::printf("  resuming from '%s' at iteration %d\n", o.resume.c_str(), start->iteration);
    s.t_theta = 0.0;
    set_model_parameters(o, s.theta, s);
    s.dual_scale = start->dual_scale;
  } else {
    Candidates cand;
    s.t_candidates = timed_phase(comm, "candidates", talk, [&] {
      cand = find_candidates(comm, data, m, ann);
      s.search = cand.report;
      if (!full) s.recall = estimate_recall(comm, data, cand, o.recall_sample, o.seed, ann.threads);
    });
    if (talk) {
      if (full)
        std::printf("  full support: all %d other nodes are candidates of each node\n", m);
      else
        std::printf("  %d candidates per node, %s\n", m, ann.describe().c_str());
      print_search_report(s.search, data.n);
      if (s.recall >= 0)
        std::printf("  estimated recall %.3f on %d sampled nodes\n", s.recall, o.recall_sample);
    }
    if (log_model) {
      s.t_theta = timed_phase(comm, "theta", talk, [&] {
        edges = std::make_unique<EdgeSet>(make_edges(cand));
        const double theta =
            o.alpha > 0 ? 1.0 / std::sqrt(o.alpha * o.beta)
                        : (o.theta > 0 ? o.theta : theta_from_k(comm, cand, o.k).theta);
        set_model_parameters(o, theta, s);
        s.theta_eq18 = o.alpha > 0 || o.theta > 0 ? 0.0 : theta;
        s.dual_scale = o.solver.dual_scale > 0 ? o.solver.dual_scale
                                               : estimate_dual_scale(comm, cand, s.theta);
      });
    } else {
      s.t_theta = timed_phase(comm, "edges", talk, [&] {
        edges = std::make_unique<EdgeSet>(make_edges(cand));
        if (knn) s.sigma = o.sigma > 0 ? o.sigma : std::sqrt(knn_default_sigma2(comm, cand, o.k));
      });
    }
  }
  s.allowed_edges = edges->global_edges();
  // The Daitch models need the (projected) features of every node; the others only distances.
  LocalRows features;
  if (daitch) {
    s.project_dim = o.project_dim;
    features = o.project_dim > 0 ? random_projection(data, o.project_dim, o.seed) : std::move(data);
  }
  data = LocalRows();
  if (talk) {
    if (log_model)
      std::printf("  theta = %.6g, %lld allowed edges, dual scale %.4g\n", s.theta,
                  (long long)s.allowed_edges, s.dual_scale);
    else
      std::printf("  model %s, %lld allowed edges\n", o.model.c_str(), (long long)s.allowed_edges);
  }

  std::vector<double> w;
  double threshold = o.prune;  // weights <= threshold are not written
  if (log_model) {
    s.t_learn = timed_phase(comm, "learn", talk, [&] {
      const CheckpointInfo info{key, s.theta, s.recall, s.theta_eq18};
      w = learn_log_to_degree(o, *edges, info, start.get(), s);
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
  } else {
    s.t_learn = timed_phase(comm, "learn", talk, [&] {
      const double t0 = MPI_Wtime();
      if (knn) {
        w = knn_weights(*edges, s.sigma * s.sigma);
        threshold = 0.0;  // the whole k-NN pattern (weights that underflow to 0 are dropped)
        s.solver.converged = true;
      } else if (o.model == "l2") {
        L2Params lp;
        lp.tol = o.solver.tol;
        lp.max_iterations = o.solver.max_iterations;
        L2Report rep;
        if (o.alpha > 0) {
          s.alpha = o.alpha;
          w = learn_l2(*edges, o.alpha, lp, rep);
          s.iterations_total = rep.iterations;
        } else {
          L2Search search;
          w = l2_search_alpha(
              *edges, o.k, o.prune, lp, search, 0.02, 40,
              [&](double alpha, double degree, const L2Report& r) {
                if (talk && o.progress_every > 0) {
                  std::printf(
                      "  alpha %.6g: average degree %.3f, %d iterations (%.1f projection steps "
                      "each)%s\n",
                      alpha, degree, r.iterations,
                      static_cast<double>(r.projection_steps) / std::max(1, r.iterations),
                      r.converged ? "" : " (NOT converged)");
                  std::fflush(stdout);
                }
              });
          rep = search.last;
          s.alpha = search.alpha;
          s.alpha_solves = search.solves;
          s.iterations_total = search.iterations;
        }
        s.solver.iterations = rep.iterations;
        s.solver.iterations_run = s.iterations_total;  // for the time per iteration
        s.solver.converged = rep.converged;
        s.solver.rel_change_primal = rep.rel_change;
        s.solver.norm_S = rep.norm_S;
      } else {
        const DaitchOperator op(*edges, features);
        features = LocalRows();
        DaitchParams dp;
        dp.tol = o.solver.tol;
        dp.max_iterations = o.solver.max_iterations;
        DaitchReport rep;
        if (o.model == "soft") {
          s.mu = o.mu > 0 ? o.mu : op.mean_squared_distance();
          collective_check(comm, s.mu > 0 && std::isfinite(s.mu),
                           "the default --mu (the mean squared distance of the allowed edges) is " +
                               std::to_string(s.mu) +
                               " (identical rows?); give --mu explicitly");
          w = learn_soft(op, s.mu, dp, rep);
        } else {
          w = learn_hard(op, dp, rep);
        }
        s.solver.iterations = s.solver.iterations_run = rep.iterations;
        s.solver.converged = rep.converged;
        s.solver.rel_change_primal = rep.rel_change_primal;
        s.solver.rel_change_dual = rep.rel_change_dual;
        s.solver.norm_S = rep.norm_S;
      }
      s.solver.iteration_seconds = MPI_Wtime() - t0;
    });
  }
  count_saturated(*edges, w, threshold, s);
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
    const LocalCsr rows = assemble_rows(*edges, w, threshold, log_model ? s.delta : 1.0,
                                        order.input.empty() ? nullptr : &order.input);
    const std::int64_t nnz = allreduce_sum(comm, static_cast<std::int64_t>(rows.indices.size()));
    s.edges = nnz / 2;
    s.avg_degree = static_cast<double>(nnz) / static_cast<double>(s.n);
    s.degree_deviation = (s.avg_degree - o.k) / o.k;
    Attributes graph_attrs = {
        {"n", s.n},
        {"nnz", nnz},
        {"model", o.model},
        {"k_requested", static_cast<std::int64_t>(o.k)},
        {"avg_degree", s.avg_degree},
        {"degree_deviation", s.degree_deviation},
        {"support", o.support},
        {"r", o.r},
        {"candidates_per_node", s.candidates_per_node},
        {"allowed_edges", s.allowed_edges},
        {"ann", full ? std::string("exact (full support)") : ann.describe()},
        {"recall_estimate", s.recall},
        {"ann_route", s.search.route},
        {"ann_cells", static_cast<std::int64_t>(s.search.cells)},
        {"ann_queries_1_rank", s.search.visits[0]},
        {"ann_queries_2_ranks", s.search.visits[1]},
        {"ann_queries_3plus_ranks", s.search.visits[2]},
        {"ann_bytes_sent_max", s.search.bytes_sent_max},
        {"ann_cpu_seconds", s.search.cpu_seconds},
        {"prune_threshold", threshold},
        {"order", std::string(order.input.empty() ? "input" : "locality")},
        {"seconds_read", s.t_read},
        {"seconds_order", s.t_order},
        {"seconds_candidates", s.t_candidates},
        {"seconds_theta", s.t_theta},
        {"seconds_learn", s.t_learn},
    };
    auto add = [&](const char* name, AttrValue v) { graph_attrs.emplace_back(name, std::move(v)); };
    auto add_iterations = [&] {
      add("iterations", static_cast<std::int64_t>(s.solver.iterations));
      add("converged", static_cast<std::int64_t>(s.solver.converged ? 1 : 0));
      add("rel_change_primal", s.solver.rel_change_primal);
      add("tol", o.solver.tol);
    };
    if (log_model) {
      add("theta", s.theta);
      add("alpha", s.alpha);
      add("beta", s.beta);
      add("delta", s.delta);
      add("solver", o.solver.solver);
      add_iterations();
      add("rel_change_dual", s.solver.rel_change_dual);
      add("step", o.solver.step);
      add("dual_scale_initial", s.dual_scale);
      add("dual_scale", s.solver.final_dual_scale);
      add("theta_eq18", s.theta_eq18);
      add("degree_tol", o.degree_tol);
      add("degree_solves", static_cast<std::int64_t>(s.degree_trials.size()));
      add("degree_reached", static_cast<std::int64_t>(s.degree_reached ? 1 : 0));
      add("degree_trials", degree_trials_text(s.degree_trials));
      add("iterations_total", static_cast<std::int64_t>(s.iterations_total));
    } else if (knn) {
      add("sigma", s.sigma);
      add("sigma_default", static_cast<std::int64_t>(o.sigma > 0 ? 0 : 1));
    } else if (o.model == "l2") {
      add("alpha", s.alpha);
      add("alpha_searched", static_cast<std::int64_t>(s.alpha_solves > 0 ? 1 : 0));
      add("alpha_solves", static_cast<std::int64_t>(s.alpha_solves));
      add("iterations_total", static_cast<std::int64_t>(s.iterations_total));
      add_iterations();
    } else {
      if (o.model == "soft") add("mu", s.mu);
      add("project_dim", static_cast<std::int64_t>(s.project_dim));
      add_iterations();
      if (o.model == "hard") add("rel_change_dual", s.solver.rel_change_dual);
    }
    const Attributes file_attrs = {
        {"lsgl_version", std::string(version())},
        {"git_commit", std::string(git_commit())},
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
    std::printf("  model              %s\n", o.model.c_str());
    std::printf("  nodes              %lld (d = %lld)\n", (long long)s.n, (long long)s.d);
    std::printf("  edges              %lld of %lld allowed\n", (long long)s.edges,
                (long long)s.allowed_edges);
    std::printf("  average degree     %.2f (requested k = %d, deviation %+.1f%%)\n", s.avg_degree,
                o.k, 100.0 * s.degree_deviation);
    if (o.model == "l2") {
      if (s.alpha_solves > 0)
        std::printf("  alpha              %.6g (searched for k: %d solves, %d iterations)\n",
                    s.alpha, s.alpha_solves, s.iterations_total);
      else
        std::printf("  alpha              %.6g (given)\n", s.alpha);
    }
    if (knn) std::printf("  sigma              %.6g%s\n", s.sigma, o.sigma > 0 ? "" : " (default)");
    if (o.model == "soft") std::printf("  mu                 %.6g%s\n", s.mu, o.mu > 0 ? "" : " (default)");
    if (daitch && s.project_dim > 0)
      std::printf("  features           projected to %d dimensions\n", s.project_dim);
    if (log_model) std::printf("  solver             %s\n", o.solver.solver.c_str());
    if (log_model)
      std::printf("  iterations         %d (%s, rel. change primal %.2e, dual %.2e, tol %.0e)\n",
                  s.solver.iterations, s.solver.converged ? "converged" : "NOT converged",
                  s.solver.rel_change_primal, s.solver.rel_change_dual, o.solver.tol);
    if (log_model && s.degree_trials.size() > 1)
      std::printf("  degree correction  %s: theta %.6g (eq. 18: %.6g), %zu solves, %d iterations "
                  "in all\n",
                  s.degree_reached ? "within --degree-tol" : "NOT within --degree-tol (closest kept)",
                  s.theta, s.theta_eq18, s.degree_trials.size(), s.iterations_total);
    else if (!knn && !log_model)
      std::printf("  iterations         %d (%s, rel. change %.2e, tol %.0e)\n",
                  s.solver.iterations, s.solver.converged ? "converged" : "NOT converged",
                  s.solver.rel_change_primal, o.solver.tol);
    if (s.recall >= 0) std::printf("  candidate recall   %.3f (estimated)\n", s.recall);
    std::printf("  isolated nodes     %lld\n", (long long)s.isolated_nodes);
    if (!full && !knn && s.saturated_nodes * 10 > s.n)
      std::printf("  warning: %lld nodes kept all their allowed edges: increase --r\n",
                  (long long)s.saturated_nodes);
    if (log_model)
      std::printf(
          "  learning           %.2f ms per iteration, %.2f GB/s effective, at most %lld "
          "bytes sent per rank and iteration\n",
          s.ms_per_iteration, s.learn_bandwidth / 1e9, (long long)s.bytes_sent_max);
    else if (!knn)
      std::printf("  learning           %.2f ms per iteration\n", s.ms_per_iteration);
    std::printf(
        "  phases             read %.2f s, order %.2f s, candidates %.2f s, %s %.2f s, learn "
        "%.2f s, write %.2f s\n",
        s.t_read, s.t_order, s.t_candidates, log_model ? "theta" : "edges", s.t_theta, s.t_learn,
        s.t_write);
    std::printf("  peak memory        %.1f MB max per rank, %.1f MB total\n", s.peak_rss_max / 1e6,
                s.peak_rss_sum / 1e6);
    std::printf("  total time         %.2f s\n", s.t_total);
    std::printf("  output             %s\n", o.output.c_str());
    std::fflush(stdout);
  }
  return s;
}

}  // namespace lsgl
