#pragma once
// The one way the project waits for launched work. After a device fault (a sticky CUDA error: an illegal
// address, a kernel that trapped) every fence Kokkos makes throws, its finalize's included; an injected fault
// (MERIDIAN_FAULT=RANK:STEP:device) does the same here on any backend, so the error path that must survive it
// (one line naming the rank, MPI_Abort, exit 1, earlier files intact) is tested without a GPU.
#include <Kokkos_Core.hpp>

#include <stdexcept>

#include "parallel/launch_counts.hpp"

namespace meridian::parallel {

class DeviceFault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whether a device fault has been injected in this process (it never clears, as a sticky CUDA error).
inline bool& device_fault_injected() {
  static bool injected = false;
  return injected;
}

inline void inject_device_fault() { device_fault_injected() = true; }

// Kokkos::fence(), or DeviceFault after an injected fault; counted (launch_counts.hpp).
inline void fence() {
  count_fence();
  if (device_fault_injected())
    throw DeviceFault("device fault (injected): the execution space cannot be synchronised");
  Kokkos::fence();
}

}  // namespace meridian::parallel
