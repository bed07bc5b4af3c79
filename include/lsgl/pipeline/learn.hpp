#pragma once
// `lsgl learn`: read -> order -> candidates -> prepare -> learn -> write -> summary, each a
// named, timed phase with its own PETSc log stage, over one model interface (learn/model.hpp:
// log, l2, hard, soft, knn), all sharing the candidate support and the output contract.
// Nothing is printed: every line goes to the caller's Monitor (lsgl/util/monitor.hpp).
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lsgl/ann/candidates.hpp"
#include "lsgl/learn/options.hpp"
#include "lsgl/learn/solver.hpp"
#include "lsgl/learn/theta.hpp"
#include "lsgl/util/monitor.hpp"

namespace lsgl {

// What the run measured, for the summary and for callers (tests, benchmarks).
struct LearnSummary {
  ModelKind model = ModelKind::kLog;
  std::int64_t n = 0, d = 0;
  std::int64_t candidates_per_node = 0;
  std::int64_t allowed_edges = 0;
  std::int64_t edges = 0;  // undirected edges written
  double avg_degree = 0.0;  // nnz / n
  double degree_deviation = 0.0;  // (avg_degree - k) / k
  double recall = -1.0;
  SearchReport search;  // what the candidate search did (empty when resumed)
  std::int64_t saturated_nodes = 0;  // nodes with every allowed edge non-zero
  std::int64_t isolated_nodes = 0;
  SolverReport solver;  // what the model's learning did
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

// Collective. Runs the whole pipeline, reporting to `monitor` (phases, progress, iterations,
// information and the summary lines); throws CollectiveError on bad input. SIGUSR1 and SIGTERM
// (util/interrupt.hpp, when installed) and the monitor's stop_requested() stop the learning at
// its next iteration on every rank, after writing the checkpoint.
LearnSummary run_learn(MPI_Comm comm, const LearnOptions& opt, Monitor& monitor = null_monitor());

// Collective. `lsgl theta`: read -> candidates -> [KP19] eq. 18 for opt.k (the theta that
// `lsgl learn` starts from with the same options).
ThetaChoice run_theta(MPI_Comm comm, const LearnOptions& opt);

}  // namespace lsgl
