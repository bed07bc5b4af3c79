#pragma once
// The options of the graph reader (lsgl/graph/graph_input.hpp), the same in every command that
// reads a graph: --graph, --graph-format (formerly --format), --duplicates, --symmetry and
// --renumber.
#include <string>

#include "lsgl/graph/graph_input.hpp"
#include "options.hpp"

namespace lsgl::cli {

// The option values that are parsed after the command line is read.
struct GraphInputArgs {
  std::string format;      // --graph-format
  std::string old_format;  // --format, its former name
  std::string duplicates;
  std::string symmetry;
};

// Local. Adds --graph (into graph), --renumber (into input), --graph-format (and its former
// name --format), --duplicates and --symmetry (into args) to `desc`; the default of --symmetry is the command's policy,
// `input.symmetry`.
void add_graph_input_options(po::options_description& desc, std::string& graph,
                             GraphInputOptions& input, GraphInputArgs& args);

// Local. Sets input.format, input.duplicates and input.symmetry from args; std::invalid_argument
// on an unknown name or --format and --graph-format that differ (call inside
// lsgl::collectively).
void apply_graph_input_args(const GraphInputArgs& args, GraphInputOptions& input);

}  // namespace lsgl::cli
