#include "apps/signals.hpp"

#include <csignal>

namespace meridian::app {
namespace {
volatile std::sig_atomic_t stop_flag = 0;
extern "C" void on_stop_signal(int) { stop_flag = 1; }
}  // namespace

void install_stop_handlers() {
  std::signal(SIGTERM, on_stop_signal);
  std::signal(SIGUSR1, on_stop_signal);
}

bool stop_requested() { return stop_flag != 0; }

}  // namespace meridian::app
