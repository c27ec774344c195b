#pragma once
// What the code asks of the machine besides arithmetic: kernel launches, reductions whose value the host
// waits for, calls into the FFT and sparse libraries, the project's fences, and copies between host and
// device memory with their direction and bytes. On a GPU a launch or a library call costs about 4 us and a
// synchronisation about 10 us whatever its size, so these counts, taken on any backend, say how far a step
// can shrink there (gpu-review.md C2-C5, issue #24).
//
// Who counts what:
// - kernels and reductions: Kokkos Tools callbacks registered in this process (every parallel_for,
//   parallel_reduce and parallel_scan, Kokkos' own included, such as a View's initialisation or a fill).
//   Every reduction in the project returns its value to a host variable, so each one is also a wait;
// - library calls: the FFT and sparse wrappers in solvers/common, one per call of the wrapper function
//   that makes one cuFFT or cuSPARSE call on CUDA, on every backend, so that a host build predicts a device
//   build's count (where the host does without a library, as the Thomas sweep, the kernel is counted);
// - transforms: fft::DistributedFFT's forward and backward transforms, for the spectral solver's budget per
//   transform;
// - exchanges: mesh::HaloExchange's exchanges (of all axes, or across one);
// - fences: parallel::fence(), the project's one way of waiting (Kokkos 3.4 reports no fences to tools);
// - copies: parallel::copy (copies.hpp), whose call site states the direction, since on Serial and OpenMP
//   every space is HostSpace and Kokkos cannot tell a host-device copy from any other.
//
// Off unless enable_launch_counting() runs before Kokkos::initialize: with callbacks registered Kokkos fences
// the device around every kernel unless the tool says it needs no such fence, which it can say only while
// Kokkos initialises. A Kokkos Tools library (KOKKOS_TOOLS_LIBS) replaces these callbacks: use one or the other.
#include <Kokkos_Core.hpp>

#include <array>
#include <cstdint>

namespace meridian::parallel {

enum class Copy { host_to_device, device_to_host, device_to_device };

struct LaunchCounts {
  long kernels = 0;     // launches, reductions included
  long reductions = 0;  // of those, reductions: the host waits for each
  long library_calls = 0;
  long fences = 0;
  long transforms = 0;  // distributed FFTs (fft::DistributedFFT forward or backward), each a few launches
  long exchanges = 0;   // halo exchanges (mesh::HaloExchange), each up to two launches and a wait per axis
  std::array<long, 3> copies{};       // indexed by Copy
  std::array<double, 3> copy_bytes{};  // bytes, indexed by Copy

  // Synchronisations: reductions, fences and copies between host and device (each waits for the device).
  long synchronisations() const {
    return reductions + fences + copies[static_cast<int>(Copy::host_to_device)] +
           copies[static_cast<int>(Copy::device_to_host)];
  }
  LaunchCounts& operator+=(const LaunchCounts& other);
  LaunchCounts& operator-=(const LaunchCounts& other);
  // Each count set to op(this count, other's): the one place that lists the fields.
  template <class Op>
  LaunchCounts& combine(const LaunchCounts& other, Op op) {
    kernels = op(kernels, other.kernels), reductions = op(reductions, other.reductions);
    library_calls = op(library_calls, other.library_calls), fences = op(fences, other.fences);
    transforms = op(transforms, other.transforms), exchanges = op(exchanges, other.exchanges);
    for (int d = 0; d < 3; ++d) copies[d] = op(copies[d], other.copies[d]);
    for (int d = 0; d < 3; ++d) copy_bytes[d] = op(copy_bytes[d], other.copy_bytes[d]);
    return *this;
  }
};
inline LaunchCounts operator-(LaunchCounts a, const LaunchCounts& b) { return a -= b; }

// What a GPU pays per launch (a kernel or a library call) and per synchronisation, whatever their size: the
// time these counts take on a device however fast its arithmetic (an H200 with CUDA 13, gpu-review.md).
inline constexpr double seconds_per_launch = 4e-6;
inline constexpr double seconds_per_synchronisation = 10e-6;
inline double launch_bound_seconds(const LaunchCounts& c) {
  return (c.kernels + c.library_calls) * seconds_per_launch + c.synchronisations() * seconds_per_synchronisation;
}

namespace detail {
inline LaunchCounts& totals() {
  static LaunchCounts counts;
  return counts;
}
inline bool& counting() {
  static bool on = false;
  return on;
}
inline void count_kernel(const char*, const std::uint32_t, std::uint64_t* id) {
  *id = 0;
  ++totals().kernels;
}
inline void count_reduction(const char*, const std::uint32_t, std::uint64_t* id) {
  *id = 0;
  ++totals().kernels;
  ++totals().reductions;
}
inline void needs_no_global_fence(const std::uint32_t, Kokkos_Tools_ToolSettings* settings) {
  settings->requires_global_fencing = false;
}
}  // namespace detail

// Registers the counting callbacks; call once, before Kokkos::initialize.
inline void enable_launch_counting() {
  auto events = Kokkos::Tools::Experimental::get_callbacks();
  events.begin_parallel_for = detail::count_kernel;
  events.begin_parallel_scan = detail::count_kernel;
  events.begin_parallel_reduce = detail::count_reduction;
  events.request_tool_settings = detail::needs_no_global_fence;
  Kokkos::Tools::Experimental::set_callbacks(events);
  detail::counting() = true;
}
inline bool launch_counting_enabled() { return detail::counting(); }

// Everything counted in this process so far (kernels and reductions stay zero unless counting is enabled).
inline LaunchCounts launch_counts() { return detail::totals(); }

inline void count_library_call() { ++detail::totals().library_calls; }
inline void count_fence() { ++detail::totals().fences; }
inline void count_transform() { ++detail::totals().transforms; }
inline void count_exchange() { ++detail::totals().exchanges; }
inline void count_copy(Copy direction, double bytes) {
  ++detail::totals().copies[static_cast<int>(direction)];
  detail::totals().copy_bytes[static_cast<int>(direction)] += bytes;
}

inline LaunchCounts& LaunchCounts::operator+=(const LaunchCounts& other) {
  return combine(other, [](auto a, auto b) { return a + b; });
}
inline LaunchCounts& LaunchCounts::operator-=(const LaunchCounts& other) {
  return combine(other, [](auto a, auto b) { return a - b; });
}

}  // namespace meridian::parallel
