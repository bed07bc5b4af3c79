#pragma once
// Samples (rows) of the hashing problems, partitioned across ranks in whole chunks of `chunk`
// consecutive global rows. Every sum over samples is formed chunk by chunk (with BLAS inside a
// chunk) and the chunk results are added in fixed point, so sums, the models built from them
// and the codes do not depend on the number of ranks.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lsgl/io/dataset.hpp"
#include "lsgl/util/dense.hpp"

namespace lsgl::hash {

// Rank p holds the chunks of block p of Partition(#chunks, size): rows [begin(p), end(p)).
struct SampleBlocks {
  std::int64_t n = 0;
  std::int64_t chunk = 1024;
  int size = 1;
  std::int64_t begin(int rank) const;
  std::int64_t end(int rank) const;
};

// Collective. Moves rows (each `width` values of T) from the row partition Partition(n, size),
// where this rank holds the `count` values at `local` starting at global row `from_begin`, to
// the sample blocks.
template <class T>
std::vector<T> to_sample_blocks(MPI_Comm comm, const T* local, std::size_t count,
                                std::int64_t from_begin, std::int64_t width,
                                const SampleBlocks& blocks);

// Collective. LocalRows redistributed to the sample blocks (begin = blocks.begin(rank)).
LocalRows to_sample_blocks(MPI_Comm comm, const LocalRows& rows, const SampleBlocks& blocks);

// Collective. sum over all samples i of a_i^T b_i (a: local x p, b: local x q, row-major, this
// rank's rows of its sample block): a p x q matrix, identical on every rank and independent of
// the number of ranks. When a == b and p == q, only one triangle is computed (SYRK).
Mat sample_cross(MPI_Comm comm, const SampleBlocks& blocks, const double* a, std::int64_t p,
                 const double* b, std::int64_t q, std::int64_t local_rows);

// Collective. sum over all samples i of a_i (a: local x p): p column sums, reproducible as above.
std::vector<double> sample_column_sums(MPI_Comm comm, const SampleBlocks& blocks,
                                       const double* a, std::int64_t p, std::int64_t local_rows);

}  // namespace lsgl::hash
