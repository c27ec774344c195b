#pragma once
// How kernels over many independent items (rows of cells, paths) are cut into Kokkos teams on this
// backend. On a GPU a team is `threads` x `lanes` CUDA threads (8 x 32, 256 to a block, so no
// 32-thread blocks); on the host a team is one thread whose vector loop over `lanes` items the
// compiler vectorises.
#include <Kokkos_Core.hpp>

#include "parallel/device_memory.hpp"

namespace meridian::parallel {

struct TeamShape {
  int threads, lanes;
  int items() const { return threads * lanes; }
  // A TeamPolicy of `league` teams of this shape (one thread and no vector split on the host).
  Kokkos::TeamPolicy<> policy(long league) const {
    if constexpr (device_memory_is_host)
      return Kokkos::TeamPolicy<>(static_cast<int>(league), 1, 1);
    else
      return Kokkos::TeamPolicy<>(static_cast<int>(league), threads, lanes);
  }
};

// Paths: lanes of independent paths, 16 to a host vector loop (as the hand-vectorised loop).
inline TeamShape path_team_shape() { return device_memory_is_host ? TeamShape{1, 16} : TeamShape{8, 32}; }
// Rows of a stencil: one row per host team (its vector loop runs along the row); 8 rows per GPU team.
inline TeamShape row_team_shape() { return device_memory_is_host ? TeamShape{1, 1} : TeamShape{8, 32}; }

using TeamMember = Kokkos::TeamPolicy<>::member_type;

}  // namespace meridian::parallel
