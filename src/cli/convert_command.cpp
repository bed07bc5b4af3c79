// `lsgl convert`: options -> pipeline.
#include "commands_impl.hpp"
#include "graph_input_options.hpp"
#include "lsgl/cli/choices.hpp"
#include "lsgl/pipeline/convert.hpp"
#include "lsgl/util/error.hpp"
#include "options.hpp"
#include "printing_monitor.hpp"

namespace lsgl::cli {

int convert_command(MPI_Comm comm, const std::vector<std::string>& args,
                    const std::string& command_line) {
  ConvertOptions o;
  GraphInputArgs input;
  std::string to, old_to;
  bool quiet = false;
  OptionGroups g(
      "usage: [mpirun -n P] lsgl convert --graph G --output OUT\n"
      "       [--output-format mtx|edgelist|npz|hdf5]\n"
      "\nWrites a graph in a format R, Matlab, scipy, NetworkX or igraph loads "
      "(docs/convert.md).\n");
  add_graph_input_options(g.group("graph", "Graph"), o.graph, o.input, input);
  g.group("output", "Output").add_options()
      ("output", po::value(&o.output), "output file (written atomically)")
      ("output-format", choice<ExportFormat>(&to, "output-format"),
       "format of --output: mtx (Matrix Market, symmetric, 1-based), edgelist ('u v w', u < v, "
       "0-based), npz (scipy.sparse.save_npz layout) or hdf5 (lsgl's graph); default: from the "
       "output's extension (.mtx, .txt/.edges/.edgelist/.tsv, .npz, .h5; .mtx.gz and edge "
       "lists .gz are gzipped)")
      ("to", choice<ExportFormat>(&old_to, "to"), "former name of --output-format")
      ("quiet", flag(&quiet), "print only the summary line and errors");
  const Parsed p = parse(comm, args, g);
  if (p.help) {
    print_help(comm, g, p);
    return 0;
  }
  lsgl::collectively(comm, [&] {
    apply_graph_input_args(input, o.input);
    if (!to.empty()) o.to = parse_choice<ExportFormat>("output-format", to);
    if (!old_to.empty()) {
      const ExportFormat old = parse_choice<ExportFormat>("to", old_to);
      if (o.to && *o.to != old)
        throw std::invalid_argument("--to (the former name of --output-format) and "
                                    "--output-format differ: give one");
      o.to = old;
    }
  });
  o.command_line = command_line;
  o.configuration = effective_configuration(p.vm);
  run_convert(comm, o, *make_printing_monitor(comm, quiet ? Verbosity::kSummary : Verbosity::kAll));
  return 0;
}

}  // namespace lsgl::cli
