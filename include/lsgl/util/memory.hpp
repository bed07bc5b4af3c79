#pragma once
// Allocations sized from input files or options, checked before they are made.
#include <mpi.h>

#include <cstdint>
#include <string>

namespace lsgl {

// Local. Physical memory of this machine in bytes.
std::int64_t physical_memory_bytes();

// Collective. The ranks of `comm` that share this rank's node (MPI_COMM_TYPE_SHARED), and the
// sum of their `bytes` (+Inf when any is negative or NaN: an overflowed size).
struct NodeShare {
  int ranks = 1;
  double bytes = 0;
};
NodeShare node_share(MPI_Comm comm, double bytes);

// Collective. Throws CollectiveError on every rank, with one message naming `what` and the
// sizes, when on some node the ranks' `bytes` (what each rank will allocate; a double, so that
// products of large sizes do not overflow) add up to more than that node's physical memory.
void check_allocation(MPI_Comm comm, double bytes, const std::string& what);

}  // namespace lsgl
