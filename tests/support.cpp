#include "support.hpp"

#include <glob.h>
#include <mpi.h>
#include <stdlib.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

namespace lsgl::test {
namespace {
std::vector<std::string> made;  // rank 0: the directories of shared_tmpdir
}  // namespace

std::string write_shared_file(const std::string& dir, const std::string& name,
                              const std::string& text, bool gz) {
  const std::string path = dir + "/" + name;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    if (gz) {
      gzFile z = gzopen(path.c_str(), "wb");
      gzwrite(z, text.data(), static_cast<unsigned>(text.size()));
      gzclose(z);
    } else {
      std::ofstream(path, std::ios::binary) << text;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return path;
}

std::string shared_tmpdir(const std::string& prefix) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "/tmp/%s-XXXXXX", prefix.c_str());
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    if (mkdtemp(buf)) {
      made.emplace_back(buf);
    } else {
      buf[0] = 0;
    }
  }
  MPI_Bcast(buf, sizeof buf, MPI_CHAR, 0, MPI_COMM_WORLD);
  return buf;
}

void remove_shared_tmpdirs() {
  std::error_code ignored;
  for (const std::string& dir : made) std::filesystem::remove_all(dir, ignored);
  made.clear();
}

std::vector<std::string> temporary_files(const std::string& path) {
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<std::string> found;
  for (const char* suffix : {".partial*", ".tmp*"}) {
    glob_t g{};
    if (glob((path + suffix).c_str(), 0, nullptr, &g) == 0)
      found.insert(found.end(), g.gl_pathv, g.gl_pathv + g.gl_pathc);
    globfree(&g);
  }
  return found;
}

}  // namespace lsgl::test
