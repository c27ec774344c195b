#include "apps/finalize.hpp"

#include "apps/injected_fault.hpp"
#include "mesh/node_layout.hpp"

#include <mpi.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

namespace meridian::app {
namespace {

// MPICH's version string names its version and device: "MPICH Version:\t4.0.2 ... ch4:ucx".
bool mpich_ucx_with_finalize_hang() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  const std::string library(text, static_cast<std::size_t>(length));
  const std::string tag = "MPICH Version:";
  const auto at = library.find(tag);
  if (at == std::string::npos || library.find("ch4:ucx") == std::string::npos) return false;
  int major = 0, minor = 0, patch = 0;
  if (std::sscanf(library.c_str() + at + tag.size(), " %d.%d.%d", &major, &minor, &patch) < 2) return false;
  return major == 4 && (minor == 0 || (minor == 1 && patch <= 2));
}

// Hydra (MPICH's mpiexec) takes a rank whose PMI socket closes before it said 'finalize' there for a
// crash: it kills every other rank at once and may report the job as failed (CI: a stuck rank killed
// before its watchdog fired, 'EXIT CODE: 1 ... Hangup'). A rank leaving without MPI_Finalize says it
// itself, so each rank ends on its own, with its own code. The socket is the one hydra names in PMI_FD
// (a Unix socket; srun and other launchers set none). Returns whether hydra acknowledged within 1 s.
bool tell_launcher_done() {
  const char* descriptor = std::getenv("PMI_FD");
  if (!descriptor) return false;
  const int fd = std::atoi(descriptor);
  struct stat info {};
  int domain = 0;
  socklen_t length = sizeof domain;
  if (fstat(fd, &info) != 0 || !S_ISSOCK(info.st_mode) ||
      getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &length) != 0 || domain != AF_UNIX)
    return false;
  const std::string request = "cmd=finalize\n";
  if (write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size())) return false;
  pollfd reply{fd, POLLIN, 0};
  char acknowledgement[64];
  return poll(&reply, 1, 1000) > 0 && read(fd, acknowledgement, sizeof acknowledgement) > 0;
}

void start_watchdog(int code) {
  const char* setting = std::getenv("MERIDIAN_FINALIZE_TIMEOUT");
  const int seconds = setting ? std::atoi(setting) : 30;
  if (seconds <= 0) return;
  std::thread([code, seconds] {
    std::this_thread::sleep_for(std::chrono::seconds(seconds));
    const std::string line = "meridian: the job did not end within " + std::to_string(seconds) +
                             " s of its last output (MPI finalization stuck); exiting with the run's code " +
                             std::to_string(code) + "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
    tell_launcher_done();
    std::_Exit(code);
  }).detach();
}

}  // namespace

bool finalize_hangs_here() { return mesh::node_layout(MPI_COMM_WORLD).nodes > 1 && mpich_ucx_with_finalize_hang(); }

void finalize_and_exit(int code) {
  const bool skip = finalize_hangs_here();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  if (skip) {
    // No MPI_Finalize, so nothing here can hang and no watchdog runs: one armed as each rank arrived
    // raced this pause on every run (integration.multihost sets it to 3 s) and could end a rank inside
    // the barrier while a peer was still on its way; the late rank was then killed (hydra: 'EXIT CODE:
    // 1 ... Hangup'). Against Kokkos 4 OpenMP, 3 ranks on 2 cores, the test failed so in 1 of 20 runs
    // before and in none of 20 after. An error a peer's exit raises in the barrier is returned, not fatal.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD);
    // Ranks leave the barrier at slightly different times; one still inside it when a peer's sockets
    // close can fail. A pause outside MPI lets every rank out before any exits.
    std::this_thread::sleep_for(std::chrono::seconds(3));
    tell_launcher_done();
    std::_Exit(code);
  }
  start_watchdog(code);
  const InjectedFault fault = injected_fault();
  if (fault.kind == "hang_in_finalize" && fault.rank == rank)
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  std::exit(code);
}

}  // namespace meridian::app
