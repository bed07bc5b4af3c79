#include "support.hpp"

#include <mpi.h>
#include <stdlib.h>

#include <cstdio>

namespace lsgl::test {

std::string shared_tmpdir(const std::string& prefix) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "/tmp/%s-XXXXXX", prefix.c_str());
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0 && !mkdtemp(buf)) buf[0] = 0;
  MPI_Bcast(buf, sizeof buf, MPI_CHAR, 0, MPI_COMM_WORLD);
  return buf;
}

}  // namespace lsgl::test
