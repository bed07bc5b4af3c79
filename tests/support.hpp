#pragma once
// Helpers shared by the MPI tests.
#include <string>

namespace lsgl::test {

// Collective over MPI_COMM_WORLD. A new directory /tmp/<prefix>-XXXXXX made by rank 0, its
// name on every rank ("" if it could not be made).
std::string shared_tmpdir(const std::string& prefix);

}  // namespace lsgl::test
