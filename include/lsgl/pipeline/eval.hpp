#pragma once
// `lsgl eval`: measures of a learned graph, each a named, timed phase with its own PETSc log
// stage: read (graph in any format of graph_input.hpp, checks, labels) -> degrees -> components
// -> label propagation -> class connectivity -> diameter -> embedding. Rank 0 prints a table; with
// a JSON path the report is also written as one JSON object.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lsgl/eval/class_connectivity.hpp"
#include "lsgl/eval/diameter.hpp"
#include "lsgl/eval/graph_stats.hpp"
#include "lsgl/eval/label_propagation.hpp"
#include "lsgl/eval/spectral_embedding.hpp"
#include "lsgl/graph/graph_input.hpp"
#include "lsgl/util/monitor.hpp"

namespace lsgl {

struct EvalOptions {
  std::string graph;  // graph file: HDF5 (the output contract of `lsgl learn`), edge list or mtx
  // The reader's options; eval's policy: refuse asymmetric input (graph_input.hpp).
  GraphInputOptions input{GraphFormat::kAuto, DuplicateRule::kSum, SymmetryPolicy::kRequire};
  std::string labels;                      // optional: IDX, .npy or HDF5 labels, one per node
  std::string labels_dataset = "/labels";  // HDF5 dataset of the labels
  std::string known;  // optional: a mask of n entries (same formats), nonzero: label given
  std::string predictions;  // optional HDF5 output: /predictions (label per node), /known
  int max_classes = 256;
  LabelPropagationParams lp;  // fraction (default 0.01), seed, rtol, ...
  bool diameter = true;
  DiameterParams diameter_params;
  std::string embedding;  // optional HDF5 output of the spectral embedding
  EmbeddingParams embedding_params;
  std::string json;  // optional JSON report
  std::string command_line, configuration;
};

struct EvalReport {
  std::string graph;
  int ranks = 1;
  GraphInputReport input;  // format, n, self-loops and zero weights dropped, ...
  GraphStats stats;
  std::int64_t components = 0, largest_component = 0, singleton_components = 0;
  int component_rounds = 0;
  bool has_labels = false;
  LabelPropagationResult lp;  // per-node vectors cleared
  LabelPropagationParams lp_params;
  std::string known_file;          // --known, or empty (the seeded fraction)
  std::int64_t unlabelled = 0;     // nodes with a negative label
  ClassConnectivity connectivity;
  bool has_diameter = false;
  DiameterResult diameter;
  bool has_embedding = false;
  std::string embedding_path;
  LaplacianKind embedding_kind = LaplacianKind::kCombinatorial;
  std::vector<double> eigenvalues, eigen_residuals;
  std::string eigen_solver;
  int eigen_iterations = 0;
  std::int64_t embedding_component_nodes = 0;
  std::vector<std::pair<std::string, double>> seconds;  // per measure, then "total"
};

// Collective. Runs every measure the options ask for, reporting the phases, notes and the table
// (as summary lines) to `monitor`; throws CollectiveError on every rank on bad input (missing
// graph, labels of the wrong length, unwritable outputs, ...).
EvalReport run_eval(MPI_Comm comm, const EvalOptions& options, Monitor& monitor = null_monitor());

// The per-node results of eval_rows, for this rank's rows.
struct EvalVectors {
  std::vector<std::int64_t> predictions;  // with labels: the label of every node (given for the
                                          // known ones, predicted otherwise; -1: unreachable)
  std::vector<char> known;                // with labels: 1 where the label was given
  std::vector<double> embedding;          // with an embedding: local rows x m, row-major
};

// Collective. run_eval on a graph held in memory: `m` is this rank's block of rows (the blocks of
// lsgl::Partition), already checked and cleaned (graph/symmetry_check.hpp), `input` says what was
// dropped. `labels`: the label of each local row (negative: unlabelled) or null; `known`: a mask
// per local row (nonzero: its label is given) or null for the seeded --known-fraction. With
// `embedding` the spectral embedding is computed and returned in `vectors` instead of a file.
// o.graph, o.labels, o.known and o.embedding are not read; o.predictions and o.json are written
// when set. Every check of run_eval applies.
EvalReport eval_rows(MPI_Comm comm, const EvalOptions& o, LocalCsr m,
                     const GraphInputReport& input, const std::vector<std::int64_t>* labels,
                     const std::vector<std::int64_t>* known, bool embedding, EvalVectors& vectors,
                     Monitor& monitor = null_monitor());

// Local. The report as one JSON object (non-finite numbers as null), and as the summary table.
std::string eval_report_json(const EvalReport& r);
std::string eval_report_table(const EvalReport& r);

}  // namespace lsgl
