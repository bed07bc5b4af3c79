#pragma once
// Threads per rank against the CPUs the launcher lets each rank use.
#include <mpi.h>

#include "lsgl/util/monitor.hpp"

namespace lsgl {

// Local. CPUs this process may run on (its affinity mask), at least 1.
int cpus_available();

// Collective. When `threads` exceeds the CPUs of some rank (mpirun binds each rank to one core
// by default), tells `monitor` a warning naming the launcher options that give each rank its
// CPUs. Returns the smallest CPU count over the ranks.
int check_threads_fit(MPI_Comm comm, int threads, Monitor& monitor);

}  // namespace lsgl
