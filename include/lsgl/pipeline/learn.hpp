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
#include "lsgl/graph/candidates_file.hpp"
#include "lsgl/graph/local_csr.hpp"
#include "lsgl/graph/locality_order.hpp"
#include "lsgl/io/attributes.hpp"
#include "lsgl/io/dataset.hpp"
#include "lsgl/io/metric.hpp"
#include "lsgl/learn/model.hpp"
#include "lsgl/learn/models.hpp"
#include "lsgl/learn/solver.hpp"
#include "lsgl/learn/theta.hpp"
#include "lsgl/util/monitor.hpp"

namespace lsgl {

// --support full: every pair is allowed (exact search of all n - 1 neighbours), O(n^2) memory and
// time, so it is refused above this many nodes.
constexpr std::int64_t kFullSupportMaxNodes = 5000;

// --recall-sample auto: kAutoRecallNodes sampled nodes when the candidate lists are approximate
// (hnsw, flann, projected lists not all certified, --candidates), none after an exact search
// (voronoi, exact, projected with every list certified), whose recall is 1 by construction.
inline constexpr int kRecallSampleAuto = -1;
inline constexpr int kAutoRecallNodes = 300;

// The options of `lsgl learn` and `lsgl theta`: the data, the candidate search and every model's
// parameters (the pipeline hands each model its own, learn/models.hpp).
struct LearnOptions {
  ModelKind model = ModelKind::kLog;
  Support support = Support::kAnn;
  NodeOrder order = NodeOrder::kLocality;  // locality: rows renumbered internally
  double sigma = 0.0;    // knn: kernel width (0: sigma^2 = mean k-th neighbour squared distance)
  KnnMode knn_mode = KnnMode::kUnion;            // knn: union or mutual k-NN pairs
  KnnWeights knn_weights = KnnWeights::kGaussian;  // knn: Gaussian or 0/1 weights
  double mu = 0.0;       // soft: penalty weight (0: mean squared feature distance of allowed edges)
  int project_dim = 0;   // hard, soft: project the features to this many dimensions (0: keep)
  std::string input;
  std::string dataset = "/X";
  DataFormat input_format = DataFormat::kAuto;  // --input-format (auto: from the name)
  Metric metric = Metric::kEuclidean;  // cosine: rows scaled to unit norm first
  // --candidates: neighbour lists read from this file instead of searched (max_m is set to the
  // candidates per node of the model).
  std::string candidates;
  CandidatesFileOptions candidates_file;
  std::string output;
  // Each edge's distance (io/metric.hpp: metric_distance) stored with the graph, as
  // /graph/distances aligned with /graph/data (from the squared distances of the allowed edges:
  // no new computation or communication).
  bool distances = true;
  // --write-anndata: a copy of the AnnData --input with the graph in obsp and uns as scanpy's
  // pp.neighbors leaves it (graph/anndata_export.hpp); anndata_key: scanpy's key_added (empty:
  // "neighbors"). The input file itself only with anndata_in_place.
  std::string anndata_output;
  std::string anndata_key;
  bool anndata_in_place = false;
  int k = 10;            // desired average number of neighbours
  double r = 3.0;        // candidates per node = round(r * k)
  double theta = 0.0;    // > 0: use this theta instead of eq. 18
  double alpha = 0.0;    // log: with beta > 0, use them (theta = 1/sqrt(alpha beta));
                         // l2: this alpha instead of the search for k
  double beta = 0.0;
  AnnParams ann;
  // Nodes whose candidate lists are checked by brute force (kRecallSampleAuto: the default
  // sample when the lists are approximate, none when the search was exact).
  int recall_sample = kRecallSampleAuto;
  std::uint64_t seed = 1;
  SolverParams solver;
  // log and l2 with the parameter chosen for k: it is corrected until the average degree is
  // within this relative tolerance of k (0: no correction), in at most max_solves solves.
  double degree_tol = 0.05;
  int max_solves = 6;
  // log: tolerance of the solves that only measure the degree while theta is corrected; the
  // theta kept is then solved to --tol, continuing from its state.
  double degree_search_tol = 3e-4;
  double prune = 1e-4;       // weights <= prune (alpha = beta = 1 scale) are not written
  std::string checkpoint;    // write the learning state here (atomically; previous kept .prev)
  int checkpoint_every = 0;  // iterations between checkpoints (0: only when interrupted)
  std::string resume;        // continue from this checkpoint (any number of ranks)
  // Provenance stored in the output file.
  std::string command_line;
  std::string configuration;
};

// What the run measured, for the summary and for callers (tests, benchmarks).
struct LearnSummary {
  ModelKind model = ModelKind::kLog;
  std::int64_t n = 0, d = 0;
  std::int64_t candidates_per_node = 0;
  std::int64_t allowed_edges = 0;
  std::int64_t edges = 0;  // undirected edges written
  double avg_degree = 0.0;  // nnz / n
  double degree_deviation = 0.0;  // (avg_degree - k) / k
  double recall = -1.0;           // estimated on recall_sample nodes (-1: not estimated)
  int recall_sample = 0;          // nodes checked (--recall-sample auto resolved)
  SearchReport search;  // what the candidate search did (empty when resumed)
  std::int64_t saturated_nodes = 0;  // nodes with every allowed edge non-zero
  std::int64_t isolated_nodes = 0;
  SolverReport solver;  // what the model's learning did
  // The phases' wall times; t_prepare: the model's prepare phase (theta, edges).
  double t_read = 0, t_order = 0, t_candidates = 0, t_prepare = 0, t_learn = 0, t_write = 0,
         t_total = 0;
  double t_recall = 0;  // the recall estimate's wall time, part of t_candidates
  double ms_per_iteration = 0.0;        // wall time of one iteration (slowest rank)
  double learn_bandwidth = 0.0;         // effective bytes/s of the iterations, all ranks
  std::int64_t bytes_sent_max = 0;      // largest bytes sent by one rank per iteration
  bool interrupted = false;  // stopped by SIGUSR1/SIGTERM (checkpointed when asked)
  // learn_rows: this rank's rows were still the caller's (LocalRows::borrowed, not copied) when
  // the learning began; false after a copy (--metric cosine) and in run_learn (rows read).
  bool rows_borrowed = false;
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

// The graph of learn_rows: this rank's rows of W (input order, rows in the blocks of
// lsgl::Partition) and the attributes that `lsgl learn` writes on /graph.
struct LearnedGraph {
  LocalCsr rows;
  Attributes attributes;
  EdgeDistances distances;  // values empty unless LearnOptions::distances
};

// Collective. run_learn on rows held in memory (each rank its Partition block of the n x d
// matrix, float32 row-major; opt.input and opt.output unused), returning the graph in `out`
// instead of writing a file (the Python module). Every check of run_learn applies, and NaN or
// Inf in the rows throws CollectiveError (io/dataset.hpp: check_finite_rows). Borrowed rows are
// read in place: only --metric cosine copies them (copy-on-write, LocalRows).
LearnSummary learn_rows(MPI_Comm comm, const LearnOptions& opt, LocalRows data, LearnedGraph& out,
                        Monitor& monitor = null_monitor());

// Collective. run_theta on rows held in memory (as learn_rows).
ThetaChoice theta_rows(MPI_Comm comm, const LearnOptions& opt, LocalRows data);

}  // namespace lsgl
