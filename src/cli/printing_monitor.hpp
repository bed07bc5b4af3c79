#pragma once
// The command line's monitor (lsgl/util/monitor.hpp): on rank 0 it prints every report as lsgl
// prints it (phases "[name] seconds", progress lines at most every 10 s, an iteration line every
// --progress-every iterations, info and summary lines on stdout, warnings on stderr); the other
// ranks print nothing.
#include <mpi.h>

#include <memory>

#include "lsgl/util/monitor.hpp"

namespace lsgl::cli {

// What a command prints besides errors and warnings (its --quiet chooses).
enum class Verbosity {
  kAll,
  kSummary,  // the summary lines only
  kNothing,
};

// Local. This rank's monitor: the printer on rank 0, one that prints nothing elsewhere.
// `progress_every`: iterations between iteration lines (0: none).
std::unique_ptr<Monitor> make_printing_monitor(MPI_Comm comm, Verbosity verbosity,
                                               int progress_every = 0);

}  // namespace lsgl::cli
