#include "lsgl/util/threads.hpp"

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

}  // namespace lsgl
