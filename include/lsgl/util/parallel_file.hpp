#pragma once
// Writing one file from every rank at once (MPI-IO): each rank writes its own byte ranges, so a
// file assembled from distributed rows never passes through one rank's memory.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace lsgl {

// Bytes to be written at a file offset.
struct FileSegment {
  std::int64_t offset = 0;
  std::string bytes;
};

// Collective. Opens `path` (which must exist, e.g. the temporary file of write_atomically) for
// writing on every rank, writes this rank's segments at their offsets (pieces below 1 GiB) and
// closes it. Throws CollectiveError on every rank, naming `what`, if any write fails.
void write_segments(MPI_Comm comm, const std::string& path, const std::vector<FileSegment>& mine,
                    const std::string& what);

// Collective. Writes the concatenation of every rank's `local` bytes in rank order.
void write_in_rank_order(MPI_Comm comm, const std::string& path, std::string local,
                         const std::string& what);

}  // namespace lsgl
