// The graph reader: format detection, dispatch to the HDF5 or text reader, and the symmetry
// policy (see graph_input.hpp).
#include "lsgl/graph/graph_input.hpp"

#include <utility>

#include "lsgl/graph/graph_io.hpp"
#include "lsgl/graph/symmetry_check.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"
#include "npz_graph.hpp"
#include "text_graph_file.hpp"

namespace lsgl {

namespace {

// The format agreed by every rank; the head is read on rank 0 only.
struct Detected {
  GraphFormat kind = GraphFormat::kAuto;
  bool gz = false;
  bool guessed_edgelist = false;  // --format auto found neither HDF5 nor Matrix Market
  FileHead head;
};

// Local. Why the head of a file given as a text graph shows another kind of file (a NumPy
// array, a ZIP such as scipy's .npz), with what to do instead; empty when it may be a graph.
std::string not_a_text_graph(const std::string& path, const std::string& head) {
  if (head.rfind("\x93NUMPY", 0) == 0)
    return "'" + path + "' is a NumPy array, not a graph (lsgl reads graphs as its HDF5, edge " +
           "lists or Matrix Market): learn a graph from data with `lsgl learn --input " + path +
           "`";
  if (head.rfind("PK\x03\x04", 0) == 0)
    return "'" + path + "' is a ZIP archive (a scipy .npz?), not a text graph: read it with " +
           "--graph-format npz or auto";
  return "";
}

// Collective. Rank 0 reads the head of `path` and picks the format (`format` or, for auto, from
// the head); every rank learns it.
Detected detect(MPI_Comm comm, const std::string& path, GraphFormat format) {
  Detected d;
  std::string message;
  if (comm_rank(comm) == 0) {
    d.head = read_file_head(path, 1 << 20);
    if (!d.head.error.empty()) {
      message = "cannot read graph '" + path + "': " + d.head.error;
    } else {
      // A first line of '%' naming MatrixMarket is a banner (a misspelt one is an error),
      // never a comment.
      const bool looks_mtx = names_matrix_market(d.head.text);
      const bool zip = !d.head.gz && d.head.text.rfind("PK\x03\x04", 0) == 0;
      d.kind = format;
      if (format == GraphFormat::kAuto)
        d.kind = d.head.hdf5 ? GraphFormat::kHdf5
                 : zip       ? GraphFormat::kNpz
                 : looks_mtx ? GraphFormat::kMtx
                             : GraphFormat::kEdgeList;
      if (d.kind == GraphFormat::kNpz && !zip)
        message = "'" + path + "' is not a ZIP archive, so not a scipy .npz";
      if (d.kind == GraphFormat::kEdgeList && looks_mtx)
        message = "'" + path + "' starts with a Matrix Market banner, not an edge list (read it "
                  "with --format mtx or auto)";
      if (message.empty() && d.kind == GraphFormat::kHdf5 && !d.head.hdf5)
        message = "'" + path + "' is not an HDF5 file";
      if (message.empty() && d.kind != GraphFormat::kHdf5 && d.head.hdf5)
        message = "'" + path + "' is an HDF5 file, not a text graph";
      d.gz = d.head.gz;
      if (message.empty() && d.kind != GraphFormat::kHdf5 && d.kind != GraphFormat::kNpz)
        message = not_a_text_graph(path, d.head.text);
    }
  }
  collective_check(comm, message.empty(), message);
  int info[2] = {static_cast<int>(d.kind), d.gz ? 1 : 0};
  MPI_Bcast(info, 2, MPI_INT, 0, comm);
  d.kind = static_cast<GraphFormat>(info[0]);
  d.gz = info[1] != 0;
  d.guessed_edgelist = format == GraphFormat::kAuto && d.kind == GraphFormat::kEdgeList;
  return d;
}

// Collective. Our HDF5 graph under the policy.
LocalCsr read_hdf5_graph(MPI_Comm comm, const std::string& path, const GraphInputOptions& opt,
                         GraphInputReport& rep) {
  LocalCsr rows = read_graph(comm, path, opt.blocks);
  if (opt.symmetry == SymmetryPolicy::kSymmetrise)
    return normalize_rows(comm, std::move(rows), opt.duplicates, &rep);
  rep.entries = allreduce_sum(comm, static_cast<std::int64_t>(rows.indices.size()));
  const GraphCleaning c = check_and_clean_graph(comm, rows, path);
  rep.n = rows.n;
  rep.self_loops = c.self_loops;
  rep.zero_weights = c.zeros;
  rep.edges = allreduce_sum(comm, static_cast<std::int64_t>(rows.indices.size())) / 2;
  std::int64_t weighted = 0;
  for (const double w : rows.data)
    if (w != 1.0) weighted = 1;
  rep.weighted = allreduce_max(comm, weighted) != 0;
  return rows;
}

// Collective. The symmetry policy's check of entries read from a file that lists edges.
void require_symmetric(MPI_Comm comm, const std::string& path, const GraphInputOptions& opt,
                       const GraphInputReport& rep) {
  collective_check(comm, opt.symmetry == SymmetryPolicy::kSymmetrise || rep.unequal == 0,
                   "'" + path + "' is not symmetric: " + std::to_string(rep.unequal) +
                       (rep.unequal == 1 ? " pair is" : " pairs are") +
                       " listed in both directions with different weights, first " +
                       rep.first_unequal + " (--symmetry symmetrise takes the larger)");
}

// Collective. A scipy .npz under the policy (its entries as those of a Matrix Market file).
LocalCsr read_npz_graph(MPI_Comm comm, const std::string& path, const GraphInputOptions& opt,
                        GraphInputReport& rep) {
  collective_check(comm, !opt.renumber,
                   "--renumber is for edge lists with named ids; '" + path +
                       "' is a scipy matrix, whose nodes are 0..n-1 already");
  std::int64_t n = 0;
  std::vector<DirectedEntry> entries = read_npz_entries(comm, path, &n);
  LocalCsr rows = symmetrize_entries(comm, n, std::move(entries), opt.duplicates, &rep);
  require_symmetric(comm, path, opt, rep);
  rep.format = "npz";
  return rows;
}

// Collective. An edge list or Matrix Market file under the policy.
LocalCsr read_text_graph(MPI_Comm comm, const std::string& path, const Detected& d,
                         const GraphInputOptions& opt, GraphInputReport& rep,
                         std::vector<std::string>* node_names) {
  const bool mtx = d.kind == GraphFormat::kMtx;
  collective_check(comm, !mtx || !opt.renumber,
                   "--renumber is for edge lists with named ids; '" + path +
                       "' is a Matrix Market file, whose indices are 1..n already");
  const std::string hint =
      d.guessed_edgelist ? " (not an HDF5 file nor Matrix Market, so read as an edge list)" : "";
  TextEntries text = read_text_entries(comm, path, d.head, mtx, d.gz, opt.renumber, hint);
  LocalCsr rows =
      symmetrize_entries(comm, text.n, std::move(text.entries), opt.duplicates, &rep);
  rep.declared_symmetric = text.declared_symmetric;
  rep.header = text.header;
  rep.renumbered = opt.renumber;
  if (node_names) *node_names = std::move(text.renumbering.names);
  require_symmetric(comm, path, opt, rep);
  rep.format = std::string(mtx ? "mtx" : "edgelist") + (d.gz ? ".gz" : "");
  return rows;
}

}  // namespace

LocalCsr read_graph_input(MPI_Comm comm, const std::string& path, const GraphInputOptions& opt,
                          GraphInputReport* report, std::vector<std::string>* node_names) {
  const Detected d = detect(comm, path, opt.format);
  GraphInputReport rep;
  LocalCsr rows;
  if (d.kind == GraphFormat::kHdf5) {
    collective_check(comm, !opt.renumber,
                     "--renumber is for edge lists with named ids; '" + path +
                         "' is an HDF5 graph, whose nodes are 0..n-1 already");
    rows = read_hdf5_graph(comm, path, opt, rep);
    rep.format = "hdf5";
  } else if (d.kind == GraphFormat::kNpz) {
    rows = read_npz_graph(comm, path, opt, rep);
  } else {
    rows = read_text_graph(comm, path, d, opt, rep, node_names);
  }
  // A no-op for a clean HDF5 graph (read in these blocks); names stay where they are (they are
  // written in rank order).
  if (opt.blocks == RowBlocks::kBalanced) rows = balance_rows(comm, std::move(rows));
  if (report) *report = rep;
  return rows;
}

}  // namespace lsgl
