// A graph written in the format its file name asks for (see graph_export.hpp).
#include "lsgl/graph/graph_export.hpp"

namespace lsgl {

OutputFormat graph_output_format(const std::string& option, const std::string& path) {
  return output_format(option, path,
                       {OutputFormat::kHdf5, OutputFormat::kNpz, OutputFormat::kMtx,
                        OutputFormat::kEdgeList});
}

void write_graph_file(MPI_Comm comm, const std::string& path, const LocalCsr& m,
                      const Attributes& graph_attrs, const Attributes& file_attrs,
                      const EdgeDistances* distances) {
  switch (graph_output_format("--output", path)) {
    case OutputFormat::kNpz: write_graph_npz(comm, path, m); return;
    case OutputFormat::kMtx: write_graph_mtx(comm, path, m); return;
    case OutputFormat::kEdgeList: write_graph_edgelist(comm, path, m); return;
    default: write_graph(comm, path, m, graph_attrs, file_attrs, distances); return;
  }
}

}  // namespace lsgl
