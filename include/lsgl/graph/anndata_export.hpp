#pragma once
// A learned graph added to an AnnData file (.h5ad) the way scanpy's pp.neighbors leaves it, so
// that scanpy and squidpy (umap, leiden, ...) use it directly:
//  - obsp/<connectivities> (the weights) and obsp/<distances> (metric distances, the same
//    pattern) as CSR groups in the layout anndata writes: attributes encoding-type
//    "csr_matrix", encoding-version "0.1.0", shape [n, n]; datasets data (float64), indices and
//    indptr (int64);
//  - uns/<key>: a dict (encoding-type "dict") with the strings connectivities_key and
//    distances_key and the dict params (n_neighbors, method, metric, ...).
// The rows are the file's observations in their order (the graph's nodes are the rows of a
// matrix of this file: obsm/X_pca, X, ...).
#include <mpi.h>

#include <cstdint>
#include <string>

#include "lsgl/graph/graph_io.hpp"
#include "lsgl/io/attributes.hpp"

namespace lsgl {

// The names scanpy uses for key_added: "" -> uns "neighbors", obsp "connectivities" and
// "distances"; a key K -> uns K, obsp "K_connectivities" and "K_distances".
struct NeighborsKeys {
  std::string uns, connectivities, distances;
};
NeighborsKeys neighbors_keys(const std::string& key_added);

// Collective. The number of observations of the AnnData file `path` (the length of the obs
// index); CollectiveError naming the file when it is not an AnnData file.
std::int64_t anndata_obs_count(MPI_Comm comm, const std::string& path);

// Collective. Writes to `output` a copy of the AnnData file `input` holding this rank's rows of
// the graph `w` (Partition blocks of n = the number of observations) with their `distances` in
// obsp, and uns[keys.uns] with `params` (rank 0's values); entries of these names in the input
// are replaced in the copy. Atomic (util/atomic_file.hpp): the copy is made and completed at a
// temporary name and renamed onto `output` on success, so `output` may name `input` (replaced
// only by a complete file).
void write_anndata_neighbors(MPI_Comm comm, const std::string& input, const std::string& output,
                             const LocalCsr& w, const EdgeDistances& distances,
                             const NeighborsKeys& keys, const Attributes& params);

}  // namespace lsgl
