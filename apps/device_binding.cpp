#include "apps/device_binding.hpp"

#include <Kokkos_Core.hpp>

#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "mesh/node_layout.hpp"

#if defined(KOKKOS_ENABLE_CUDA) && defined(MERIDIAN_HAVE_CUFFT)
#include "solvers/common/fft/cufft_batch.hpp"
#endif

namespace meridian::app {

namespace {
// The cores this process may run on (its affinity mask: what mpirun's binding or a cgroup gave it).
int cores_given() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  return CPU_COUNT(&set);
}
}  // namespace

std::string oversubscription_warning(MPI_Comm world) {
  const int local_ranks = mesh::node_layout(world).local_ranks;
  const int threads = Kokkos::DefaultHostExecutionSpace().concurrency();
  const int online = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  // Per rank: more threads than its own cores; per node: more threads in all than the node has.
  int over[2] = {threads > cores_given(), local_ranks * threads > online};
  MPI_Allreduce(MPI_IN_PLACE, over, 2, MPI_INT, MPI_MAX, world);
  if (threads <= 1 || (!over[0] && !over[1])) return {};
  std::ostringstream text;
  text << "warning: " << local_ranks << " rank(s) on this node x " << threads << " host threads each exceed the "
       << (over[0] ? std::to_string(cores_given()) + " core(s) a rank was given"
                   : std::to_string(online) + " cores of the node")
       << "; spinning threads on shared cores slow the run many times over. Set OMP_NUM_THREADS (threads per "
          "rank) so ranks x threads fit the cores, bind them (mpirun -bind-to core:THREADS, OMP_PROC_BIND=close, "
          "OMP_PLACES=cores), or set OMP_WAIT_POLICY=passive";
  return text.str();
}

std::vector<std::string> kokkos_arguments(int argc, char** argv, MPI_Comm world) {
  std::vector<std::string> args(argv, argv + argc);
  const int local = mesh::node_layout(world).local_rank;
#if defined(KOKKOS_ENABLE_CUDA) && defined(MERIDIAN_HAVE_CUFFT)
  bool chosen = std::getenv("KOKKOS_DEVICE_ID") != nullptr;
  for (const auto& a : args) chosen = chosen || a.rfind("--kokkos-device-id", 0) == 0;
  const int devices = fft::cuda::device_count();
  if (!chosen && devices > 0) args.push_back("--kokkos-device-id=" + std::to_string(local % devices));
#else
  (void)local;
#endif
  return args;
}

}  // namespace meridian::app
