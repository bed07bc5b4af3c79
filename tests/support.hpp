#pragma once
// Helpers shared by the MPI tests.
#include <string>
#include <vector>

#include "lsgl/io/dataset.hpp"
#include "lsgl/util/error.hpp"

namespace lsgl::test {

// Collective over MPI_COMM_WORLD. A new directory /tmp/<prefix>-XXXXXX made by rank 0, its
// name on every rank ("" if it could not be made). The test main removes it when every test
// passed (remove_shared_tmpdirs) and keeps it for a look otherwise.
std::string shared_tmpdir(const std::string& prefix);

// Collective over MPI_COMM_WORLD. Rank 0 writes `text` to dir/name (gzip-compressed when gz);
// every rank gets the path after a barrier.
std::string write_shared_file(const std::string& dir, const std::string& name,
                              const std::string& text, bool gz = false);

// Local. Removes, on rank 0, every directory shared_tmpdir made (call after a barrier).
void remove_shared_tmpdirs();

// Collective over MPI_COMM_WORLD. The temporary files of the output `path` on disk: names
// PATH.partial* (the writer's PATH.partial.<pid>.<hex>, util/atomic_file) and PATH.tmp*. After a
// barrier, since rank 0 removes its temporary file of a failed collective write only after the
// other ranks have thrown.
std::vector<std::string> temporary_files(const std::string& path);

// A copy of the values of `rows` (owned or borrowed).
inline std::vector<float> values_of(const LocalRows& rows) {
  return std::vector<float>(rows.data(), rows.data() + rows.size());
}

// The message of the CollectiveError `fn` raises, or "" when it raises none.
template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const CollectiveError& e) {
    return e.what();
  }
  return "";
}

}  // namespace lsgl::test
