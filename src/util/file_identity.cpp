// File identity (see file_identity.hpp).
#include "lsgl/util/file_identity.hpp"

#include <sys/stat.h>

#include <climits>
#include <cstdlib>
#include <stdexcept>

#include "lsgl/util/error.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl {

namespace {

// The resolved name of a file that may not exist yet: realpath of its directory plus its name.
std::string resolved_name(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  char buf[PATH_MAX];
  if (!realpath(dir.c_str(), buf)) return path;
  return std::string(buf) + "/" + name;
}

std::string describe(const FileArg& f) { return f.option + " '" + f.path + "'"; }

}  // namespace

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  const bool ea = stat(a.c_str(), &sa) == 0, eb = stat(b.c_str(), &sb) == 0;
  if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (ea || eb) return false;
  return resolved_name(a) == resolved_name(b);
}

void check_distinct_files(MPI_Comm comm, const std::vector<FileArg>& inputs,
                          const std::vector<FileArg>& outputs) {
  collectively(comm, [&] {
    if (comm_rank(comm) != 0) return;
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      const FileArg& out = outputs[i];
      if (out.path.empty()) continue;
      for (const FileArg& in : inputs)
        if (!in.path.empty() && same_file(out.path, in.path))
          throw std::runtime_error(describe(out) + " is the same file as the input " +
                                   describe(in) + "; it would be overwritten");
      for (std::size_t j = 0; j < i; ++j)
        if (!outputs[j].path.empty() && same_file(out.path, outputs[j].path))
          throw std::runtime_error(describe(out) + " and " + describe(outputs[j]) +
                                   " are the same file");
    }
  });
}

}  // namespace lsgl
