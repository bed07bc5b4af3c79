#pragma once
// Command-line front end: parses options (command line, then --config file) and calls a
// pipeline. The CLI never computes.
#include <mpi.h>

namespace lsgl::cli {

// Collective. Runs the subcommand named by argv[1]; returns the process exit code.
int dispatch(MPI_Comm comm, int argc, char** argv);

// Collective (every rank holds the same PETSc options, so all return alike). 0 when PETSc used
// every option it was given; else 1, after one `lsgl: error:` line on rank 0 naming the unused
// options. Called after a successful command: a mistyped option must not exit 0.
int check_petsc_options_used(MPI_Comm comm);

}  // namespace lsgl::cli
