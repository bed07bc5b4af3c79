#include "lsgl/pipeline/learn.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "lsgl/graph/anndata_export.hpp"
#include "lsgl/graph/graph_export.hpp"
#include "lsgl/graph/graph_io.hpp"
#include "lsgl/graph/locality_order.hpp"
#include "lsgl/io/attributes.hpp"
#include "lsgl/io/dataset.hpp"
#include "lsgl/io/metric.hpp"
#include "lsgl/learn/model.hpp"
#include "lsgl/util/atomic_file.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/file_identity.hpp"
#include "lsgl/util/format.hpp"
#include "lsgl/util/memory.hpp"
#include "lsgl/util/phase.hpp"
#include "learn_models.hpp"

namespace lsgl {

namespace {

// How the candidate search went (route, cells, ranks searched per query, bytes sent).
void report_search(Monitor& monitor, const SearchReport& r, std::int64_t n) {
  const double share = 100.0 / static_cast<double>(std::max<std::int64_t>(n, 1));
  const std::string cells =
      r.route == AnnRoute::kPartition ? strprintf(" (%d k-means cells)", r.cells) : "";
  const auto info = [&](const std::string& line) { monitor.message(MessageKind::kInfo, line); };
  info(
      strprintf("  engine %s, route %s%s: queries searched 1 / 2 / 3+ ranks' indexes: %.1f%% / "
                "%.1f%% / %.1f%%; at most %.1f MB sent per rank",
                name_of(r.engine), name_of(r.route), cells.c_str(), share * r.visits[0],
                share * r.visits[1], share * r.visits[2], r.bytes_sent_max / 1e6));
  info(strprintf("  rows per index     %lld to %lld", static_cast<long long>(r.rows_min),
                 static_cast<long long>(r.rows_max)));
  if (r.engine == AnnEngine::kProjected) {
    const std::string passes =
        r.certify_passes > 0 ? strprintf(" (after %d more passes)", r.certify_passes) : "";
    info(strprintf("  projected search   %d components (%.1f%% of the variance), %d of %d cells "
                   "probed, shortlist of %d rows (recall %.4f on sampled rows); lists certified "
                   "exact: %.1f%% of rows%s",
                   r.projected_dims, 100.0 * r.explained_variance, r.probes, r.cells,
                   r.shortlist, r.shortlist_recall, share * r.certified_rows, passes.c_str()));
  } else if (r.shortlist_recall >= 0) {
    info(strprintf("  engine choice      projected search not kept: %d components, %d cells "
                   "probed and a shortlist of %d rows reached a recall of %.4f on sampled rows "
                   "(kept at 0.997 or more with at most half the dimensions)",
                   r.projected_dims, r.probes, r.shortlist, r.shortlist_recall));
  }
  if (r.auto_rows_per_query >= 0) {
    info(
        strprintf("  engine choice      voronoi compared %.0f rows per sampled query (hnsw above "
                  "%.0f): %s",
                  r.auto_rows_per_query, r.auto_rows_limit, name_of(r.engine)));
  }
  info(strprintf("  search phases      projection %.2f s, cells %.2f s, index %.2f s, queries "
                 "%.2f s (rank 0); %.2f CPU s on all ranks",
                 r.seconds_projection, r.seconds_cells, r.seconds_index, r.seconds_search,
                 r.cpu_seconds));
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
  collective_check(comm, o.checkpoint_every >= 0 && o.recall_sample >= kRecallSampleAuto,
                   "--checkpoint-every and --recall-sample must be >= 0");
}

// Where a run's data come from and where its graph goes.
struct RunIo {
  bool reads_input = true;    // --input (false: rows given in memory)
  bool writes_graph = true;   // --output (false: theta, or the graph returned in memory)
};

void validate_anndata(MPI_Comm comm, const LearnOptions& o);

// Collective. The options every model shares (each model checks its own in make_model).
void validate(MPI_Comm comm, const LearnOptions& o, RunIo io) {
  collective_check(comm, o.k >= 1, "--k must be at least 1 (got " + std::to_string(o.k) + ")");
  collective_check(comm, o.r >= 1.0, "--r must be at least 1");
  collective_check(comm, o.theta >= 0 && o.alpha >= 0 && o.beta >= 0,
                   "--theta, --alpha and --beta must be positive");
  collective_check(comm, o.sigma >= 0, "--sigma must be positive and belongs to --model knn");
  collective_check(comm, o.mu >= 0, "--mu must be positive and belongs to --model soft");
  collective_check(comm, o.project_dim >= 0,
                   "--project-dim must be positive and belongs to --model hard or soft");
  collective_check(comm, o.solver.tol > 0 && o.solver.max_iterations >= 1,
                   "--tol must be positive and --max-iter at least 1");
  collective_check(comm, o.degree_tol >= 0 && o.degree_tol < 1 && o.max_solves >= 1,
                   "--degree-tol must be in [0, 1) and --max-solves at least 1");
  collective_check(comm, o.degree_search_tol > 0 && o.degree_search_tol < 1,
                   "--degree-search-tol must be in (0, 1)");
  collective_check(comm, o.solver.step > 0 && o.solver.step < 1, "--step must be in (0, 1)");
  if (io.reads_input) collective_check(comm, !o.input.empty(), "--input is required");
  collective_check(comm, o.candidates.empty() || o.support == Support::kAnn,
                   "--candidates gives the allowed pairs; it excludes --support full");
  if (io.writes_graph) {
    collective_check(comm, !o.output.empty() || !o.anndata_output.empty(),
                     "--output is required (or --write-anndata)");
    collective_check(comm, o.output != o.input, "--output must not be the input file");
    if (!o.output.empty())
      collectively(comm, [&] { graph_output_format("--output", o.output); });
    validate_anndata(comm, o);
  }
  validate_ranges(comm, o);
}

// Collective. --write-anndata: an .h5ad name, with the distances, and the input file itself only
// on request (--anndata-in-place); the input must be an AnnData file.
void validate_anndata(MPI_Comm comm, const LearnOptions& o) {
  collective_check(comm, !o.anndata_in_place || !o.anndata_output.empty(),
                   "--anndata-in-place needs --write-anndata naming the --input file");
  if (o.anndata_output.empty()) return;
  const std::string& out = o.anndata_output;
  collective_check(comm, out.size() > 5 && out.compare(out.size() - 5, 5, ".h5ad") == 0,
                   "--write-anndata writes an AnnData file: its name must end in .h5ad (got '" +
                       out + "')");
  collective_check(comm, o.distances,
                   "--write-anndata stores obsp distances too: drop --no-distances");
  const bool in_place = same_file(out, o.input);
  collective_check(comm, !in_place || o.anndata_in_place,
                   "--write-anndata names the --input file: add --anndata-in-place to add the "
                   "graph to the input itself, or name a new .h5ad for a copy");
  collective_check(comm, in_place || !o.anndata_in_place,
                   "--anndata-in-place needs --write-anndata naming the --input file (got '" +
                       out + "')");
  anndata_obs_count(comm, o.input);  // refuses an input that is no AnnData file, before work
}

// Counts, over all nodes, those whose every allowed edge kept a weight (r too small if many)
// and those left without any edge.
void count_saturated(const EdgeSet& edges, const std::vector<double>& w, double threshold,
                     LearnSummary& s) {
  auto counts = edges.make_node_vector(2);  // (allowed edges, kept edges)
  double* c = counts->values();
  const auto& ptr = edges.row_ptr();
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

// One run of `lsgl learn`, filled phase by phase.
struct LearnRun {
  LearnRun(MPI_Comm c, const LearnOptions& opt, Monitor& m, RunIo how)
      : comm(c), o(opt), monitor(m), io(how) {}
  MPI_Comm comm;
  const LearnOptions& o;
  Monitor& monitor;
  RunIo io;
  LearnedGraph* result = nullptr;  // !io.writes_graph in learn: the graph goes here
  std::unique_ptr<Model> model;
  LocalRows data;
  LocalityOrder order;  // order.input empty: nodes keep their input order
  std::unique_ptr<EdgeSet> edges;
  std::vector<double> w;  // per local allowed edge
  std::vector<double> listings;  // models with needs_listings(): per local allowed edge
  LearnSummary s;
  void info(const std::string& line) const { monitor.message(MessageKind::kInfo, line); }
  void summary(const std::string& line) const { monitor.message(MessageKind::kSummary, line); }
};

// Collective. Options of the pipeline and of the model; every input distinct from every output.
void start(LearnRun& run) {
  const LearnOptions& o = run.o;
  validate(run.comm, o, run.io);
  run.model = make_model(run.comm, o, run.monitor);
  run.s.model = o.model;
  if (!run.io.writes_graph) return;
  // --checkpoint may name the --resume file: it is read whole before the first checkpoint.
  const std::string anndata_copy = o.anndata_in_place ? "" : o.anndata_output;
  check_distinct_files(
      run.comm, {{"--input", o.input}, {"--resume", o.resume}, {"--candidates", o.candidates}},
      {{"--output", o.output}, {"--write-anndata", anndata_copy}});
  check_distinct_files(run.comm, {{"--input", o.input}, {"--candidates", o.candidates}},
                       {{"--output", o.output}, {"--checkpoint", o.checkpoint}});
  check_distinct_files(run.comm, {{"--resume", o.resume}, {"--candidates", o.candidates}},
                       {{"--write-anndata", o.anndata_output}});
  if (!o.output.empty()) check_writable(run.comm, o.output);
  if (!o.anndata_output.empty()) check_writable(run.comm, o.anndata_output);
  if (!o.checkpoint.empty()) check_writable(run.comm, o.checkpoint);
}

void read_phase(LearnRun& run) {
  run.s.t_read = timed_phase(run.comm, "read", run.monitor, [&] {
    if (run.io.reads_input)
      run.data = read_dataset(run.comm, run.o.input, run.o.dataset, run.o.input_format);
    else
      check_finite_rows(run.comm, run.data, "the data");
    apply_metric(run.comm, run.data, run.o.metric);
  });
  run.s.n = run.data.n;
  run.s.d = run.data.d;
  if (!run.o.anndata_output.empty()) {
    const LearnOptions& o = run.o;
    const std::int64_t obs = anndata_obs_count(run.comm, o.input);
    collective_check(run.comm, obs == run.s.n,
                     "--write-anndata: " + o.dataset + " has " + std::to_string(run.s.n) +
                         " rows but '" + o.input + "' has " + std::to_string(obs) +
                         " observations; learn from a matrix with one row per observation "
                         "(/obsm/X_pca, /X)");
  }
  run.info(strprintf("  n = %lld, d = %lld", static_cast<long long>(run.s.n),
                     static_cast<long long>(run.s.d)));
  run.model->attach_data(run.data);
}

// Collective. Enough points for the candidates per node, checked once n is known (before the
// order and the search); each message says which option to change.
void check_enough_points(LearnRun& run) {
  const LearnOptions& o = run.o;
  const std::int64_t n = run.data.n;
  collective_check(run.comm, n >= 2,
                   "need at least 2 points to learn a graph (n = " + std::to_string(n) + ")");
  collective_check(run.comm, o.support != Support::kFull || n <= kFullSupportMaxNodes,
                   "--support full allows every pair and is limited to n <= " +
                       std::to_string(kFullSupportMaxNodes) + " nodes (got n = " +
                       std::to_string(n) + "); use --support ann");
  const int m = run.model->candidates_per_node(n);
  if (o.model == ModelKind::kKnn)
    collective_check(run.comm, n > m,
                     strprintf("need more points than neighbours per node: n = %lld, k = %d: "
                               "lower --k",
                               static_cast<long long>(n), o.k));
  else
    collective_check(run.comm, n > m,
                     strprintf("need more points than candidates per node: n = %lld, "
                               "round(r*k) = %d (r = %g, k = %d): lower --k or --r",
                               static_cast<long long>(n), m, o.r, o.k));
}

// Nodes renumbered in a locality order, except for models that need the node features in node
// order.
void order_phase(LearnRun& run) {
  if (run.o.order != NodeOrder::kLocality || run.model->needs_features()) return;
  run.s.t_order = timed_phase(run.comm, "order", run.monitor,
                              [&] { run.order = locality_order(run.comm, run.data); });
  const std::int64_t block = run.data.n / kOrderScoreBlocks;
  run.info(strprintf(
      "  %s (sampled nearest neighbours in the same 1/%d block of %lld rows: %.0f%% renumbered, "
      "%.0f%% in input order)",
      run.order.input.empty() ? "input order kept" : "nodes renumbered by locality",
      kOrderScoreBlocks, static_cast<long long>(block), 100 * run.order.score.locality,
      100 * run.order.score.input));
  // The score says whether neighbours share a block; only while a block's rows fit this rank's
  // share of the cache does that mean they are close in memory.
  const double block_bytes = static_cast<double>(block) * static_cast<double>(run.data.d) * 4.0;
  const double cache_share =
      static_cast<double>(last_level_cache_bytes()) / node_share(run.comm, 0.0).ranks;
  if (cache_share > 0 && block_bytes > cache_share)
    run.info(
        strprintf("  note: a 1/%d block's rows (%.0f MB) exceed this rank's share of the "
                  "cache (%.0f MB): the score does not show that neighbours are close in "
                  "memory",
                  kOrderScoreBlocks, block_bytes / 1e6, cache_share / 1e6));
}

// Collective. The candidate lists of --candidates, at most m per node, checked against the data;
// `note` gets what the summary says about them.
Candidates read_candidates(LearnRun& run, int m, std::string* note) {
  const LearnOptions& o = run.o;
  CandidatesFileOptions fo = o.candidates_file;
  fo.max_m = m;
  fo.n = run.data.n;
  CandidatesFileReport rep;
  Candidates cand = read_candidates_file(run.comm, o.candidates, fo, &rep);
  const std::string check = check_candidate_distances(run.comm, run.data, cand, fo.distance);
  run.s.candidates_per_node = cand.m;
  *note = std::to_string(cand.m) + " candidates per node from '" + o.candidates + "' (" +
          rep.layout + ", " + to_string(fo.distance) + " distances" +
          (cand.m < m ? "; fewer than round(r*k) = " + std::to_string(m) : std::string()) + ")";
  for (const std::string& extra : {rep.note(), check})
    if (!extra.empty()) *note += "\n  note: " + extra;
  return cand;
}

// Local. The nodes whose lists --recall-sample checks (auto: none after an exact search).
int recall_nodes(int option, bool exact_search) {
  if (option != kRecallSampleAuto) return option;
  return exact_search ? 0 : kAutoRecallNodes;
}

// Local. Called by the search once its indexes hold the rows: this rank's input rows are freed
// (n, d and begin kept) unless the recall estimate or the model reads them later, or they are
// borrowed (the caller's array).
void free_rows_after_search(LearnRun& run, AnnEngine engine) {
  if (run.model->needs_features() || run.data.borrowed() ||
      recall_nodes(run.o.recall_sample, exact_engine(engine)) > 0)
    return;
  LocalRows shape;
  shape.n = run.data.n;
  shape.d = run.data.d;
  shape.begin = run.data.begin;
  run.data = std::move(shape);
}

// Collective. Each node's candidate list (full support: every other node, exact search).
Candidates candidates_phase(LearnRun& run) {
  const LearnOptions& o = run.o;
  const bool full = o.support == Support::kFull;
  const int m = run.model->candidates_per_node(run.data.n);
  run.s.candidates_per_node = m;
  AnnParams ann = o.ann;
  if (full) ann.engine = AnnEngine::kExact;
  ann.monitor = &run.monitor;
  ann.rows_done = [&run](AnnEngine engine) { free_rows_after_search(run, engine); };
  Candidates cand;
  std::string file_note;
  run.s.t_candidates = timed_phase(run.comm, "candidates", run.monitor, [&] {
    if (o.candidates.empty())
      cand = find_candidates(run.comm, run.data, m, ann);
    else
      cand = read_candidates(run, m, &file_note);
    run.s.search = cand.report;
    run.s.recall_sample = full ? 0 : recall_nodes(o.recall_sample, cand.report.exact(run.data.n));
    if (run.s.recall_sample > 0) {
      const double t0 = MPI_Wtime();
      run.s.recall =
          estimate_recall(run.comm, run.data, cand, run.s.recall_sample, o.seed, ann.threads);
      run.s.t_recall = allreduce_max_double(run.comm, MPI_Wtime() - t0);
    }
  });
  if (!o.candidates.empty())
    run.info("  " + file_note);
  else if (full)
    run.info(strprintf("  full support: all %d other nodes are candidates of each node", m));
  else
    run.info(strprintf("  %d candidates per node, %s", m, ann.describe().c_str()));
  if (o.candidates.empty()) report_search(run.monitor, run.s.search, run.data.n);
  if (run.s.recall >= 0)
    run.info(strprintf("  estimated recall %.3f on %d sampled nodes (%.2f s of the phase)",
                       run.s.recall, run.s.recall_sample, run.s.t_recall));
  return cand;
}

// Collective. The allowed edges (renumbered by the locality order) and the model's parameters.
void prepare_phase(LearnRun& run, const Candidates& cand) {
  run.s.t_prepare = timed_phase(run.comm, run.model->prepare_phase(), run.monitor, [&] {
    std::vector<double>* listings = run.model->needs_listings() ? &run.listings : nullptr;
    run.edges = std::make_unique<EdgeSet>(
        run.order.input.empty()
            ? EdgeSet::from_candidates(run.comm, run.s.n, cand, listings)
            : EdgeSet::from_pairs(run.comm, run.s.n,
                                  renumbered_pairs(run.comm, run.s.n, cand, run.order),
                                  listings, RepeatValues::kSum));
    run.model->prepare(cand);
  });
  if (!run.o.candidates.empty()) {
    // Each allowed pair is listed by one of its nodes or by both: with D = n m listed pairs and
    // U allowed pairs, 2U - D are listed by one node only.
    const std::int64_t listed = run.s.n * cand.m, allowed = run.edges->global_edges();
    run.info(
        strprintf("  %lld of %lld allowed pairs are listed by one of their nodes only (kept: "
                  "the allowed pairs are the union of the lists)",
                  static_cast<long long>(2 * allowed - listed), static_cast<long long>(allowed)));
  }
}

// Collective. The allowed edges and the model's state from --resume instead of the two above.
void resume_phase(LearnRun& run) {
  run.s.t_candidates = timed_phase(run.comm, "candidates", run.monitor, [&] {
    run.edges = std::make_unique<EdgeSet>(run.model->resume(run.o.resume, &run.s.recall));
    run.s.search.source = CandidateSource::kCheckpoint;
  });
}

// Local. After the search the rows are freed, before the allowed edge set is built (that phase
// set the peak memory: docs/benchmarks.md), unless the model learns from them (needs_features).
void release_rows(LearnRun& run) {
  run.s.rows_borrowed = run.data.borrowed();
  if (!run.model->needs_features()) run.data = LocalRows();
}

void learn_phase(LearnRun& run) {
  run.s.allowed_edges = run.edges->global_edges();
  run.info("  " + run.model->prepared_line(run.s.allowed_edges));
  LocalRows features = std::move(run.data);
  run.data = LocalRows();
  run.s.t_learn = timed_phase(run.comm, "learn", run.monitor, [&] {
    const double t0 = MPI_Wtime();
    run.w = run.model->learn({*run.edges, std::move(features), run.s.recall, &run.listings});
    run.s.solver = run.model->report();
    if (run.s.solver.iteration_seconds == 0) run.s.solver.iteration_seconds = MPI_Wtime() - t0;
  });
  run.s.interrupted = run.s.solver.interrupted;
  if (run.s.interrupted)
    run.info(strprintf("interrupted by a signal at iteration %d; %s", run.s.solver.iterations,
                       run.o.checkpoint.empty()
                           ? "no --checkpoint was given, nothing saved"
                           : ("resume with --resume " + run.o.checkpoint).c_str()));
}

// Collective. Saturated and isolated nodes, time per iteration and effective bandwidth.
void measure_learning(LearnRun& run) {
  LearnSummary& s = run.s;
  count_saturated(*run.edges, run.w, run.model->threshold(), s);
  const double moved = static_cast<double>(
      allreduce_sum(run.comm, s.solver.bytes_moved_per_iteration) * s.solver.iterations_run);
  double seconds = s.solver.iteration_seconds;
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, run.comm);
  s.learn_bandwidth = seconds > 0 ? moved / seconds : 0.0;
  s.ms_per_iteration = 1e3 * seconds / std::max(1, s.solver.iterations_run);
  s.bytes_sent_max = allreduce_max(run.comm, s.solver.bytes_sent_per_iteration);
}

// Local. The attributes of /graph common to every model, then the model's own.
Attributes graph_attributes(const LearnRun& run, std::int64_t nnz) {
  const LearnSummary& s = run.s;
  const LearnOptions& o = run.o;
  Attributes a = {
      {"n", s.n},
      {"nnz", nnz},
      {"model", to_string(o.model)},
      {"k_requested", static_cast<std::int64_t>(o.k)},
      {"avg_degree", s.avg_degree},
      {"degree_deviation", s.degree_deviation},
      {"support", to_string(o.support)},
      {"r", o.r},
      {"candidates_per_node", s.candidates_per_node},
      {"allowed_edges", s.allowed_edges},
      {"ann", o.support == Support::kFull ? std::string("exact (full support)")
              : !o.candidates.empty() ? "candidates file " + o.candidates
                                      : o.ann.describe()},
      {"metric", to_string(o.metric)},
      {"recall_estimate", s.recall},
      {"ann_route", s.search.route_name()},
      {"ann_engine", s.search.engine_name()},
      {"ann_auto_rows_per_query", s.search.auto_rows_per_query},
      {"ann_cells", static_cast<std::int64_t>(s.search.cells)},
      {"ann_queries_1_rank", s.search.visits[0]},
      {"ann_queries_2_ranks", s.search.visits[1]},
      {"ann_queries_3plus_ranks", s.search.visits[2]},
      {"ann_bytes_sent_max", s.search.bytes_sent_max},
      {"ann_cpu_seconds", s.search.cpu_seconds},
      {"ann_projected_dims", static_cast<std::int64_t>(s.search.projected_dims)},
      {"ann_shortlist", static_cast<std::int64_t>(s.search.shortlist)},
      {"ann_probed_cells", static_cast<std::int64_t>(s.search.probes)},
      {"ann_explained_variance", s.search.explained_variance},
      {"ann_shortlist_sample_recall", s.search.shortlist_recall},
      {"ann_certified_share",
       s.search.certified_rows >= 0
           ? static_cast<double>(s.search.certified_rows) / static_cast<double>(s.n)
           : -1.0},
      {"ann_certify_passes", static_cast<std::int64_t>(s.search.certify_passes)},
      {"seconds_ann_projection", s.search.seconds_projection},
      {"prune_threshold", run.model->threshold()},
      {"order", to_string(run.order.input.empty() ? NodeOrder::kInput : NodeOrder::kLocality)},
      {"seconds_read", s.t_read},
      {"seconds_order", s.t_order},
      {"seconds_candidates", s.t_candidates},
      {"seconds_recall", s.t_recall},
      {"seconds_prepare", s.t_prepare},
      {"seconds_theta", s.t_prepare},  // the old name of seconds_prepare, for one release
      {"seconds_learn", s.t_learn},
  };
  run.model->add_attributes(a);
  return a;
}

// Collective. Refuses a graph without edges (every weight at or below the threshold), which is
// never what a user wants.
void refuse_empty_graph(const LearnRun& run, std::int64_t nnz) {
  double largest = 0.0;
  for (const double v : run.w) largest = std::max(largest, v);
  largest = allreduce_max_double(run.comm, largest);
  const double threshold = run.model->threshold();
  char text[200];
  std::snprintf(text, sizeof text,
                "every learned weight is at or below the threshold %g (the largest is %g): the "
                "graph would have no edges%s",
                threshold, largest, threshold > 0 ? "; lower --prune" : "");
  collective_check(run.comm, nnz > 0, text);
}

// "X_pca" for /obsm/X_pca, "X" for /X: scanpy's use_rep of the learned rows.
std::string use_rep(const std::string& dataset) {
  const std::string obsm = "/obsm/";
  if (dataset.rfind(obsm, 0) == 0) return dataset.substr(obsm.size());
  return dataset.size() > 1 && dataset[0] == '/' ? dataset.substr(1) : dataset;
}

// Collective. --write-anndata: the graph in obsp and uns of a copy of the input.
void write_anndata(const LearnRun& run, const LocalCsr& rows, const EdgeDistances& distances) {
  const LearnOptions& o = run.o;
  const Attributes params = {{"n_neighbors", static_cast<std::int64_t>(o.k)},
                             {"method", std::string("lsgl")},
                             {"model", to_string(o.model)},
                             {"metric", to_string(o.metric)},
                             {"use_rep", use_rep(o.dataset)},
                             {"random_state", static_cast<std::int64_t>(o.seed)}};
  write_anndata_neighbors(run.comm, o.input, o.anndata_output, rows, distances,
                          neighbors_keys(o.anndata_key), params);
}

void write_phase(LearnRun& run) {
  LearnSummary& s = run.s;
  const LearnOptions& o = run.o;
  s.t_write = timed_phase(run.comm, "write", run.monitor, [&] {
    EdgeDistances distances{{}, to_string(o.metric)};
    std::function<double(double)> distance;
    if (o.distances) {
      const Metric metric = o.metric;
      distance = [metric](double z) { return metric_distance(metric, z); };
    }
    LocalCsr rows = assemble_rows(*run.edges, run.w, run.model->threshold(), run.model->scale(),
                                  run.order.input.empty() ? nullptr : &run.order.input, distance,
                                  o.distances ? &distances.values : nullptr);
    const std::int64_t nnz =
        allreduce_sum(run.comm, static_cast<std::int64_t>(rows.indices.size()));
    refuse_empty_graph(run, nnz);
    s.edges = nnz / 2;
    s.avg_degree = static_cast<double>(nnz) / static_cast<double>(s.n);
    s.degree_deviation = (s.avg_degree - o.k) / o.k;
    Attributes attrs = graph_attributes(run, nnz);
    if (run.result) {
      check_finite_output(run.comm, rows, row_sums(rows), attrs);
      if (o.distances) check_distances(run.comm, rows, distances);
      *run.result = {std::move(rows), std::move(attrs), std::move(distances)};
      return;
    }
    const Attributes file_attrs =
        provenance_attributes(run.comm, o.command_line, o.configuration, {{"input", o.input}});
    if (!o.output.empty())
      write_graph_file(run.comm, o.output, rows, attrs, file_attrs,
                       o.distances ? &distances : nullptr);
    if (!o.anndata_output.empty()) write_anndata(run, rows, distances);
  });
}

// The summary lines.
void report_summary(const LearnRun& run) {
  const LearnSummary& s = run.s;
  const LearnOptions& o = run.o;
  const Model& model = *run.model;
  run.summary("");
  run.summary("summary");
  run.summary(strprintf("  model              %s", name_of(o.model)));
  run.summary(strprintf("  nodes              %lld (d = %lld)", static_cast<long long>(s.n),
                        static_cast<long long>(s.d)));
  run.summary(strprintf("  edges              %lld of %lld allowed",
                        static_cast<long long>(s.edges), static_cast<long long>(s.allowed_edges)));
  run.summary(strprintf("  average degree     %.2f (requested k = %d, deviation %+.1f%%)",
                        s.avg_degree, o.k, 100.0 * s.degree_deviation));
  for (const std::string& line : model.summary_lines()) run.summary(line);
  if (s.recall >= 0)
    run.summary(strprintf("  candidate recall   %.3f (estimated)", s.recall));
  else if (o.support != Support::kFull && s.search.exact(s.n))
    run.summary(strprintf("  candidate recall   1 (exact search, %s; not estimated)",
                          s.search.engine_name().c_str()));
  run.summary(strprintf("  isolated nodes     %lld", static_cast<long long>(s.isolated_nodes)));
  if (o.support != Support::kFull && model.iterative() && s.saturated_nodes * 10 > s.n)
    run.summary(strprintf("  warning: %lld nodes kept all their allowed edges: increase --r",
                          static_cast<long long>(s.saturated_nodes)));
  if (model.iterative() && s.solver.iterations_run == 0)
    run.summary("  learning           no iteration run (resumed at --max-iter)");
  else if (model.iterative() && s.learn_bandwidth > 0)
    run.summary(strprintf(
        "  learning           %.2f ms per iteration, %.2f GB/s effective, at "
        "most %lld bytes sent per rank and iteration",
        s.ms_per_iteration, s.learn_bandwidth / 1e9, static_cast<long long>(s.bytes_sent_max)));
  else if (model.iterative())
    run.summary(strprintf("  learning           %.2f ms per iteration", s.ms_per_iteration));
  run.summary(strprintf(
      "  phases             read %.2f s, order %.2f s, candidates %.2f s, %s "
      "%.2f s, learn %.2f s, write %.2f s",
      s.t_read, s.t_order, s.t_candidates, model.prepare_phase(), s.t_prepare, s.t_learn,
      s.t_write));
  run.summary(strprintf("  peak memory        %.1f MB max per rank, %.1f MB total",
                        s.peak_rss_max / 1e6, s.peak_rss_sum / 1e6));
  run.summary(strprintf("  total time         %.2f s", s.t_total));
  if (run.result)
    run.summary("  output             (in memory)");
  if (!o.output.empty()) run.summary("  output             " + o.output);
  if (!o.anndata_output.empty())
    run.summary("  anndata            " + o.anndata_output + " (obsp " +
                neighbors_keys(o.anndata_key).connectivities + ", " +
                neighbors_keys(o.anndata_key).distances + "; uns " +
                neighbors_keys(o.anndata_key).uns + ")");
}

// Collective. The pipeline from start to summary.
LearnSummary run_all(LearnRun& run) {
  const double t_start = MPI_Wtime();
  const LearnOptions& o = run.o;
  MPI_Comm comm = run.comm;
  start(run);
  read_phase(run);
  if (o.resume.empty()) check_enough_points(run);
  order_phase(run);
  if (o.resume.empty()) {
    const Candidates cand = candidates_phase(run);
    release_rows(run);
    prepare_phase(run, cand);
  } else {
    resume_phase(run);
    release_rows(run);
  }
  learn_phase(run);
  if (run.s.interrupted) return run.s;
  measure_learning(run);
  write_phase(run);
  run.s.t_total = MPI_Wtime() - t_start;
  const std::int64_t rss = peak_rss_bytes();
  run.s.peak_rss_max = allreduce_max(comm, rss);
  run.s.peak_rss_sum = allreduce_sum(comm, rss);
  report_summary(run);
  return run.s;
}

// Collective. The theta of [KP19] eq. 18 for the run's k and candidates (`lsgl theta`).
ThetaChoice theta_of(LearnRun& run) {
  const LearnOptions& o = run.o;
  MPI_Comm comm = run.comm;
  start(run);
  read_phase(run);
  check_enough_points(run);
  const int m = run.model->candidates_per_node(run.data.n);
  collective_check(comm, m > o.k,
                   "theta needs more candidates per node than k: round(r*k) = " +
                       std::to_string(m) + ", k = " + std::to_string(o.k) + ": raise --r");
  return theta_from_k(comm, candidates_phase(run), o.k);
}

}  // namespace

LearnSummary run_learn(MPI_Comm comm, const LearnOptions& o, Monitor& monitor) {
  LearnRun run(comm, o, monitor, {true, true});
  return run_all(run);
}

LearnSummary learn_rows(MPI_Comm comm, const LearnOptions& o, LocalRows data, LearnedGraph& out,
                        Monitor& monitor) {
  LearnRun run(comm, o, monitor, {false, false});
  run.data = std::move(data);
  run.result = &out;
  return run_all(run);
}

ThetaChoice run_theta(MPI_Comm comm, const LearnOptions& o) {
  LearnRun run(comm, o, null_monitor(), {true, false});  // `lsgl theta` prints its result only
  return theta_of(run);
}

ThetaChoice theta_rows(MPI_Comm comm, const LearnOptions& o, LocalRows data) {
  LearnRun run(comm, o, null_monitor(), {false, false});
  run.data = std::move(data);
  return theta_of(run);
}

}  // namespace lsgl
