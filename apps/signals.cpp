#include "apps/signals.hpp"

#include <csignal>

#include "solvers/common/stop_request.hpp"

namespace meridian::app {
namespace {
volatile std::sig_atomic_t stop_flag = 0;
extern "C" void on_stop_signal(int) { stop_flag = 1; }
}  // namespace

// SIGINT (Ctrl-C, which mpirun forwards) stops like SIGTERM: a checkpoint, then exit 75.
void install_stop_handlers() {
  std::signal(SIGTERM, on_stop_signal);
  std::signal(SIGUSR1, on_stop_signal);
  std::signal(SIGINT, on_stop_signal);
  solvers::set_stop_query(stop_requested);  // long solver steps look at the flag too
}

bool stop_requested() { return stop_flag != 0; }

}  // namespace meridian::app
