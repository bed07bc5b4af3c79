// Memory checks (see memory.hpp).
#include "lsgl/util/memory.hpp"

#include <unistd.h>

#include <cstdio>

#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl {

namespace {

std::string gigabytes(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1e9);
  return buf;
}

}  // namespace

std::int64_t physical_memory_bytes() {
  return static_cast<std::int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
}

void check_allocation(MPI_Comm comm, std::int64_t bytes, const std::string& what) {
  const std::int64_t need = allreduce_max(comm, bytes < 0 ? INT64_MAX : bytes);
  const std::int64_t have = physical_memory_bytes();
  collective_check(comm, need <= have,
                   what + " need " + gigabytes(static_cast<double>(need)) +
                       " on one rank, more than this machine's memory (" +
                       gigabytes(static_cast<double>(have)) + ")");
}

}  // namespace lsgl
