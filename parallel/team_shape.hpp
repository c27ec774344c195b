#pragma once
// How kernels over many independent items (rows of cells, paths) are cut into Kokkos teams on this
// backend. On a GPU a team is `threads` x `lanes` CUDA threads, `threads` warps of 32 (8 unless
// MERIDIAN_TEAM_WARPS says 2 or 4; never 32-thread blocks); on the host a team is one thread whose vector
// loop over `lanes` items the compiler vectorises.
#include <Kokkos_Core.hpp>
#include <cstdlib>
#include <stdexcept>
#include <string>

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
  // The teams of `rows` rows, `threads` rows to a team (for_each_team_row).
  Kokkos::TeamPolicy<> row_policy(long rows) const { return policy((rows + threads - 1) / threads); }
};

// Warps per GPU team. A kernel of many registers fits fewer 256-thread blocks on an SM than 128-thread
// ones (the atmosphere's face flux at 168 registers: one block of 8 warps, or three of 4), so which is faster
// is measured on the GPU: MERIDIAN_TEAM_WARPS sets it for a run (scripts/gpu/device_check.sh compares them).
inline int team_warps_from(const char* setting) {
  if (!setting) return 8;
  const std::string text = setting;
  if (text == "2" || text == "4" || text == "8") return std::stoi(text);
  throw std::invalid_argument("MERIDIAN_TEAM_WARPS='" + text +
                              "': the warps of a GPU team of the row and path kernels must be 2, 4 or 8 (unset: 8)");
}
// Read once: every launch of a run uses the same shape.
inline int gpu_team_warps() {
  static const int warps = team_warps_from(std::getenv("MERIDIAN_TEAM_WARPS"));
  return warps;
}

// Paths: lanes of independent paths, 16 to a host vector loop (as the hand-vectorised loop).
inline TeamShape path_team_shape() {
  return device_memory_is_host ? TeamShape{1, 16} : TeamShape{gpu_team_warps(), 32};
}
// Rows of a stencil: one row per host team (its vector loop runs along the row); a row per warp on a GPU.
inline TeamShape row_team_shape() {
  return device_memory_is_host ? TeamShape{1, 1} : TeamShape{gpu_team_warps(), 32};
}

using TeamMember = Kokkos::TeamPolicy<>::member_type;

// body(row) for each row of a row_policy launch's team that is one of the `rows`, a team thread each (a warp on a
// GPU, whose lanes the body spreads along the row with ThreadVectorRange); the last team's spare threads idle.
template <class Body>
KOKKOS_INLINE_FUNCTION void for_each_team_row(const TeamMember& team, int rows_per_team, int rows, const Body& body) {
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rows_per_team), [&](const int t) {
    const int row = team.league_rank() * rows_per_team + t;
    if (row < rows) body(row);
  });
}

// MERIDIAN_INDEPENDENT_ITERATIONS before a host loop tells GCC that its iterations are independent; nothing
// where nvcc or clang compiles (they would warn of the pragma, and a CUDA build runs no such loop on the host).
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define MERIDIAN_INDEPENDENT_ITERATIONS _Pragma("GCC ivdep")
#else
#define MERIDIAN_INDEPENDENT_ITERATIONS
#endif

// body(i) for i in [first, last) along one row of a for_each_team_row body: across a warp's lanes on a GPU
// (ThreadVectorRange); on the host one loop that GCC is told carries no dependence between its iterations. A
// row kernel writes only faces of its own row, which no other iteration reads; GCC cannot prove that of
// pointers and otherwise versions the loop on run-time alias checks, or, past 64 of them (the MAC tendency
// needs 141), leaves it scalar.
template <class Body>
KOKKOS_FORCEINLINE_FUNCTION void for_each_in_row(const TeamMember& team, int first, int last, const Body& body) {
  if constexpr (device_memory_is_host) {
    MERIDIAN_INDEPENDENT_ITERATIONS
    for (int i = first; i < last; ++i) body(i);
  } else {
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, first, last), body);
  }
}

}  // namespace meridian::parallel
