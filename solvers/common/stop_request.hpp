#pragma once
// Whether the run has been asked to stop (SIGTERM, SIGUSR1, SIGINT), for solvers whose steps last
// long enough that they must honour a stop inside one (Monte Carlo). The driver installs the query;
// without one the answer is no. Solvers that stop inside a step decide it collectively.
namespace meridian::solvers {

using StopQuery = bool (*)();
void set_stop_query(StopQuery query);
bool stop_requested_now();

}  // namespace meridian::solvers
