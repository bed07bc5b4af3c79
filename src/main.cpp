// lsgl: the allocator's settings, PetscInitialize, dispatch to a subcommand, exit code.
#include <mpi.h>
#include <petscsys.h>

#include <cstdio>
#include <exception>

#include "lsgl/cli/commands.hpp"
#include "lsgl/util/error.hpp"
#include "lsgl/util/memory.hpp"

int main(int argc, char** argv) {
  lsgl::restore_allocator_release();
  if (PetscInitialize(&argc, &argv, nullptr, nullptr) != 0) return 1;
  int rank = 0;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  int code = 0;
  try {
    code = lsgl::cli::dispatch(PETSC_COMM_WORLD, argc, argv);
    if (code == 0) code = lsgl::cli::check_petsc_options_used(PETSC_COMM_WORLD);
  } catch (const lsgl::CollectiveError& e) {
    // The normal output first: under mpirun, stdout and stderr are forwarded apart.
    std::fflush(stdout);
    if (rank == 0) std::fprintf(stderr, "lsgl: error: %s\n", e.what());
    code = 1;
  } catch (const std::exception& e) {
    // Raised on this rank only: the other ranks may be waiting in a collective call.
    std::fflush(stdout);
    std::fprintf(stderr, "lsgl: error (rank %d): %s\n", rank, e.what());
    std::fflush(stderr);
    MPI_Abort(PETSC_COMM_WORLD, 2);
  }
  PetscFinalize();
  return code;
}
