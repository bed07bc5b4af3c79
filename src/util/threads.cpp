#include "lsgl/util/threads.hpp"

#include <cblas.h>
#include <omp.h>
#include <sched.h>

#include <algorithm>

#include "lsgl/util/format.hpp"

namespace lsgl {

int cpus_available() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

int check_threads_fit(MPI_Comm comm, int threads, Monitor& monitor) {
  int mine = cpus_available(), least = mine;
  MPI_Allreduce(&mine, &least, 1, MPI_INT, MPI_MIN, comm);
  if (threads > least) {
    monitor.message(MessageKind::kWarning,
                    strprintf("--threads %d but a rank may use only %d CPU(s), so its threads "
                              "share them; launch with 'mpirun --bind-to none' or 'mpirun "
                              "--map-by slot:PE=%d', or 'srun --cpus-per-task=%d'",
                              threads, least, threads, threads));
  }
  return least;
}

ThreadScope::ThreadScope(int openmp, int blas) {
  if (openmp > 0) {
    saved_openmp_ = omp_get_max_threads();
    omp_set_num_threads(openmp);
  }
  if (blas > 0) {
    saved_blas_ = openblas_get_num_threads();
    openblas_set_num_threads(blas);
  }
}

ThreadScope::~ThreadScope() {
  if (saved_openmp_ > 0) omp_set_num_threads(saved_openmp_);
  if (saved_blas_ > 0) openblas_set_num_threads(saved_blas_);
}

}  // namespace lsgl
