#pragma once
// SIGTERM, SIGUSR1 (Slurm's --signal, cloud preemption notices) and SIGINT ask for a checkpoint at
// the next step boundary (or inside a long Monte Carlo step) and a clean exit; the handler only sets
// a flag.
namespace meridian::app {

void install_stop_handlers();
bool stop_requested();

}  // namespace meridian::app
