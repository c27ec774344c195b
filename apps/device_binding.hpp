#pragma once
// One rank per GPU: the device a rank uses is its node-local rank modulo the devices it can see
// (CUDA_VISIBLE_DEVICES decides which those are). The choice reaches Kokkos as --kokkos-device-id,
// the spelling Kokkos 3.4 and 4.x both accept, unless the user already chose a device.
#include <mpi.h>

#include <string>
#include <vector>

namespace meridian::app {

// The command line to hand to Kokkos::initialize: argv, plus the device for this rank when Kokkos
// runs on CUDA and nothing was chosen by hand.
std::vector<std::string> kokkos_arguments(int argc, char** argv, MPI_Comm world);

// Host threads per rank times the ranks on a node, against the cores the ranks were given: spinning
// OpenMP threads on shared cores slow a run many times over. Returns a warning for rank 0 to print
// (empty when the placement fits). Collective over `world`.
std::string oversubscription_warning(MPI_Comm world);

}  // namespace meridian::app
