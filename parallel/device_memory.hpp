#pragma once
// Where the default execution space keeps its data: the one fact about the backend that code outside the
// kernels needs (whether MPI, HDF5 or a host loop may take a View's pointer as it is).
#include <Kokkos_Core.hpp>
#include <string>
#include <vector>

#include "parallel/copies.hpp"

namespace meridian::parallel {

// True where the default memory space is host memory (Serial, OpenMP), false on a GPU.
constexpr bool device_memory_is_host =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, Kokkos::DefaultExecutionSpace::memory_space>::accessible;

// Host memory the device copies to and from directly (page-locked on CUDA): where the host reads or writes
// device data every step (MPI messages, a step's results), so that no copy is staged through pageable memory.
#ifdef KOKKOS_ENABLE_CUDA
using PinnedSpace = Kokkos::CudaHostPinnedSpace;
#else
using PinnedSpace = Kokkos::HostSpace;
#endif

// A table computed on the host (eigenvalues, twiddles, indices), in a View of the default memory space.
template <class T>
Kokkos::View<T*> device_copy(const std::string& label, const std::vector<T>& values) {
  Kokkos::View<T*> v(label, values.size());
  copy<Copy::host_to_device>(v, Kokkos::View<const T*, Kokkos::HostSpace>(values.data(), values.size()));
  return v;
}

// A View's values on the host.
inline std::vector<double> host_copy(const Kokkos::View<double*>& v) {
  std::vector<double> values(v.extent(0));
  copy<Copy::device_to_host>(Kokkos::View<double*, Kokkos::HostSpace>(values.data(), values.size()), v);
  return values;
}

}  // namespace meridian::parallel
