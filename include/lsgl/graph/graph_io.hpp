#pragma once
// The output contract: the full symmetric W in CSR in HDF5 (/graph/indptr int64 n+1,
// /graph/indices int64, /graph/data float64, /graph/degree float64 n), attributes of /graph
// describing the model and the run, file attributes describing the program and command line.
// Rows are distributed in the node blocks of lsgl::Partition.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lsgl/graph/balance.hpp"
#include "lsgl/graph/edgeset.hpp"
#include "lsgl/graph/local_csr.hpp"
#include "lsgl/io/attributes.hpp"
#include "lsgl/io/h5.hpp"
#include "lsgl/util/atomic_file.hpp"

namespace lsgl {

// Collective. The rows of W owned by this rank from one weight per local edge of `edges`:
// weights <= threshold are dropped, the rest multiplied by `scale`; both (i, j) and (j, i). With
// `input` (the input index of each local node of `edges`, a permutation over all ranks), rows
// and columns are the input indices, rows distributed by Partition(n, size) of those. With
// `distance` (an edge's distance from its z, called for the kept edges only) and `distances`,
// `distances` gets the kept edges' distances aligned with the returned data (same CSR pattern).
LocalCsr assemble_rows(const EdgeSet& edges, const std::vector<double>& w, double threshold,
                       double scale, const std::vector<std::int64_t>* input = nullptr,
                       const std::function<double(double z)>& distance = nullptr,
                       std::vector<double>* distances = nullptr);

// Each stored entry's distance between its two nodes, aligned with LocalCsr::data, and the
// metric they are measured in ("euclidean": ||x_i - x_j||, not squared; "cosine":
// 1 - cos(x_i, x_j)); written as /graph/distances with an attribute `metric`.
struct EdgeDistances {
  std::vector<double> values;
  std::string metric;
};

// Collective. Refuses (CollectiveError on every rank) distances that are not one finite value
// >= 0 per stored entry of `m`.
void check_distances(MPI_Comm comm, const LocalCsr& m, const EdgeDistances& d);

// Collective. This rank's slice of the global row pointer of `m` (its rows' starts offset by the
// entries of the ranks before it; the last rank also appends the total), with the offset of its
// first entry and the total number of stored entries.
struct GlobalIndptr {
  std::vector<std::int64_t> slice;
  std::int64_t nnz_offset = 0;
  std::int64_t nnz = 0;
};
GlobalIndptr global_indptr(MPI_Comm comm, const LocalCsr& m);

// Row sums of the local rows. Local.
std::vector<double> row_sums(const LocalCsr& m);

// Collective. Refuses (CollectiveError on every rank, naming the first offender) a graph with a
// NaN or infinite weight, degree or double attribute.
void check_finite_output(MPI_Comm comm, const LocalCsr& m, const std::vector<double>& degree,
                         const Attributes& attrs);

// Named local arrays for check_finite_values.
using FiniteArrays = std::vector<std::pair<std::string, const std::vector<double>*>>;

// Collective. Refuses (CollectiveError on every rank: "<what> not written: the value i of <name>
// on rank r is not finite (NaN or Inf)") output holding a NaN or infinite value in one of this
// rank's `arrays` or in a double attribute. For every HDF5 writer but write_graph.
void check_finite_values(MPI_Comm comm, const std::string& what, const FiniteArrays& arrays,
                         const Attributes& attrs);

// Collective. Writes the graph to `path` through a temporary file renamed on success; nothing is
// left at `path` or at the temporary name on failure. A non-finite value refuses the write
// (check_finite_output, check_distances). `graph_attrs` go on /graph, `file_attrs` on the root
// group; `distances`, when given, as /graph/distances (aligned with /graph/data).
void write_graph(MPI_Comm comm, const std::string& path, const LocalCsr& m,
                 const Attributes& graph_attrs, const Attributes& file_attrs,
                 const EdgeDistances* distances = nullptr);

// Collective. Reads the rows of this rank's block: lsgl::Partition over the file's n, or with
// RowBlocks::kBalanced the blocks of balanced_starts, placed from the row pointers before any
// entry is read (no entry is read twice or moved).
LocalCsr read_graph(MPI_Comm comm, const std::string& path, RowBlocks blocks = RowBlocks::kEqual);

}  // namespace lsgl
