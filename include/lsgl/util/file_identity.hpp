#pragma once
// Whether two paths name the same file: by device and inode when both exist, by resolved path
// (realpath of the parent directory plus the name) when neither does. Used to refuse a command
// whose output or checkpoint would overwrite one of its inputs (or another of its outputs).
#include <mpi.h>

#include <string>
#include <vector>

namespace lsgl {

// A file named on the command line: the option ("--output") and the path (empty: not given).
struct FileArg {
  std::string option;
  std::string path;
};

// Local. True when `a` and `b` name the same file (see above); a path that exists and one that
// does not are different files.
bool same_file(const std::string& a, const std::string& b);

// Collective. Throws CollectiveError on every rank, naming both options, when an output is the
// same file as an input or as another output. Empty paths are skipped.
void check_distinct_files(MPI_Comm comm, const std::vector<FileArg>& inputs,
                          const std::vector<FileArg>& outputs);

}  // namespace lsgl
