#pragma once
// Private to src/graph: the start of a graph file (for format detection) and the parallel
// reading of a text graph file (edge list or Matrix Market, plain or gzip) into directed
// entries. The line parsers themselves are in lsgl/graph/text_graph.hpp.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lsgl/graph/renumber.hpp"
#include "lsgl/graph/text_graph.hpp"

namespace lsgl {

// The first bytes of a file (decompressing gzip).
struct FileHead {
  std::string error;  // why the file cannot be read; empty when it can
  bool gz = false;    // gzip magic
  bool hdf5 = false;  // HDF5 signature (at byte 0 or after a user block)
  std::string text;   // up to `limit` decompressed bytes (not read for HDF5)
};

// Local. Reads the head of `path`.
FileHead read_file_head(const std::string& path, std::size_t limit);

// Directed entries of a text graph, spread over the ranks.
struct TextEntries {
  std::vector<DirectedEntry> entries;  // this rank's share
  std::int64_t n = 0;                  // mtx: from the size line; edge list: largest id + 1
  bool declared_symmetric = false;     // mtx "symmetric"
  bool header = false;                 // edge list: a header line was skipped
  Renumbering renumbering;             // with `renumber`: the names of this rank's ids
};

// Collective. Reads the text graph `path` (Matrix Market when mtx, gzip when gz) in parallel:
// an uncompressed file is split into byte ranges, one per rank (a line belongs to the rank
// whose range holds its first byte); a gzip file is decompressed by every rank, which parses
// every P-th block of about 8 MB of lines. `head` is the file's head on rank 0 (for the Matrix
// Market header). Unreadable files, malformed lines (messages end with `hint`), a wrong entry
// count and files without edges raise CollectiveError on every rank. An edge list's header line
// (is_edge_list_header) is skipped. With `renumber` (edge lists only) the ids are names,
// numbered densely in order of first appearance (renumber.hpp); without it, ids far beyond the
// number of edges are refused with a hint to --renumber.
TextEntries read_text_entries(MPI_Comm comm, const std::string& path, const FileHead& head,
                              bool mtx, bool gz, bool renumber, const std::string& hint);

}  // namespace lsgl
