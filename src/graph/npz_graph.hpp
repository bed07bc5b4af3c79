#pragma once
// Private to src/graph: a scipy sparse matrix saved by scipy.sparse.save_npz (csr, csc or coo;
// numpy.savez or savez_compressed, so stored or deflated members) read in parallel from the ZIP
// archive (lsgl/io/zip_archive.hpp). Each rank reads only its slice of the arrays: the indptr of
// its block of rows (csr) or columns (csc) and their entries, or its block of the entries (coo).
// Index arrays may be int32 or int64, values float32, float64 or integers (0/1 graphs).
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lsgl/graph/local_csr.hpp"
#include "lsgl/graph/text_graph.hpp"

namespace lsgl {

// Collective. Whether the ZIP archive `path` holds a scipy sparse matrix and which layout:
// "csr", "csc" or "coo". Anything else (an .npz of dense arrays, another sparse format, a
// truncated archive, a non-square matrix) raises CollectiveError on every rank, saying what
// the file holds and what lsgl wants.
std::string npz_layout(MPI_Comm comm, const std::string& path);

// Collective. The matrix as directed entries (row, column, value), each rank a share; `n` gets
// the matrix's size. Ids out of range and negative, NaN or infinite values raise CollectiveError.
std::vector<DirectedEntry> read_npz_entries(MPI_Comm comm, const std::string& path,
                                            std::int64_t* n);

// Collective. This rank's block of rows (lsgl::Partition) of a csr matrix, as stored (columns
// in the file's order, values unchecked); csc and coo are refused with the fix (W.tocsr()).
LocalCsr read_npz_rows(MPI_Comm comm, const std::string& path);

}  // namespace lsgl
