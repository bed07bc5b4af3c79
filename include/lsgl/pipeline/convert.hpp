#pragma once
// `lsgl convert`: read a graph in any input format of graph_input.hpp -> write it in a format
// other tools load (graph_export.hpp) or as lsgl's HDF5 graph; a summary line on rank 0.
#include <mpi.h>

#include <string>

#include "lsgl/graph/graph_input.hpp"

namespace lsgl {

struct ConvertOptions {
  std::string graph;             // input graph
  GraphInputOptions input;
  std::string output;
  std::string to;                // mtx | edgelist | npz | hdf5; empty: from the output's name
  bool quiet = false;
  std::string command_line;
  std::string configuration;
};

// Local. The output format `output`'s name asks for (graph_output_format: .mtx, .npz, .h5/.hdf5,
// .txt/.edges/.edgelist/.tsv), which `to` must agree with when given; `to` alone decides for a
// name without a graph extension (not for .gz). Throws std::invalid_argument otherwise.
std::string convert_target(const std::string& to, const std::string& output);

// Collective. Reads the graph, writes it (atomically), returns the input report. Throws
// CollectiveError on bad input, an unknown format or an unwritable output.
GraphInputReport run_convert(MPI_Comm comm, const ConvertOptions& o);

}  // namespace lsgl
