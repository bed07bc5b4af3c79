#pragma once
// SIGUSR1 and SIGTERM as a request to stop a long iteration at its next step (SLURM sends them
// before a job's time limit). The flag is raised asynchronously on any rank; the iterations fold
// it into their all-reduce so every rank stops at the same step.
#include <csignal>

namespace lsgl {

// Local. Installs the handlers that raise interrupt_flag().
void install_interrupt_handlers();

// Local. The flag the handlers raise (0 until a signal arrives).
const volatile std::sig_atomic_t* interrupt_flag();

}  // namespace lsgl
