#pragma once
// The core graph type: one rank's block of rows of a symmetric sparse matrix W (rows in the node
// blocks of lsgl::Partition). Standard headers only, so that any layer can hold a graph without
// pulling in MPI, HDF5 or PETSc. Everything here is local.
#include <cstdint>
#include <vector>

namespace lsgl {

// This rank's rows of a symmetric sparse matrix, column indices sorted per row.
struct LocalCsr {
  std::int64_t n = 0;      // global number of rows (= columns)
  std::int64_t begin = 0;  // global index of the first local row
  std::vector<std::int64_t> indptr{0};  // local_rows + 1, starting at 0
  std::vector<std::int64_t> indices;    // global column indices
  std::vector<double> data;
  std::int64_t local_rows() const { return static_cast<std::int64_t>(indptr.size()) - 1; }
};

}  // namespace lsgl
