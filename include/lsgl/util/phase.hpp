#pragma once
// Named, timed phases of a pipeline and the UTC time stamp stored in outputs.
#include <mpi.h>

#include <string>

#include "lsgl/util/monitor.hpp"
#include "lsgl/util/mpi.hpp"
#include "lsgl/util/petsc.hpp"

namespace lsgl {

// Collective. Runs fn() on every rank inside a PETSc log stage called `name` (shown by
// -log_view), with a barrier before and after; reports the wall time and the peak memory so far
// (the largest of any rank: the phase that raises it sets the run's peak) to `monitor` and
// returns the time.
template <class Fn>
double timed_phase(MPI_Comm comm, const char* name, Monitor& monitor, Fn&& fn) {
  LogStage stage(name);
  MPI_Barrier(comm);
  const double t0 = MPI_Wtime();
  fn();
  MPI_Barrier(comm);
  const double dt = MPI_Wtime() - t0;
  monitor.phase({name, dt, allreduce_max(comm, peak_rss_bytes())});
  return dt;
}

// The current UTC time as 2026-01-31T12:00:00Z. Local.
std::string utc_now();

}  // namespace lsgl
