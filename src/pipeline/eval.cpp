// `lsgl eval`: named, timed phases over the measures in src/eval/; rank-0 table and JSON report.
#include "lsgl/pipeline/eval.hpp"

#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>
#include <utility>

#include "lsgl/eval/components.hpp"
#include "lsgl/graph/csr_ghosts.hpp"
#include "lsgl/io/attributes.hpp"
#include "lsgl/io/dataset.hpp"
#include "lsgl/io/h5.hpp"
#include "lsgl/graph/renumber.hpp"
#include "lsgl/io/output_format.hpp"
#include "lsgl/util/atomic_file.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/file_identity.hpp"
#include "lsgl/util/json.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/petsc.hpp"
#include "lsgl/util/phase.hpp"

namespace lsgl {

namespace {

// Most labels the class-pair table (C x C doubles, reduced in one MPI call) can count.
constexpr int kMaxClasses = 46340;

// A timed phase (lsgl/util/phase.hpp) whose time is also recorded in the report.
template <class Fn>
void timed_phase(MPI_Comm comm, const char* name, Monitor& monitor, EvalReport& r, Fn&& fn) {
  r.seconds.emplace_back(name, lsgl::timed_phase(comm, name, monitor, std::forward<Fn>(fn)));
}

// from_files: run_eval (the graph and the labels from files); else eval_rows.
void validate(MPI_Comm comm, const EvalOptions& o, bool from_files) {
  if (from_files) collective_check(comm, !o.graph.empty(), "--graph is required");
  collective_check(comm, o.lp.fraction > 0 && o.lp.fraction <= 1,
                   "--known-fraction must be in (0, 1]");
  collective_check(comm, o.lp.rtol > 0 && o.lp.max_iterations >= 1,
                   "--lp-rtol must be positive and --lp-max-iter at least 1");
  collective_check(comm, o.max_classes >= 1 && o.max_classes <= kMaxClasses,
                   "--max-classes must be between 1 and " + std::to_string(kMaxClasses) +
                       " (the class-pair table is indexed with 32-bit integers)");
  collective_check(comm, o.diameter_params.exact_max_nodes >= 0,
                   "--diameter-exact-max must be >= 0");
  collective_check(comm, o.diameter_params.bfs_runs >= 1, "--diameter-bfs must be at least 1");
  collective_check(comm, o.embedding_params.vectors >= 1, "--eigenvectors must be at least 1");
  collective_check(comm, o.embedding_params.tol > 0, "--eig-tol must be positive");
  if (from_files) {
    collective_check(comm, o.known.empty() || !o.labels.empty(), "--known needs --labels");
    collective_check(comm, o.predictions.empty() || !o.labels.empty(),
                     "--predictions needs --labels");
  }
  collective_check(comm, !o.input.renumber || o.labels.empty(),
                   "--labels are by node position, which --renumber assigns: number the graph "
                   "first with `lsgl convert --renumber --graph G --output g.h5` and order the "
                   "labels as g.h5.ids lists the nodes");
  const std::string ids = o.input.renumber && !o.embedding.empty() ? node_ids_path(o.embedding)
                                                                   : std::string();
  check_distinct_files(comm, {{"--graph", o.graph}, {"--labels", o.labels}, {"--known", o.known}},
                       {{"--json", o.json}, {"--embedding", o.embedding},
                        {"--predictions", o.predictions}, {"--embedding's id map", ids}});
}

// Collective. The known nodes of label propagation, per local row: the --known mask (`given`, or
// read from o.known), or the seeded --known-fraction of all nodes; unlabelled nodes (negative
// labels) are never known (a mask that marks one is refused).
std::vector<char> known_nodes(MPI_Comm comm, const EvalOptions& o, const LocalCsr& m,
                              const NodeLabels& labels, const std::vector<std::int64_t>* given) {
  std::vector<char> known;
  if (o.known.empty() && given == nullptr) {
    known = select_known_nodes(comm, m.n, m.begin, m.local_rows(), o.lp.fraction, o.lp.seed);
    for (std::int64_t r = 0; r < m.local_rows(); ++r) known[r] = known[r] && labels.index[r] >= 0;
    return known;
  }
  std::vector<std::int64_t> read;
  if (given == nullptr) {
    const std::int64_t len = labels_length(comm, o.known, "/known");
    collective_check(comm, len == m.n,
                     "--known '" + o.known + "' holds " + std::to_string(len) +
                         " entries but the graph has " + std::to_string(m.n) + " nodes");
    read = read_labels(comm, o.known, "/known", m.begin, m.local_rows());
  }
  const std::vector<std::int64_t>& mask = given ? *given : read;
  std::int64_t bad = -1;
  for (std::int64_t r = 0; r < m.local_rows(); ++r) {
    known.push_back(mask[r] != 0);
    if (mask[r] != 0 && labels.index[r] < 0 && bad < 0) bad = m.begin + r;
  }
  bad = allreduce_max(comm, bad);
  collective_check(comm, bad < 0,
                   std::string(given ? "known" : "--known") + " marks node " + std::to_string(bad) +
                       " as known, but its label is negative (unlabelled)");
  return known;
}

// Local. The label value predicted for each local row (-1: unreachable) and 1 where it was given.
std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>> predicted_labels(
    const LocalCsr& m, const NodeLabels& labels, const LabelPropagationResult& lp) {
  std::vector<std::int64_t> value, given;
  for (std::int64_t r = 0; r < m.local_rows(); ++r) {
    const std::int32_t c = lp.prediction[r];
    value.push_back(c >= 0 ? labels.classes[c] : -1);
    given.push_back(lp.known_flag[r] ? 1 : 0);
  }
  return {value, given};
}

// Collective. --predictions: /predictions (int64 label value per node; -1: unreachable) and
// /known (int64, 1: the label was given), rows in node order, written atomically.
void write_predictions(MPI_Comm comm, const EvalOptions& o, const LocalCsr& m,
                       const NodeLabels& labels, const LabelPropagationResult& lp) {
  const auto predicted = predicted_labels(m, labels, lp);
  write_hdf5_atomically(comm, o.predictions, [&](const h5::File& f) {
    h5::write_1d(f, "/predictions", predicted.first, m.begin, m.n);
    h5::write_1d(f, "/known", predicted.second, m.begin, m.n);
    set_attributes(f, "/", provenance_attributes(comm, o.command_line, o.configuration,
                                                 {{"input", o.graph}, {"labels", o.labels}}));
  });
}

}  // namespace

namespace {

// What the measures run on: the graph, its labels, an in-memory known mask (eval_rows).
struct EvalInput {
  LocalCsr m;
  std::vector<std::string> names;  // with --renumber
  NodeLabels labels;
  bool has_labels = false;
  const std::vector<std::int64_t>* known = nullptr;
  std::unique_ptr<CsrGhosts> ghosts;
};

// Collective. The checks of every output file before any work.
void check_outputs(MPI_Comm comm, const EvalOptions& o) {
  if (!o.json.empty()) check_writable(comm, o.json);
  if (!o.predictions.empty()) {
    collectively(comm,
                 [&] { output_format("--predictions", o.predictions, {OutputFormat::kHdf5}); });
    check_writable(comm, o.predictions);
  }
  if (!o.embedding.empty()) {
    collectively(comm, [&] { output_format("--embedding", o.embedding, {OutputFormat::kHdf5}); });
    check_writable(comm, o.embedding);
    if (o.input.renumber) check_writable(comm, node_ids_path(o.embedding));
  }
}

// Collective. The spectral embedding: written to o.embedding, or (vectors) kept in memory.
void embedding_phase(MPI_Comm comm, const EvalOptions& o, const EvalInput& in,
                     const Components& comp, EvalVectors* vectors, EvalReport& r) {
  Embedding e = spectral_embedding(*in.ghosts, in.m, comp, o.embedding_params);
  if (!o.embedding.empty()) {
    write_embedding(comm, o.embedding, e, in.m, o.graph, o.embedding_params.kind,
                    provenance_attributes(comm, o.command_line, o.configuration,
                                          {{"input", o.graph}}));
    if (o.input.renumber) write_node_names(comm, node_ids_path(o.embedding), in.names);
  }
  r.eigenvalues = e.values;
  r.eigen_residuals = e.residuals;
  r.eigen_solver = e.solver;
  r.eigen_iterations = e.iterations;
  r.embedding_component_nodes = e.component_nodes;
  if (vectors) vectors->embedding = std::move(e.vectors);
}

// Collective. Every measure after the read phase, into r (the per-node results into vectors when
// given), then the table to `monitor` and the JSON report.
void measure(MPI_Comm comm, const EvalOptions& o, EvalInput& in, bool embedding,
             EvalVectors* vectors, Monitor& monitor, EvalReport& r, double t_start) {
  const LocalCsr& m = in.m;
  r.has_labels = in.has_labels;
  r.known_file = in.known ? "(given)" : o.known;
  r.unlabelled = in.labels.unlabelled;
  const std::string note = r.input.note();
  if (!note.empty()) monitor.message(MessageKind::kInfo, "  note: " + note);

  timed_phase(comm, "degrees", monitor, r, [&] { r.stats = graph_stats(comm, m); });

  Components comp;
  timed_phase(comm, "components", monitor, r, [&] {
    comp = connected_components(*in.ghosts, m);
    r.components = comp.count;
    r.largest_component = comp.largest_size;
    r.singleton_components = comp.singletons;
    r.component_rounds = comp.rounds;
  });

  if (r.has_labels) {
    timed_phase(comm, "label_propagation", monitor, r, [&] {
      const std::vector<char> known = known_nodes(comm, o, m, in.labels, in.known);
      r.lp = propagate_labels(*in.ghosts, m, comp, in.labels, known, o.lp);
      if (!o.predictions.empty()) write_predictions(comm, o, m, in.labels, r.lp);
      if (vectors) {
        auto [value, given] = predicted_labels(m, in.labels, r.lp);
        vectors->predictions = std::move(value);
        vectors->known.assign(given.begin(), given.end());
      }
      r.lp.known_flag.clear();
      r.lp.prediction.clear();
      r.lp.scores.clear();
    });
    if (!r.lp.converged)
      monitor.message(MessageKind::kInfo,
                      "  warning: a label propagation solve did not reach --lp-rtol");
    timed_phase(comm, "class_connectivity", monitor, r,
                [&] { r.connectivity = class_connectivity(*in.ghosts, m, in.labels); });
  }

  if (o.diameter) {
    timed_phase(comm, "diameter", monitor, r,
                [&] { r.diameter = hop_diameter(*in.ghosts, m, comp, o.diameter_params); });
    r.has_diameter = true;
  }

  if (embedding) {
    timed_phase(comm, "embedding", monitor, r,
                [&] { embedding_phase(comm, o, in, comp, vectors, r); });
    r.has_embedding = true;
    r.embedding_path = o.embedding.empty() ? std::string("(returned)") : o.embedding;
    r.embedding_kind = o.embedding_params.kind;
  }
  MPI_Barrier(comm);
  r.seconds.emplace_back("total", MPI_Wtime() - t_start);

  std::string table = eval_report_table(r);
  if (!table.empty() && table.back() == '\n') table.pop_back();
  monitor.message(MessageKind::kSummary, table);
  if (!o.json.empty()) write_text_file(comm, o.json, eval_report_json(r) + "\n");
}

}  // namespace

EvalReport run_eval(MPI_Comm comm, const EvalOptions& o, Monitor& monitor) {
  const double t_start = MPI_Wtime();
  validate(comm, o, true);
  check_outputs(comm, o);
  EvalReport r;
  r.graph = o.graph;
  r.ranks = comm_size(comm);
  r.lp_params = o.lp;
  EvalInput in;
  timed_phase(comm, "read", monitor, r, [&] {
    in.m = read_graph_input(comm, o.graph, o.input, &r.input, &in.names);
    if (!o.labels.empty())
      in.labels = read_node_labels(comm, o.labels, o.labels_dataset, in.m.n, in.m.begin,
                                   in.m.local_rows(), o.max_classes);
    in.ghosts = std::make_unique<CsrGhosts>(comm, in.m);
  });
  in.has_labels = !o.labels.empty();
  measure(comm, o, in, !o.embedding.empty(), nullptr, monitor, r, t_start);
  return r;
}

EvalReport eval_rows(MPI_Comm comm, const EvalOptions& o, LocalCsr m,
                     const GraphInputReport& input, const std::vector<std::int64_t>* labels,
                     const std::vector<std::int64_t>* known, bool embedding, EvalVectors& vectors,
                     Monitor& monitor) {
  const double t_start = MPI_Wtime();
  validate(comm, o, false);
  check_outputs(comm, o);
  collective_check(comm, !known || labels, "known needs labels");
  collective_check(comm, o.predictions.empty() || labels, "--predictions needs labels");
  const auto local = static_cast<std::size_t>(m.local_rows());
  collective_check(comm, !labels || labels->size() == local,
                   "labels must hold one entry per node (this rank's rows)");
  collective_check(comm, !known || known->size() == local,
                   "known must hold one entry per node (this rank's rows)");
  EvalReport r;
  r.graph = o.graph.empty() ? std::string("(in memory)") : o.graph;
  r.ranks = comm_size(comm);
  r.lp_params = o.lp;
  r.input = input;
  EvalInput in;
  in.m = std::move(m);
  in.known = known;
  timed_phase(comm, "read", monitor, r, [&] {
    if (labels) in.labels = make_node_labels(comm, *labels, o.max_classes);
    in.ghosts = std::make_unique<CsrGhosts>(comm, in.m);
  });
  in.has_labels = labels != nullptr;
  measure(comm, o, in, embedding, &vectors, monitor, r, t_start);
  return r;
}

std::string eval_report_json(const EvalReport& r) {
  const GraphStats& s = r.stats;
  JsonObject top;
  top.add("graph", json_string(r.graph)).add("format", json_string(r.input.format));
  top.add("ranks", json_number(r.ranks));
  top.add("n", json_number(s.n)).add("nnz", json_number(s.nnz)).add("edges", json_number(s.edges));
  top.add("total_weight", json_number(s.total_weight));
  top.add("avg_degree", json_number(s.avg_degree));
  top.add("degree", JsonObject(2)
                        .add("min", json_number(s.degree_min))
                        .add("max", json_number(s.degree_max))
                        .add("mean", json_number(s.avg_degree))
                        .str());
  top.add("weighted_degree", JsonObject(2)
                                 .add("min", json_number(s.weighted_degree_min))
                                 .add("max", json_number(s.weighted_degree_max))
                                 .add("mean", json_number(s.weighted_degree_mean))
                                 .str());
  top.add("isolated", json_number(s.isolated));
  top.add("self_loops_dropped", json_number(r.input.self_loops));
  top.add("zero_weights_dropped", json_number(r.input.zero_weights));
  top.add("components", json_number(r.components));
  top.add("largest_component", json_number(r.largest_component));
  top.add("singleton_components", json_number(r.singleton_components));
  top.add("component_rounds", json_number(r.component_rounds));
  if (r.has_labels) {
    const LabelPropagationResult& lp = r.lp;
    top.add("label_propagation", JsonObject(2)
                                     .add("fraction", json_number(r.lp_params.fraction))
                                     .add("seed", json_unsigned(r.lp_params.seed))
                                     .add("known_file", json_string(r.known_file))
                                     .add("unlabelled", json_number(r.unlabelled))
                                     .add("known", json_number(lp.known))
                                     .add("unknown", json_number(lp.unknown))
                                     .add("correct", json_number(lp.correct))
                                     .add("accuracy", json_number(lp.accuracy))
                                     .add("accuracy_reachable", json_number(lp.accuracy_reachable))
                                     .add("unreachable", json_number(lp.unreachable))
                                     .add("solver", json_string(lp.solver))
                                     .add("rtol", json_number(r.lp_params.rtol))
                                     .add("solves", json_number(lp.solves))
                                     .add("iterations_total", json_number(lp.iterations_total))
                                     .add("iterations_max", json_number(lp.iterations_max))
                                     .add("converged", json_bool(lp.converged))
                                     .str());
    const ClassConnectivity& c = r.connectivity;
    const std::size_t C = c.classes.size();
    std::string share = "[";
    std::vector<double> within(C);
    for (std::size_t a = 0; a < C; ++a) {
      std::vector<double> row(c.share.begin() + a * C, c.share.begin() + (a + 1) * C);
      within[a] = row[a];
      share += (a ? ", " : "") + json_array(row);
    }
    share += "]";
    top.add("class_connectivity", JsonObject(2)
                                      .add("labels", json_array(c.classes))
                                      .add("nodes", json_array(c.nodes))
                                      .add("within", json_array(within))
                                      .add("share", share)
                                      .str());
    top.add("wrong_edge_share", json_number(c.wrong_share));
  } else {
    top.add("label_propagation", "null").add("class_connectivity", "null");
    top.add("wrong_edge_share", "null");
  }
  if (r.has_diameter) {
    top.add("diameter", json_number(r.diameter.diameter));
    top.add("diameter_exact", json_bool(r.diameter.exact));
    top.add("diameter_upper_bound", json_number(r.diameter.upper_bound));
    top.add("diameter_component_nodes", json_number(r.diameter.component_nodes));
    top.add("diameter_method", json_string(r.diameter.method));
  } else {
    top.add("diameter", "null").add("diameter_exact", "null");
  }
  if (r.has_embedding) {
    top.add("embedding", JsonObject(2)
                             .add("path", json_string(r.embedding_path))
                             .add("laplacian", json_string(to_string(r.embedding_kind)))
                             .add("vectors", json_number(static_cast<int>(r.eigenvalues.size())))
                             .add("component_nodes", json_number(r.embedding_component_nodes))
                             .add("eigenvalues", json_array(r.eigenvalues))
                             .add("residuals", json_array(r.eigen_residuals))
                             .add("solver", json_string(r.eigen_solver))
                             .add("iterations", json_number(r.eigen_iterations))
                             .str());
  } else {
    top.add("embedding", "null");
  }
  JsonObject sec(2);
  for (const auto& [name, t] : r.seconds) sec.add(name, json_number(t));
  top.add("seconds", sec.str());
  return top.str();
}

std::string eval_report_table(const EvalReport& r) {
  const GraphStats& s = r.stats;
  std::ostringstream o;
  char buf[512];
  auto line = [&](const char* key, const std::string& value) {
    std::snprintf(buf, sizeof buf, "  %-22s %s\n", key, value.c_str());
    o << buf;
  };
  auto fmt = [&](const char* f, auto... args) {
    std::snprintf(buf, sizeof buf, f, args...);
    return std::string(buf);
  };
  o << "evaluation of " << r.graph << " (" << r.input.format << ", " << r.ranks << " ranks)\n";
  line("nodes", fmt("%lld", (long long)s.n));
  line("edges", fmt("%lld (nnz %lld)", (long long)s.edges, (long long)s.nnz));
  line("total weight", fmt("%.6g", s.total_weight));
  line("average degree", fmt("%.4g neighbours (min %lld, max %lld)", s.avg_degree,
                             (long long)s.degree_min, (long long)s.degree_max));
  line("weighted degree", fmt("mean %.4g (min %.4g, max %.4g)", s.weighted_degree_mean,
                              s.weighted_degree_min, s.weighted_degree_max));
  line("isolated nodes", fmt("%lld", (long long)s.isolated));
  if (r.input.self_loops + r.input.zero_weights > 0)
    line("dropped entries", fmt("%lld self loops, %lld zero weights",
                                (long long)r.input.self_loops, (long long)r.input.zero_weights));
  line("components", fmt("%lld (largest %lld nodes, %lld single nodes)", (long long)r.components,
                         (long long)r.largest_component, (long long)r.singleton_components));
  if (r.has_labels) {
    const LabelPropagationResult& lp = r.lp;
    if (r.known_file.empty())
      line("label propagation",
           fmt("%.4g%% known (%lld nodes, seed %llu)", 100.0 * r.lp_params.fraction,
               (long long)lp.known, (unsigned long long)r.lp_params.seed));
    else
      line("label propagation", fmt("%lld nodes known (--known %s)", (long long)lp.known,
                                    r.known_file.c_str()));
    if (r.unlabelled > 0)
      line("  unlabelled", fmt("%lld nodes (negative labels: not known, not scored)",
                               (long long)r.unlabelled));
    line("  accuracy", fmt("%.4f on %lld unknown nodes (%.4f on the reachable ones)", lp.accuracy,
                           (long long)lp.unknown, lp.accuracy_reachable));
    line("  unreachable",
         fmt("%lld nodes in components without a known label", (long long)lp.unreachable));
    line("  solver", fmt("%s, %d solves, %lld iterations (max %lld)%s", lp.solver.c_str(),
                         lp.solves, (long long)lp.iterations_total, (long long)lp.iterations_max,
                         lp.converged ? "" : ", NOT CONVERGED"));
    const ClassConnectivity& c = r.connectivity;
    const std::size_t C = c.classes.size();
    o << "  class connectivity (share of ||W||_1,1)\n";
    std::snprintf(buf, sizeof buf, "    %10s %10s %10s %12s\n", "label", "nodes", "within",
                  "to others");
    o << buf;
    for (std::size_t a = 0; a < C; ++a) {
      double out = 0;
      for (std::size_t b = 0; b < C; ++b)
        if (b != a) out += c.share[a * C + b] + c.share[b * C + a];
      std::snprintf(buf, sizeof buf, "    %10lld %10lld %10.4f %12.4f\n", (long long)c.classes[a],
                    (long long)c.nodes[a], c.share[a * C + a], out);
      o << buf;
    }
    line("wrong edge share", fmt("%.4f", c.wrong_share));
  }
  if (r.has_diameter) {
    const DiameterResult& d = r.diameter;
    if (d.exact && d.bfs_runs == 0)
      line("diameter", fmt("%lld hops, exact (largest component, %lld nodes)",
                           (long long)d.diameter, (long long)d.component_nodes));
    else
      line("diameter", fmt("%lld hops, lower bound%s (upper bound %lld; largest component, "
                           "%lld nodes, %d BFS)",
                           (long long)d.diameter, d.exact ? " = upper bound: exact" : "",
                           (long long)d.upper_bound, (long long)d.component_nodes, d.bfs_runs));
  }
  if (r.has_embedding) {
    std::string values;
    for (std::size_t k = 0; k < r.eigenvalues.size(); ++k)
      values += fmt(k ? " %.6g" : "%.6g", r.eigenvalues[k]);
    line("embedding", fmt("%zu vectors of the %s Laplacian of the largest component (%lld "
                          "nodes) -> %s",
                          r.eigenvalues.size(), name_of(r.embedding_kind),
                          (long long)r.embedding_component_nodes, r.embedding_path.c_str()));
    line("  eigenvalues", values);
  }
  std::string times;
  for (const auto& [name, t] : r.seconds) times += fmt("%s %.2f  ", name.c_str(), t);
  line("seconds", times);
  return o.str();
}

}  // namespace lsgl
