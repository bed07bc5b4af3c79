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
// Weights are written as the shortest decimal text that reads back to the same double.
#include <mpi.h>

#include <string>

#include "lsgl/graph/graph_io.hpp"

namespace lsgl {

// Collective. Writes `m` to `path` as "mtx", "edgelist" or "npz" (see above).
void write_graph_mtx(MPI_Comm comm, const std::string& path, const LocalCsr& m);
void write_graph_edgelist(MPI_Comm comm, const std::string& path, const LocalCsr& m);
void write_graph_npz(MPI_Comm comm, const std::string& path, const LocalCsr& m);

}  // namespace lsgl
