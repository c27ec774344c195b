#pragma once
// SIGTERM and SIGUSR1 (Slurm's --signal, cloud preemption notices) ask for a checkpoint at the
// next step boundary and a clean exit; the handler only sets a flag.
namespace meridian::app {

void install_stop_handlers();
bool stop_requested();

}  // namespace meridian::app
