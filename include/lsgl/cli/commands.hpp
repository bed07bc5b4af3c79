#pragma once
// Command-line front end: parses options (command line, then --config file) and calls a
// pipeline. The CLI never computes.
#include <mpi.h>

namespace lsgl::cli {

// Collective. Runs the subcommand named by argv[1]; returns the process exit code.
int dispatch(MPI_Comm comm, int argc, char** argv);

}  // namespace lsgl::cli
