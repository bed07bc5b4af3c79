#pragma once
// Reading a graph for `lsgl densest` (and other graph consumers) in any of three formats into
// LocalCsr: each rank its block of rows (lsgl::Partition), columns sorted, symmetric.
//
//  - hdf5:     our graph file (/graph/indptr, /graph/indices, /graph/data; the output of
//              `lsgl learn` or `lsgl generate --kind powerlaw-graph`). Each rank reads its rows.
//  - edgelist: SNAP style text, one edge per line "u v" or "u v w" (whitespace or commas
//              between fields), lines starting with '#' or '%' are comments. Node ids are used
//              as given (0-based); n = largest id + 1. Optionally gzip-compressed.
//  - mtx:      Matrix Market coordinate format (real, integer or pattern; general or
//              symmetric), 1-based indices; node id = index - 1. Optionally gzip-compressed.
// The format is detected from the file's first bytes (HDF5 signature, gzip magic, a
// "%%MatrixMarket" first line) unless given.
//
// Text files are parsed in parallel: an uncompressed file is split into byte ranges, one per
// rank (a line belongs to the rank whose range holds its first byte); a gzip file is
// decompressed by every rank, which parses every P-th block of about 8 MB of lines.
//
// Normalisation, the same for every format: self-loops and zero weights are dropped; repeated
// entries (i, j) are merged by the duplicate rule (sum: parallel edges add up, the default; or
// max); then W_ij = W_ji = max(a_ij, a_ji), where a_ij is the merged weight listed as (i, j)
// (0 when absent). So an edge listed once counts as undirected, and a file that lists both
// directions with equal weights is read unchanged. Pairs listed in one direction only or with
// two different weights are counted and reported (GraphInputReport::note()). Negative, NaN or
// infinite weights, malformed lines, out-of-range ids and unreadable files raise
// CollectiveError on every rank with the file name and line.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lsgl/graph/graph_io.hpp"
#include "lsgl/graph/text_graph.hpp"

namespace lsgl {

enum class DuplicateRule { kSum, kMax };

struct GraphInputOptions {
  std::string format = "auto";  // auto | hdf5 | edgelist | mtx
  DuplicateRule duplicates = DuplicateRule::kSum;
};

// What reading found; identical on every rank.
struct GraphInputReport {
  std::string format;                // hdf5, edgelist, edgelist.gz, mtx, mtx.gz
  std::int64_t n = 0;
  std::int64_t entries = 0;          // directed entries read (text lines or stored entries)
  std::int64_t self_loops = 0;       // dropped
  std::int64_t zero_weights = 0;     // dropped
  std::int64_t duplicates = 0;       // repeated (i, j) entries merged by the duplicate rule
  std::int64_t one_direction = 0;    // pairs listed as (i, j) but not as (j, i)
  std::int64_t unequal = 0;          // pairs listed both ways with different weights
  std::int64_t edges = 0;            // undirected edges of the result
  bool declared_symmetric = false;   // Matrix Market "symmetric" (one triangle stored)
  bool weighted = false;             // some weight differs from 1
  bool symmetric() const { return one_direction == 0 && unequal == 0; }
  // One line about asymmetry, self-loops and duplicates; empty when there is nothing to say.
  std::string note() const;
};

// Collective. Reads `path` (see above). `report` may be null.
LocalCsr read_graph_input(MPI_Comm comm, const std::string& path, const GraphInputOptions& opt,
                          GraphInputReport* report);

// Collective. The symmetric rows built from directed entries given on any rank (ids in
// [0, n), weights finite and >= 0; see the normalisation above). Counts go to `report`
// (entries, self_loops, zero_weights, duplicates, one_direction, unequal, edges, weighted).
LocalCsr symmetrize_entries(MPI_Comm comm, std::int64_t n, std::vector<DirectedEntry> entries,
                            DuplicateRule rule, GraphInputReport* report);

// Collective. Checks rows read from an HDF5 graph (ids in range, weights finite and >= 0) and
// returns them unchanged when they are already symmetric with sorted columns, no self-loops and
// no zeros; otherwise normalises them like any other input.
LocalCsr normalize_rows(MPI_Comm comm, LocalCsr rows, DuplicateRule rule,
                        GraphInputReport* report);

}  // namespace lsgl
