#include "lsgl/util/error.hpp"

#include <climits>
#include <vector>

namespace lsgl {

void collective_check(MPI_Comm comm, bool ok, const std::string& message) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int first_bad = ok ? INT_MAX : rank;
  int global_first = INT_MAX;
  MPI_Allreduce(&first_bad, &global_first, 1, MPI_INT, MPI_MIN, comm);
  if (global_first == INT_MAX) return;
  int len = rank == global_first ? static_cast<int>(message.size()) : 0;
  MPI_Bcast(&len, 1, MPI_INT, global_first, comm);
  std::vector<char> buf(message.begin(), message.end());
  buf.resize(static_cast<std::size_t>(len));
  MPI_Bcast(buf.data(), len, MPI_CHAR, global_first, comm);
  throw CollectiveError(std::string(buf.begin(), buf.end()));
}

}  // namespace lsgl
