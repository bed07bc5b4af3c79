#pragma once
// Threads per rank against the CPUs the launcher lets each rank use, and the scope of a
// process-wide thread setting.
#include <mpi.h>

#include "lsgl/util/monitor.hpp"

namespace lsgl {

// Local. CPUs this process may run on (its affinity mask), at least 1.
int cpus_available();

// Collective. When `threads` exceeds the CPUs of some rank (mpirun binds each rank to one core
// by default), tells `monitor` a warning naming the launcher options that give each rank its
// CPUs. Returns the smallest CPU count over the ranks.
int check_threads_fit(MPI_Comm comm, int threads, Monitor& monitor);

// Local. While it lives, OpenMP's default team size (omp_set_num_threads, which Faiss follows)
// or OpenBLAS's threads (openblas_set_num_threads: 1 where our own threads call OpenBLAS) are
// set; the previous value is restored when it ends. Scopes nest.
class ThreadScope {
 public:
  static ThreadScope openmp(int threads) { return ThreadScope(threads, 0); }
  static ThreadScope blas(int threads) { return ThreadScope(0, threads); }
  ~ThreadScope();
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;

 private:
  // openmp, blas: the counts to set, 0 to leave one as it is.
  ThreadScope(int openmp, int blas);
  int saved_openmp_ = 0, saved_blas_ = 0;  // 0: not changed
};

}  // namespace lsgl
