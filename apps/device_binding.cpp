#include "apps/device_binding.hpp"

#include <Kokkos_Core.hpp>

#include <cstdlib>

#if defined(KOKKOS_ENABLE_CUDA) && defined(MERIDIAN_HAVE_CUFFT)
#include "solvers/common/fft/cufft_batch.hpp"
#endif

namespace meridian::app {

int node_local_rank(MPI_Comm world) {
  MPI_Comm node;
  MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int rank = 0;
  MPI_Comm_rank(node, &rank);
  MPI_Comm_free(&node);
  return rank;
}

std::vector<std::string> kokkos_arguments(int argc, char** argv, MPI_Comm world) {
  std::vector<std::string> args(argv, argv + argc);
  const int local = node_local_rank(world);
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
