#pragma once
// The `require` policy of graph_input.hpp for rows stored as a matrix (our HDF5 graph): the rows
// must already be W, sorted and symmetric; nothing is repaired except that self-loops and stored
// zeros are dropped. The eval measures all work on such a cleaned graph: no self loops, no
// stored zeros, columns sorted, W symmetric.
#include <mpi.h>

#include <cstdint>
#include <string>

#include "lsgl/graph/local_csr.hpp"

namespace lsgl {

struct GraphCleaning {
  std::int64_t self_loops = 0;  // diagonal entries dropped
  std::int64_t zeros = 0;       // stored zero weights dropped
};

// Collective. Checks `m` and makes it the cleaned graph: throws CollectiveError on every rank
// (one line naming the first offending row, 0-based) when a column index is outside [0, n),
// columns are not strictly increasing in a row, a weight is negative, NaN or Inf, or W is not
// symmetric (W[j][i] must equal W[i][j] exactly; the check sends every off-rank entry to the
// owner of its column once). Self loops and zero weights are removed and counted. `what` names
// the graph in messages (e.g. the file name).
GraphCleaning check_and_clean_graph(MPI_Comm comm, LocalCsr& m, const std::string& what);

}  // namespace lsgl
