#pragma once
// The one graph reader of every command that reads a graph (`lsgl densest`, `lsgl eval`): any of
// four formats into LocalCsr, each rank its block of rows (lsgl::Partition), columns sorted,
// symmetric.
//
//  - hdf5:     our graph file (/graph/indptr, /graph/indices, /graph/data; the output of
//              `lsgl learn` or `lsgl generate --kind powerlaw-graph`). Each rank reads its rows.
//  - edgelist: SNAP style text, one edge per line "u v" or "u v w" (whitespace or commas
//              between fields), lines starting with '#' or '%' are comments, a first line
//              such as "source,target,weight" is a header (skipped). Node ids are used as given
//              (0-based; n = largest id + 1) or, with `renumber`, are names numbered densely.
//              Optionally gzip-compressed.
//  - mtx:      Matrix Market coordinate format (real, integer or pattern; general or
//              symmetric), 1-based indices; node id = index - 1. Optionally gzip-compressed.
//  - npz:      a scipy sparse matrix written by scipy.sparse.save_npz (csr, csc or coo, stored
//              or compressed ZIP members; src/graph/npz_graph.hpp), each rank reading its slice;
//              its entries are read as those of a Matrix Market "general" file.
// The format is detected from the file's first bytes (HDF5 signature, ZIP signature, gzip magic,
// a first line of '%' naming MatrixMarket: names_matrix_market) unless given; a misspelt banner
// is refused.
// Text files are parsed in parallel (src/graph/text_graph_file.hpp).
//
// The symmetry policy says what becomes of input that is not a symmetric W:
//  - symmetrise (the default of `lsgl densest`): the normalisation of symmetrize.hpp, the same
//    for every format; asymmetry is counted and reported (GraphInputReport::note()).
//  - require (the default of `lsgl eval`): nothing is repaired except that self-loops and zero
//    weights are dropped (and counted).
//      hdf5: the stored rows must already be W: columns strictly increasing, every (i, j, w)
//            mirrored by (j, i, w) (symmetry_check.hpp).
//      text, npz: an edge list, Matrix Market file or scipy matrix lists undirected edges, so an
//      entry listed in
//            one direction only is the undirected edge (as under symmetrise), and repeated
//            entries are merged by the duplicate rule. Refused: a pair listed in both
//            directions with different (merged) weights, which no undirected graph gives.
// Negative, NaN or infinite weights, malformed lines, out-of-range ids, refused asymmetry and
// unreadable files raise CollectiveError on every rank with the file name (and line or row).
#include <mpi.h>

#include <string>
#include <vector>

#include "lsgl/graph/balance.hpp"
#include "lsgl/graph/local_csr.hpp"
#include "lsgl/graph/symmetrize.hpp"
#include "lsgl/util/names.hpp"

namespace lsgl {

enum class SymmetryPolicy { kSymmetrise, kRequire };
inline constexpr Named<SymmetryPolicy> kSymmetryPolicyNames[] = {
    {SymmetryPolicy::kSymmetrise, "symmetrise"}, {SymmetryPolicy::kRequire, "require"}};
constexpr const auto& names(SymmetryPolicy) { return kSymmetryPolicyNames; }

// kAuto: from the file's first bytes.
enum class GraphFormat { kAuto, kHdf5, kEdgeList, kMtx, kNpz };
inline constexpr Named<GraphFormat> kGraphFormatNames[] = {{GraphFormat::kAuto, "auto"},
                                                           {GraphFormat::kHdf5, "hdf5"},
                                                           {GraphFormat::kEdgeList, "edgelist"},
                                                           {GraphFormat::kMtx, "mtx"},
                                                           {GraphFormat::kNpz, "npz"}};
constexpr const auto& names(GraphFormat) { return kGraphFormatNames; }

struct GraphInputOptions {
  GraphFormat format = GraphFormat::kAuto;
  DuplicateRule duplicates = DuplicateRule::kSum;
  SymmetryPolicy symmetry = SymmetryPolicy::kSymmetrise;
  // Edge lists: ids are names (any text without blanks or commas), numbered 0..n-1 in order of
  // first appearance in the file (renumber.hpp); refused for the other formats.
  bool renumber = false;
  // The rows' distribution over the ranks: kBalanced for `lsgl densest` (an HDF5 graph is read
  // in those blocks; the other formats' rows are moved to them after reading).
  RowBlocks blocks = RowBlocks::kEqual;
};

// Collective. Reads `path` (see above). `report` may be null; with opt.renumber, `node_names`
// (if not null) gets the names of this rank's block of Partition(n, ranks) (node_names[i]: node
// Partition(n, ranks).begin(rank) + i, the rows' own block with RowBlocks::kEqual).
LocalCsr read_graph_input(MPI_Comm comm, const std::string& path, const GraphInputOptions& opt,
                          GraphInputReport* report, std::vector<std::string>* node_names = nullptr);

}  // namespace lsgl
