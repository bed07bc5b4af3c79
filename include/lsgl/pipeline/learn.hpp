#pragma once
// `lsgl learn`: read -> candidates -> theta (log model) or edges (other models) -> learn -> write,
// each a named, timed phase with its own PETSc log stage. Progress and the summary are printed by
// rank 0. Models (--model): log (seed eq. 3/5, the default), l2 (seed eq. 4), hard and soft
// (Daitch et al. 2009, seed eq. 22 and 23) and knn (Gaussian-weighted k-NN); all share the
// candidate support and the output contract.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lsgl/ann/candidates.hpp"
#include "lsgl/learn/degree_search.hpp"
#include "lsgl/learn/log_model.hpp"

namespace lsgl {

// --support full: every pair is allowed (exact search of all n - 1 neighbours), O(n^2) memory and
// time, so it is refused above this many nodes.
constexpr std::int64_t kFullSupportMaxNodes = 5000;

struct LearnOptions {
  std::string model = "log";  // log, l2, hard, soft or knn
  std::string support = "ann";  // ann: each node's r*k (knn: k) candidates; full: all pairs
  std::string order = "locality";  // locality: rows renumbered internally (io/locality_order); input
  double sigma = 0.0;    // knn: kernel width (0: sigma^2 = mean k-th neighbour squared distance)
  double mu = 0.0;       // soft: penalty weight (0: mean squared feature distance of allowed edges)
  int project_dim = 0;   // hard, soft: project the features to this many dimensions (0: keep)
  std::string input;
  std::string dataset = "/X";
  std::string output;
  int k = 10;            // desired average number of neighbours
  double r = 3.0;        // candidates per node = round(r * k)
  double theta = 0.0;    // > 0: use this theta instead of eq. 18
  double alpha = 0.0;    // log: with beta > 0, use them (theta = 1/sqrt(alpha beta));
                         // l2: this alpha instead of the search for k
  double beta = 0.0;
  AnnParams ann;
  int recall_sample = 300;
  std::uint64_t seed = 1;
  SolverParams solver;
  // log model, theta from [KP19] eq. 18: theta is corrected until the average degree is within
  // this relative tolerance of k (0: no correction), in at most max_solves solves.
  double degree_tol = 0.05;
  int max_solves = 6;
  // Tolerance of the solves that only measure the degree while theta is corrected; the theta
  // kept is then solved to --tol, continuing from its state.
  double degree_search_tol = 3e-4;
  double prune = 1e-4;     // weights <= prune (alpha = beta = 1 scale) are not written
  int progress_every = 50;
  bool quiet = false;
  std::string checkpoint;    // write the learning state here (atomically; previous kept .prev)
  int checkpoint_every = 0;  // iterations between checkpoints (0: only when interrupted)
  std::string resume;        // continue from this checkpoint (any number of ranks)
  // Provenance stored in the output file.
  std::string command_line;
  std::string configuration;
};

// What the run measured, for the summary and for callers (tests, benchmarks).
struct LearnSummary {
  std::string model = "log";
  std::int64_t n = 0, d = 0;
  std::int64_t candidates_per_node = 0;
  std::int64_t allowed_edges = 0;
  std::int64_t edges = 0;  // undirected edges written
  double avg_degree = 0.0;  // nnz / n
  double degree_deviation = 0.0;  // (avg_degree - k) / k
  double recall = -1.0;
  SearchReport search;  // what the candidate search did (empty when resumed)
  double theta = 0.0, alpha = 0.0, beta = 0.0, delta = 1.0;
  double theta_eq18 = 0.0;  // log: [KP19] eq. 18's theta (0: theta given, or unknown on resume)
  std::vector<DegreeTrial> degree_trials;  // log: every solve of the degree correction
  bool degree_reached = false;             // log: the kept solve is within --degree-tol
  double dual_scale = 1.0;
  double sigma = 0.0;      // knn
  double mu = 0.0;         // soft
  int project_dim = 0;     // hard, soft (0: original features)
  int alpha_solves = 0;    // l2: solutions computed by the alpha search (0: alpha given)
  int iterations_total = 0;  // l2, log: iterations over all solves
  std::int64_t saturated_nodes = 0;  // nodes with every allowed edge non-zero
  std::int64_t isolated_nodes = 0;
  SolverReport solver;
  double t_read = 0, t_order = 0, t_candidates = 0, t_theta = 0, t_learn = 0, t_write = 0,
         t_total = 0;
  double ms_per_iteration = 0.0;        // wall time of one iteration (slowest rank)
  double learn_bandwidth = 0.0;         // effective bytes/s of the iterations, all ranks
  std::int64_t bytes_sent_max = 0;      // largest bytes sent by one rank per iteration
  bool interrupted = false;  // stopped by SIGUSR1/SIGTERM (checkpointed when asked)
  std::int64_t peak_rss_max = 0;  // largest peak RSS over ranks, bytes
  std::int64_t peak_rss_sum = 0;  // sum of peak RSS over ranks, bytes
};

// Exit code of `lsgl learn` after SIGUSR1 or SIGTERM: the state was checkpointed (with
// --checkpoint) at the same iteration on every rank; rerun with --resume to continue.
constexpr int kExitInterrupted = 75;

// Installs SIGUSR1 and SIGTERM handlers that make a running run_learn stop at its next
// iteration (every rank at the same one), after writing its checkpoint. Not collective.
void install_interrupt_handlers();

// Collective. Runs the whole pipeline; throws CollectiveError on bad input.
LearnSummary run_learn(MPI_Comm comm, const LearnOptions& opt);

}  // namespace lsgl
