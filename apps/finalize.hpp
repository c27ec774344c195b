#pragma once
// The end of a job: every rank leaves with the run's exit code, in bounded time.
namespace meridian::app {

// MPICH 4.0 to 4.1.2 with the ch4:ucx device hangs in MPI_Finalize when ranks talk over TCP (ranks
// on several hosts; ../shared/docs/mpi.md): every rank starts a UCX endpoint close that needs its
// peers, then waits in a barrier where it no longer answers them (MPICH PR 6596). Every output is
// durable when this is called. All ranks pass a barrier; then a job on several hosts with such an
// MPICH skips MPI_Finalize (each rank waits 3 s outside MPI, so that none is still in the barrier
// when a peer leaves, and exits with `code`, which hydra reports cleanly, where a rank stuck in
// finalize beside ranks that left makes mpiexec fail), and any other calls it, under a watchdog that
// ends a rank still there after MERIDIAN_FINALIZE_TIMEOUT seconds (default 30; 0: no limit). A rank
// that leaves without MPI_Finalize first tells hydra it is done, so that hydra does not kill the rest.
[[noreturn]] void finalize_and_exit(int code);

// Whether MPI_Finalize is known to hang for this library on this job's hosts (collective).
bool finalize_hangs_here();

}  // namespace meridian::app
