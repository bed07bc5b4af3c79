#pragma once
// Writing a graph (this rank's rows of the symmetric W, lsgl::Partition blocks) in the formats
// other tools load. Every writer is collective, writes through write_atomically (nothing is left
// at `path` on failure) and writes in parallel: each rank formats its own rows and writes them at
// its offset (MPI-IO), so no rank holds more than its rows.
//
//  - mtx:      Matrix Market "coordinate real symmetric": the size line "n n nnz" and the lower
//              triangle (i >= j), 1-based "i j w" lines. scipy.io.mmread, R Matrix::readMM,
//              Matlab's mmread, and lsgl's own readers load it; n survives isolated last nodes.
//  - edgelist: one undirected edge per line "u v w" with u < v, 0-based ids, after '#' comment
//              lines giving n and the number of edges (networkx.read_weighted_edgelist, igraph,
//              lsgl's readers). n is not kept when the last nodes have no edge.
//  - npz:      what scipy.sparse.save_npz writes for a CSR matrix (uncompressed): a ZIP64
//              archive of indices.npy, indptr.npy (int64), data.npy (float64), format.npy
//              (b'csr') and shape.npy; scipy.sparse.load_npz reads it.
// Weights are written as the shortest decimal text that reads back to the same double. A name
// ending in .gz writes mtx and edgelist gzip-compressed: each rank compresses its rows into one
// gzip member and the members follow in rank order (one valid .gz file; the text inside is the
// same on any number of ranks).
#include <mpi.h>

#include <string>

#include "lsgl/graph/graph_io.hpp"
#include "lsgl/io/output_format.hpp"

namespace lsgl {

// Collective. Writes `m` to `path` as "mtx", "edgelist" or "npz" (see above).
void write_graph_mtx(MPI_Comm comm, const std::string& path, const LocalCsr& m);
void write_graph_edgelist(MPI_Comm comm, const std::string& path, const LocalCsr& m);
void write_graph_npz(MPI_Comm comm, const std::string& path, const LocalCsr& m);

// Local. The format a graph output's name asks for: .h5/.hdf5 (lsgl's graph), .npz, .mtx or an
// edge list (.txt, .edges, .edgelist, .tsv), the last two also with .gz; any other name throws
// std::invalid_argument naming `option` (output_format). Commands call it before their work, so a bad name costs nothing.
OutputFormat graph_output_format(const std::string& option, const std::string& path);

// Collective. Writes `m` in the format `path` asks for (graph_output_format): HDF5 through
// write_graph with the attributes and the distances, the other formats through the writers above
// (which keep the matrix only: the attributes and distances are lost, as in `lsgl convert`).
void write_graph_file(MPI_Comm comm, const std::string& path, const LocalCsr& m,
                      const Attributes& graph_attrs, const Attributes& file_attrs,
                      const EdgeDistances* distances = nullptr);

}  // namespace lsgl
