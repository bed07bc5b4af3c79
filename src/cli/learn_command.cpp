// `lsgl learn` and `lsgl theta`: options -> pipeline.
#include <cstdio>
#include <exception>
#include <string>

#include "commands_impl.hpp"
#include "lsgl/cli/choices.hpp"
#include "lsgl/pipeline/learn.hpp"
#include "lsgl/pipeline/learn_json.hpp"
#include "lsgl/util/atomic_file.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/file_identity.hpp"
#include "lsgl/util/interrupt.hpp"
#include "lsgl/util/json.hpp"
#include "lsgl/util/mpi.hpp"
#include "options.hpp"
#include "printing_monitor.hpp"

namespace lsgl::cli {

namespace {

// The options that name a choice, as given; parsed by choices() once the command line is read.
struct Choices {
  std::string metric, engine, route, distance;  // lsgl learn and lsgl theta
  std::string input_format;                     // lsgl learn and lsgl theta
  std::string dims, shortlist;                  // --ann-dims, --ann-shortlist: auto or a count
  std::string recall_sample;                    // auto or a count
  std::string model, order, support, solver;    // lsgl learn only
  std::string knn_mode, knn_weights;            // lsgl learn --model knn
};

void add_data_options(po::options_description& d, LearnOptions& o, Choices& c) {
  d.add_options()
      ("input", po::value(&o.input),
       "data, one row per node: HDF5 (.h5, AnnData .h5ad; --dataset), NumPy .npy, CSV/TSV "
       "(header optional) or IDX (MNIST, pixels scaled to [0,1]); all but HDF5 may be .gz")
      ("input-format", choice<DataFormat>(&c.input_format, "input-format")->default_value("auto"),
       "format of --input: auto (from the name), hdf5, npy, idx or csv")
      ("dataset", po::value(&o.dataset)->default_value("/X"),
       "HDF5 dataset holding the matrix (an AnnData .h5ad embedding: /obsm/X_pca)")
      ("metric", choice<Metric>(&c.metric, "metric")->default_value("euclidean"),
       "euclidean (squared Euclidean distances) or cosine (rows scaled to unit norm first; the "
       "squared distance is then 2 (1 - cos))")
      ("k", po::value(&o.k)->default_value(10), "desired average number of neighbours per node")
      ("r", po::value(&o.r)->default_value(3.0),
       "candidate factor: each node may connect to its round(r*k) approximate nearest "
       "neighbours (larger: closer to the exact model, slower)");
}

// Collective. "auto" -> auto_value, a whole number >= least -> itself; anything else is refused.
int count_or_auto(MPI_Comm comm, const std::string& option, const std::string& text, int least,
                  int auto_value) {
  int value = auto_value;
  std::size_t used = 0;
  bool ok = text == "auto";
  if (!ok) {
    try {
      value = std::stoi(text, &used);
      ok = used == text.size() && value >= least;
    } catch (const std::exception&) {
      ok = false;
    }
  }
  collective_check(comm, ok,
                   "--" + option + " must be auto or a whole number >= " + std::to_string(least) +
                       " (got '" + text + "')");
  return value;
}

// --ann, --threads, --candidates, --recall-sample, --seed.
void add_candidate_options(po::options_description& d, LearnOptions& o, Choices& c) {
  d.add_options()
      ("ann", choice<AnnEngine>(&c.engine, "ann")->default_value("auto"),
       "neighbour search: projected (high dimensions), hnsw, flann (low dimensions), voronoi "
       "(exact; few dimensions), exact (brute force) or auto (projected above 100 dimensions if "
       "its recall reaches 0.997, else voronoi if its cells prune, else hnsw; docs/learn.md)")
      ("threads", po::value(&o.ann.threads)->default_value(1),
       "threads per rank for the neighbour search (e.g. SLURM's --cpus-per-task)")
      ("candidates", po::value(&o.candidates),
       "read each node's neighbour lists instead of searching: HDF5 ids and distances n x m "
       "(pynndescent, faiss, hnswlib), a /graph CSR distance matrix, or a scipy csr .npz "
       "(kneighbors_graph(mode='distance')); --help search for details")
      ("recall-sample", po::value(&c.recall_sample)->default_value("auto"),
       "nodes whose lists are checked by brute force (0: none; auto: 300 unless the search is "
       "exact)")
      ("seed", po::value(&o.seed)->default_value(1), "random seed (index construction, sampling)");
}

// The engines' parameters and the layout of a --candidates file.
void add_engine_options(po::options_description& d, LearnOptions& o, Choices& c) {
  d.add_options()
      ("ann-dims", po::value(&c.dims)->default_value("auto"),
       "projected: principal components kept (auto: the fewest multiple of 8 that explain 88% "
       "of the variance, at most 128)")
      ("ann-shortlist", po::value(&c.shortlist)->default_value("auto"),
       "projected: rows shortlisted per node and re-ranked by exact distance (auto: with the "
       "number of probed cells, the cheapest of 2, 3, 4, 6, 8, 12 or 16 times r*k whose recall "
       "on 256 sampled rows reaches 0.997)")
      ("ann-certify", flag(&o.ann.certify),
       "make every candidate list exact: projected rows whose shortlist cannot prove their "
       "list exact probe more cells with longer shortlists until it can (auto then never picks "
       "hnsw); the summary reports the share of certified rows either way")
      ("ann-route", choice<AnnRoute>(&c.route, "ann-route")->default_value("partition"),
       "how queries meet the indexes: ring (every query searches every rank's index) or "
       "partition (rows grouped into k-means cells; a query searches only the ranks whose "
       "cells can hold its neighbours: far less work on many ranks)")
      ("ann-auto-rows", po::value(&o.ann.auto_rows_per_query)->default_value(20000),
       "--ann auto: build hnsw instead of voronoi when voronoi would compare more rows than "
       "this per query (measured on a sample of queries)")
      ("ann-cells", po::value(&o.ann.cells_per_rank)->default_value(16),
       "partition: k-means cells per rank")
      ("hnsw-m", po::value(&o.ann.hnsw_m)->default_value(16), "hnsw: links per node (M)")
      ("hnsw-ef-construction", po::value(&o.ann.hnsw_ef_construction)->default_value(100),
       "hnsw: candidate list size while building")
      ("hnsw-ef", po::value(&o.ann.hnsw_ef)->default_value(40),
       "hnsw: candidate list size while searching (raised to at least r*k+1)")
      ("flann-trees", po::value(&o.ann.flann_trees)->default_value(4), "flann: number of kd-trees")
      ("flann-checks", po::value(&o.ann.flann_checks)->default_value(256),
       "flann: leaves checked per query (more: better recall, slower)")
      ("candidates-indices", po::value(&o.candidates_file.indices)->default_value("/indices"),
       "--candidates: the dataset of neighbour ids (n x m, 0-based)")
      ("candidates-distances",
       po::value(&o.candidates_file.distances)->default_value("/distances"),
       "--candidates: the dataset of distances (n x m)")
      ("candidates-distance", choice<CandidateDistance>(&c.distance, "candidates-distance")->default_value("squared"),
       "--candidates: what the distances are: squared (squared Euclidean: faiss IndexFlatL2, "
       "hnswlib 'l2'), euclidean (pynndescent, scikit-learn) or cosine (1 - cos: hnswlib "
       "'cosine', pynndescent); checked against the data");
}

// Collective. The choices parsed into o (an unknown name raises CollectiveError on every rank);
// `learn`: the options of lsgl learn too.
void parse_choices(MPI_Comm comm, const Choices& c, bool learn, LearnOptions& o) {
  lsgl::collectively(comm, [&] {
    o.metric = parse_choice<Metric>("metric", c.metric);
    o.input_format = parse_choice<DataFormat>("input-format", c.input_format);
    o.ann.engine = parse_choice<AnnEngine>("ann", c.engine);
    o.ann.route = parse_choice<AnnRoute>("ann-route", c.route);
    o.candidates_file.distance = parse_choice<CandidateDistance>("candidates-distance", c.distance);
    if (!learn) return;
    o.model = parse_choice<ModelKind>("model", c.model);
    o.order = parse_choice<NodeOrder>("order", c.order);
    o.support = parse_choice<Support>("support", c.support);
    o.solver.solver = parse_choice<SolverKind>("solver", c.solver);
    o.knn_mode = parse_choice<KnnMode>("knn-mode", c.knn_mode);
    o.knn_weights = parse_choice<KnnWeights>("knn-weights", c.knn_weights);
  });
  o.ann.project_dims = count_or_auto(comm, "ann-dims", c.dims, 1, 0);
  o.ann.shortlist = count_or_auto(comm, "ann-shortlist", c.shortlist, 1, 0);
  o.recall_sample = count_or_auto(comm, "recall-sample", c.recall_sample, 0, kRecallSampleAuto);
  o.ann.seed = o.seed;
}

// Collective. --json is an output: distinct from the inputs and --output, writable.
void check_json_output(MPI_Comm comm, const LearnOptions& o, const std::string& json) {
  check_distinct_files(comm, {{"--input", o.input}, {"--candidates", o.candidates}},
                       {{"--output", o.output}, {"--json", json},
                        {"--write-anndata", o.anndata_in_place ? "" : o.anndata_output}});
  check_writable(comm, json);
}

// The output and run options of learn as typed (the others go to LearnOptions and Choices).
struct LearnArgs {
  int progress_every = 50;
  bool quiet = false;
  bool no_distances = false;
  std::string json;
};

// The model and its parameters.
void add_model_options(po::options_description& d, LearnOptions& o, Choices& c) {
  d.add_options()
      ("model", choice<ModelKind>(&c.model, "model")->default_value("log"),
       "log: the log model ([KP19] eq. 5), theta from --k; l2: the l2-degree model ([KP19] eq. 4), "
       "alpha searched for --k; soft, hard: Daitch et al. 2009 ([KP19] eq. 23, 22), degree not "
       "controlled; knn: the k-NN graph with weights exp(-Z/sigma^2)")
      ("theta", po::value(&o.theta)->default_value(0.0),
       "log: use this theta instead of choosing it from --k ([KP19] eq. 18)")
      ("alpha", po::value(&o.alpha)->default_value(0.0),
       "log, with --beta: the model's alpha and beta directly; l2: this alpha instead of the "
       "search for --k")
      ("beta", po::value(&o.beta)->default_value(0.0), "log: see --alpha")
      ("sigma", po::value(&o.sigma)->default_value(0.0),
       "knn: kernel width (0: sigma^2 = mean squared distance to the k-th neighbour)")
      ("knn-mode", choice<KnnMode>(&c.knn_mode, "knn-mode")->default_value("union"),
       "knn: union (an edge where either node is among the other's k nearest) or mutual (where "
       "each is among the other's k nearest)")
      ("knn-weights", choice<KnnWeights>(&c.knn_weights, "knn-weights")->default_value("gaussian"),
       "knn: gaussian (exp(-Z/sigma^2)) or binary (every edge 1: 0/1 connectivity)")
      ("mu", po::value(&o.mu)->default_value(0.0),
       "soft: weight of the degree penalty (0: the mean squared feature distance of the allowed "
       "edges)")
      ("project-dim", po::value(&o.project_dim)->default_value(0),
       "hard, soft: project the features to this many dimensions by a seeded Gaussian matrix "
       "([KP19] app. C: 20; 0: keep)")
      ("support", choice<Support>(&c.support, "support")->default_value("ann"),
       "allowed pairs: ann (each node's r*k candidates, knn: k) or full (every pair, exact; "
       "n <= 5000 only)")
      ("order", choice<NodeOrder>(&c.order, "order")->default_value("locality"),
       "locality: renumber the rows inside so that neighbours share a rank (faster iterations; "
       "the graph is written in input order) or input");
}

// The solver, its stopping rules, the degree search and pruning.
void add_solver_options(po::options_description& d, LearnOptions& o, Choices& c) {
  d.add_options()
      ("solver", choice<SolverKind>(&c.solver, "solver")->default_value("fdpg"),
       "log: fdpg (FISTA on the dual, Saboksayr & Mateos 2021: 3-12x faster than fbf to the "
       "same accuracy) or fbf (forward-backward-forward primal-dual, the reference)")
      ("tol", po::value(&o.solver.tol)->default_value(1e-5, "1e-5"),
       "stop when the relative change of primal and dual variables is below this (every model "
       "but knn; fdpg: the relative change of the dual and the relative degree residual "
       "||lambda .* (S w) - 1|| / sqrt(n))")
      ("max-iter", po::value(&o.solver.max_iterations)->default_value(5000),
       "at most this many iterations (l2: per solve of the alpha search)")
      ("degree-tol", po::value(&o.degree_tol)->default_value(0.05, "0.05"),
       "log model with theta from k, l2 without --alpha: re-solve with a corrected theta "
       "(alpha) until the average degree is within this relative tolerance of k (0: keep [KP19] "
       "eq. 18's theta; l2: alpha = the mean distance of the allowed edges)")
      ("max-solves", po::value(&o.max_solves)->default_value(6),
       "log and l2: at most this many solves for --degree-tol (the closest is kept)")
      ("prune", po::value(&o.prune)->default_value(1e-4, "1e-4"),
       "weights at or below this (before scaling) are not written");
}

// The solvers' tuning: the degree search's tolerance, fbf's step and scaling.
void add_tuning_options(po::options_description& d, LearnOptions& o) {
  d.add_options()
      ("degree-search-tol", po::value(&o.degree_search_tol)->default_value(3e-4, "3e-4"),
       "log model: --tol of the solves that measure the degree while theta is corrected (the "
       "theta kept is then solved to --tol)")
      ("step", po::value(&o.solver.step)->default_value(0.9, "0.9"),
       "fbf: step size factor in (0,1): gamma = step / (2 + ||S||/c)")
      ("dual-scale", po::value(&o.solver.dual_scale)->default_value(0.0),
       "c: run the iteration on S/c, an equivalent problem that balances primal and dual "
       "progress (1: the reference iteration; 0: choose c from the one-node solutions)")
      ("balance-every", po::value(&o.solver.balance_every)->default_value(50),
       "every this many iterations, halve or double c when the primal and dual relative "
       "changes differ by more than 10x, at most 8 times (0: keep c fixed)");
}

// --json, progress, --quiet and checkpoints.
void add_output_options(po::options_description& d, LearnOptions& o, LearnArgs& a) {
  d.add_options()
      ("json", po::value(&a.json), "also write the summary as one JSON object to this file")
      ("progress-every", po::value(&a.progress_every)->default_value(50),
       "print the iteration's progress every this many iterations, every model that iterates "
       "(0: never)")
      ("quiet", flag(&a.quiet), "print nothing but errors")
      ("checkpoint", po::value(&o.checkpoint),
       "save the learning state to this HDF5 file (the previous one kept as FILE.prev); on "
       "SIGUSR1 or SIGTERM every rank saves at the same iteration and lsgl exits with code 75")
      ("checkpoint-every", po::value(&o.checkpoint_every)->default_value(0),
       "iterations between checkpoints (0: only when signalled)")
      ("resume", po::value(&o.resume),
       "continue from a checkpoint (same data and parameters; any number of ranks); skips the "
       "neighbour search");
}

// --no-distances and the AnnData copy of --write-anndata.
void add_anndata_options(po::options_description& d, LearnOptions& o, LearnArgs& a) {
  d.add_options()
      ("no-distances", flag(&a.no_distances),
       "do not store each edge's distance (.h5: /graph/distances, aligned with /graph/data; "
       "euclidean: ||x_i - x_j||, cosine: 1 - cos)")
      ("write-anndata", po::value(&o.anndata_output),
       "also write a copy of the AnnData --input (.h5ad) with the graph as scanpy's "
       "pp.neighbors leaves it: obsp connectivities (the weights) and distances, uns neighbors "
       "(the parameters); --output may then be left out")
      ("anndata-key", po::value(&o.anndata_key),
       "--write-anndata: scanpy's key_added (uns KEY, obsp KEY_connectivities and "
       "KEY_distances; default: neighbors, connectivities, distances)")
      ("anndata-in-place", flag(&o.anndata_in_place),
       "allow --write-anndata to name the --input file: the graph is added to the input "
       "itself (replaced atomically)");
}

const char* kLearnUsage =
    "usage: [mpirun -n P] lsgl learn --input DATA --output GRAPH.h5 [--k 10] [options]\n"
    "\nLearns a sparse weighted graph of average degree about k from the rows of DATA: each node "
    "may\nconnect to its r*k approximate nearest neighbours; --model chooses the weights "
    "(docs/learn.md).\n";

}  // namespace

int learn_command(MPI_Comm comm, const std::vector<std::string>& args,
                  const std::string& command_line) {
  LearnOptions o;
  Choices c;
  LearnArgs a;
  OptionGroups g(kLearnUsage);
  auto& data = g.group("data", "Data and degree");
  add_data_options(data, o, c);
  data.add_options()
      ("output", po::value(&o.output),
       "output graph file, format from the name: .h5 (lsgl's graph with its attributes), .npz "
       "(scipy), .mtx, .txt/.edges/.tsv (edge list); written atomically");
  add_model_options(g.group("model", "Model"), o, c);
  add_solver_options(g.group("solver", "Solver"), o, c);
  add_candidate_options(g.group("candidates", "Candidate search"), o, c);
  add_output_options(g.group("output", "Output, progress and checkpoints"), o, a);
  add_anndata_options(g.group("anndata", "AnnData output and edge distances", false), o, a);
  add_engine_options(g.group("search", "Search engines and --candidates files", false), o, c);
  add_tuning_options(g.group("tuning", "Solver tuning", false), o);
  const Parsed p = parse(comm, args, g);
  if (p.help) {
    print_help(comm, g, p);
    return 0;
  }
  parse_choices(comm, c, true, o);
  collective_check(comm, a.progress_every >= 0 && o.checkpoint_every >= 0,
                   "--progress-every and --checkpoint-every must be >= 0");
  o.command_line = command_line;
  o.configuration = effective_configuration(p.vm);
  o.distances = !a.no_distances;
  if (!a.json.empty()) check_json_output(comm, o, a.json);
  install_interrupt_handlers();
  const auto monitor = make_printing_monitor(
      comm, a.quiet ? Verbosity::kNothing : Verbosity::kAll, a.progress_every);
  const LearnSummary s = run_learn(comm, o, *monitor);
  if (s.interrupted) return kExitInterrupted;
  if (!a.json.empty()) write_text_file(comm, a.json, learn_summary_json(o, s) + "\n");
  return 0;
}

int theta_command(MPI_Comm comm, const std::vector<std::string>& args) {
  LearnOptions o;
  Choices c;
  OptionGroups g(
      "usage: [mpirun -n P] lsgl theta --input DATA [--k 10] [options]\n"
      "\nPrints the theta of [KP19] eq. 18 for an average of k neighbours per node, with the "
      "mean\nlower and upper bounds of the per-node intervals ([KP19] Thm. 3).\n");
  add_data_options(g.group("data", "Data and degree"), o, c);
  add_candidate_options(g.group("candidates", "Candidate search"), o, c);
  add_engine_options(g.group("search", "Search engines and --candidates files", false), o, c);
  const Parsed p = parse(comm, args, g);
  if (p.help) {
    print_help(comm, g, p);
    return 0;
  }
  parse_choices(comm, c, false, o);
  const ThetaChoice t = run_theta(comm, o);
  if (comm_rank(comm) == 0) {
    std::printf("k = %d\ntheta = %.10g\nmean lower bound = %.10g\nmean upper bound = %.10g\n",
                o.k, t.theta, t.lower_mean, t.upper_mean);
    if (t.nodes_without_lower + t.nodes_without_upper > 0)
      std::printf("nodes left out (ties or duplicates): %lld (lower), %lld (upper)\n",
                  (long long)t.nodes_without_lower, (long long)t.nodes_without_upper);
  }
  return 0;
}

}  // namespace lsgl::cli
