#include "lsgl/util/interrupt.hpp"

namespace lsgl {

namespace {

volatile std::sig_atomic_t g_interrupt = 0;
extern "C" void on_interrupt(int) { g_interrupt = 1; }

}  // namespace

void install_interrupt_handlers() {
  std::signal(SIGUSR1, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
}

const volatile std::sig_atomic_t* interrupt_flag() { return &g_interrupt; }

}  // namespace lsgl
