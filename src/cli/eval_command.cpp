// `lsgl eval`: options -> pipeline.
#include "commands_impl.hpp"
#include "graph_input_options.hpp"
#include "lsgl/cli/choices.hpp"
#include "lsgl/cli/command_options.hpp"
#include "lsgl/pipeline/eval.hpp"
#include "lsgl/util/error.hpp"
#include "options.hpp"
#include "printing_monitor.hpp"

namespace lsgl::cli {

namespace {

// Collective. The options of args into o (and --quiet); false when --help was printed instead.
bool parse_eval(MPI_Comm comm, const std::vector<std::string>& args, EvalOptions& o,
                bool& quiet) {
  GraphInputArgs input;
  std::string laplacian;
  bool no_diameter = false;
  OptionGroups g(
      "usage: [mpirun -n P] lsgl eval --graph GRAPH [--labels LABELS] [--json OUT.json]\n"
      "                  [--embedding EMB.h5 --eigenvectors m] [options]\n"
      "\nMeasures a graph: degrees, connected components, label propagation (Zhu et al. 2003, "
      "harmonic\nsolution) from a seeded share of known labels, the share of weight between "
      "classes and on\nwrong edges, the hop diameter of the largest component, and optionally a "
      "spectral embedding.\n");
  add_graph_input_options(g.group("graph", "Graph"), o.graph, o.input, input);
  g.group("labels", "Labels and label propagation").add_options()
      ("labels", po::value(&o.labels),
       "labels, one integer per node: IDX/IDX.gz, .npy (int64/int32/uint8) or HDF5 (with "
       "--labels-dataset); enables label propagation and class connectivity. A negative label "
       "(e.g. -1) marks an unlabelled node: never known, never scored, not a class")
      ("labels-dataset", po::value(&o.labels_dataset)->default_value("/labels"),
       "HDF5 dataset holding the labels")
      ("known-fraction", po::value(&o.lp.fraction)->default_value(0.01, "0.01"),
       "label propagation: share of nodes whose label is given (chosen by --seed)")
      ("seed", po::value(&o.lp.seed)->default_value(1), "seed choosing the known nodes")
      ("known", po::value(&o.known),
       "label propagation: the known nodes instead of --known-fraction: a mask of one integer "
       "per node (nonzero: its label is given) in the formats of --labels (HDF5: /known)")
      ("lp-rtol", po::value(&o.lp.rtol)->default_value(1e-6, "1e-6"),
       "label propagation: relative tolerance of each CG solve (PETSc options -lp_...)")
      ("lp-max-iter", po::value(&o.lp.max_iterations)->default_value(10000),
       "label propagation: at most this many CG iterations per class")
      ("max-classes", po::value(&o.max_classes)->default_value(256),
       "refuse labels with more distinct values than this");
  g.group("measures", "Diameter and spectral embedding").add_options()
      ("diameter-exact-max", po::value(&o.diameter_params.exact_max_nodes)->default_value(5000),
       "exact hop diameter (all-sources BFS) when the largest component has at most this many "
       "nodes; beyond, an iterated double-sweep lower bound")
      ("diameter-bfs", po::value(&o.diameter_params.bfs_runs)->default_value(4),
       "BFS runs of the double-sweep lower bound")
      ("no-diameter", flag(&no_diameter), "skip the diameter")
      ("embedding", po::value(&o.embedding),
       "write the spectral embedding (/embedding/vectors n x m, /embedding/values) to this HDF5 "
       "file (SLEPc; PETSc options -emb_...)")
      ("eigenvectors", po::value(&o.embedding_params.vectors)->default_value(2),
       "m: non-trivial Laplacian eigenvectors in the embedding")
      ("laplacian", choice<LaplacianKind>(&laplacian, "laplacian")->default_value("combinatorial"),
       "embedding Laplacian: combinatorial (D - W) or normalized (I - D^-1/2 W D^-1/2)")
      ("eig-tol", po::value(&o.embedding_params.tol)->default_value(1e-8, "1e-8"),
       "embedding: relative residual tolerance of the eigenpairs");
  g.group("output", "Reports").add_options()
      ("json", po::value(&o.json), "also write the report as one JSON object to this file")
      ("predictions", po::value(&o.predictions),
       "with --labels: write label propagation's result to this HDF5 file: /predictions (the "
       "label of every node: given for known nodes, predicted otherwise, -1 when unreachable) "
       "and /known (1: label given)")
      ("quiet", flag(&quiet), "print nothing but errors");
  const Parsed p = parse(comm, args, g);
  if (p.help) {
    print_help(comm, g, p);
    return false;
  }
  lsgl::collectively(comm, [&] {
    apply_graph_input_args(input, o.input);
    o.embedding_params.kind = parse_choice<LaplacianKind>("laplacian", laplacian);
  });
  o.diameter = !no_diameter;
  o.configuration = effective_configuration(p.vm);
  return true;
}

}  // namespace

EvalOptions eval_options(MPI_Comm comm, const std::vector<std::string>& args) {
  refuse_help_and_config(comm, args);
  EvalOptions o;
  bool quiet = false;
  parse_eval(comm, args, o, quiet);
  return o;
}

int eval_command(MPI_Comm comm, const std::vector<std::string>& args,
                 const std::string& command_line) {
  EvalOptions o;
  bool quiet = false;
  if (!parse_eval(comm, args, o, quiet)) return 0;
  o.command_line = command_line;
  run_eval(comm, o, *make_printing_monitor(comm, quiet ? Verbosity::kNothing : Verbosity::kAll));
  return 0;
}

}  // namespace lsgl::cli
