#pragma once
// `lsgl convert`: read a graph in any input format of graph_input.hpp -> write it in a format
// other tools load (graph_export.hpp) or as lsgl's HDF5 graph; a summary line.
#include <mpi.h>

#include <optional>
#include <string>

#include "lsgl/graph/graph_input.hpp"
#include "lsgl/util/monitor.hpp"
#include "lsgl/util/names.hpp"

namespace lsgl {

// --to: Matrix Market, an edge list, scipy's .npz or lsgl's HDF5 graph.
enum class ExportFormat { kMtx, kEdgeList, kNpz, kHdf5 };
inline constexpr Named<ExportFormat> kExportFormatNames[] = {{ExportFormat::kMtx, "mtx"},
                                                             {ExportFormat::kEdgeList, "edgelist"},
                                                             {ExportFormat::kNpz, "npz"},
                                                             {ExportFormat::kHdf5, "hdf5"}};
constexpr const auto& names(ExportFormat) { return kExportFormatNames; }

struct ConvertOptions {
  std::string graph;             // input graph
  GraphInputOptions input;
  std::string output;
  std::optional<ExportFormat> to;  // none: from the output's name
  std::string command_line;
  std::string configuration;
};

// Local. The output format `output`'s name asks for (graph_output_format: .mtx, .npz, .h5/.hdf5,
// .txt/.edges/.edgelist/.tsv), which `to` must agree with when given; `to` alone decides for a
// name without a graph extension (not for .gz). Throws std::invalid_argument otherwise.
ExportFormat convert_target(std::optional<ExportFormat> to, const std::string& output);

// Collective. Reads the graph, writes it (atomically), returns the input report; the phases, a
// note on the input and the summary line go to `monitor`. Throws CollectiveError on bad input,
// an output name that tells no format, or an unwritable output.
GraphInputReport run_convert(MPI_Comm comm, const ConvertOptions& o,
                             Monitor& monitor = null_monitor());

}  // namespace lsgl
