#pragma once
// Where the default execution space keeps its data: the one fact about the backend that code outside the
// kernels needs (whether MPI, HDF5 or a host loop may take a View's pointer as it is).
#include <Kokkos_Core.hpp>

namespace meridian::parallel {

// True where the default memory space is host memory (Serial, OpenMP), false on a GPU.
constexpr bool device_memory_is_host =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, Kokkos::DefaultExecutionSpace::memory_space>::accessible;

}  // namespace meridian::parallel
