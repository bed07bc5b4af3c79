// The graph reader's options (see graph_input_options.hpp).
#include "graph_input_options.hpp"

#include "lsgl/cli/choices.hpp"

namespace lsgl::cli {

void add_graph_input_options(po::options_description& desc, std::string& graph,
                             GraphInputOptions& input, GraphInputArgs& args) {
  desc.add_options()
      ("graph", po::value(&graph),
       "graph file: our HDF5 graph (output of 'lsgl learn'), a SNAP-style edge list 'u v [w]' "
       "('#' comments, an optional header line; ids used as given, 0-based, or names with "
       "--renumber), Matrix Market (.mtx; ids 1-based, reported 0-based) or a scipy sparse "
       ".npz (save_npz: csr, csc or coo); text may be gzipped")
      ("renumber", flag(&input.renumber),
       "edge list: read ids as names (any text, or integers of any size) and number them "
       "0..n-1 in order of first appearance; the names are written to OUTPUT.ids, line i+1 "
       "naming node i")
      ("graph-format", choice<GraphFormat>(&args.format, "graph-format")->default_value(to_string(input.format)),
       "format of --graph: auto (from the file's first bytes), hdf5, edgelist, mtx or npz")
      ("format", choice<GraphFormat>(&args.old_format, "format"), "former name of --graph-format")
      ("duplicates", choice<DuplicateRule>(&args.duplicates, "duplicates")->default_value("sum"),
       "repeated entries (i,j): sum (parallel edges add up) or max (an HDF5 graph read with "
       "--symmetry require refuses them)")
      ("symmetry", choice<SymmetryPolicy>(&args.symmetry, "symmetry")->default_value(to_string(input.symmetry)),
       "symmetrise (W_ij = max of the weights listed as (i,j) and (j,i); an edge listed once is "
       "undirected) or require (refuse an HDF5 graph that is not a symmetric W, and a text "
       "graph listing a pair both ways with different weights)");
}

void apply_graph_input_args(const GraphInputArgs& args, GraphInputOptions& input) {
  input.format = parse_choice<GraphFormat>("graph-format", args.format);
  if (!args.old_format.empty()) {
    const GraphFormat old = parse_choice<GraphFormat>("format", args.old_format);
    if (input.format != GraphFormat::kAuto && input.format != old)
      throw std::invalid_argument("--format (the former name of --graph-format) and "
                                  "--graph-format differ: give one");
    input.format = old;
  }
  input.duplicates = parse_choice<DuplicateRule>("duplicates", args.duplicates);
  input.symmetry = parse_choice<SymmetryPolicy>("symmetry", args.symmetry);
}

}  // namespace lsgl::cli
