#pragma once
// Rows of a row-distributed graph (LocalCsr, contiguous blocks in node order) regrouped so that
// every rank holds about the same work: stored entries plus rows. With heavy-tailed degrees a
// block of equal row counts can hold most of the entries (a generator that numbers the hubs first
// gives rank 0 82% of them on 2 ranks); the densest methods' memory and time follow the entries.
// The blocks stay contiguous and in node order, so global ids do not change.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "lsgl/graph/local_csr.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl {

// How a reader distributes rows: equal row counts (lsgl::Partition), or blocks of equal work
// (balanced_starts).
enum class RowBlocks { kEqual, kBalanced };

// Collective. The starts (size + 1 entries) of the blocks of equal work: block p starts at the
// first row whose rows before it hold at least p/size of all entries plus rows. Depends only on
// the matrix, not on how its rows are distributed now. Only m.n, m.begin and m.indptr are read
// (indptr may hold file offsets: only differences count), so a reader can place its blocks from
// the row pointers before it reads any entry.
std::vector<std::int64_t> balanced_starts(MPI_Comm comm, const LocalCsr& m);

// Collective. The rows of `m` moved to the blocks of balanced_starts (one all-to-all per array;
// each array of `m` is freed once packed, so a rank holds at most its old rows plus one array in
// transit). Returns this rank's new block; `m` itself (nothing sent) when its blocks are the
// balanced ones already.
LocalCsr balance_rows(MPI_Comm comm, LocalCsr m);

}  // namespace lsgl
