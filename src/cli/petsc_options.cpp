#include "petsc_options.hpp"

#include <petscsys.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "lsgl/cli/commands.hpp"
#include "lsgl/util/mpi.hpp"

namespace lsgl::cli {

void check_single_dash_option(const std::string& word,
                              const boost::program_options::options_description& desc) {
  std::string name = word.substr(1);
  std::replace(name.begin(), name.end(), '_', '-');
  if (name.empty() || !desc.find_nothrow(name, false)) return;
  throw std::runtime_error("'" + word + "' is not an option: did you mean --" + name +
                           "? (lsgl's options take two dashes; single-dash options go to PETSc)");
}

int check_petsc_options_used(MPI_Comm comm) {
  // Read by PETSc in PetscFinalize, after this check.
  static const std::vector<std::string> at_finalize = {"options_left", "malloc_dump",
                                                       "objects_dump", "malloc_view"};
  PetscInt n = 0;
  char** names = nullptr;
  char** values = nullptr;
  if (PetscOptionsLeftGet(nullptr, &n, &names, &values) != 0) return 1;
  std::string unused;
  for (PetscInt i = 0; i < n; ++i) {
    const std::string name = names[i];
    if (name.rfind('-', 0) == 0) continue;  // from a --option: lsgl's options parser had it
    if (std::find(at_finalize.begin(), at_finalize.end(), name) != at_finalize.end()) continue;
    unused += (unused.empty() ? "-" : ", -") + name;
  }
  PetscOptionsLeftRestore(nullptr, &n, &names, &values);
  if (unused.empty()) return 0;
  // Every rank holds the same options: all decide alike, rank 0 says why.
  if (comm_rank(comm) == 0) {
    std::fflush(stdout);
    std::fprintf(stderr,
                 "lsgl: error: PETSc did not use the option %s (a typo? lsgl's own options take "
                 "two dashes, e.g. --k; see 'lsgl <command> --help')\n",
                 unused.c_str());
  }
  return 1;
}

}  // namespace lsgl::cli
