#pragma once
// Allocations sized from input files, checked before they are made.
#include <mpi.h>

#include <cstdint>
#include <string>

namespace lsgl {

// Local. Physical memory of this machine in bytes.
std::int64_t physical_memory_bytes();

// Collective. Throws CollectiveError on every rank, with one message naming `what` and the
// sizes, when any rank's `bytes` exceed the physical memory of its machine (or are negative:
// an overflowed size).
void check_allocation(MPI_Comm comm, std::int64_t bytes, const std::string& what);

}  // namespace lsgl
