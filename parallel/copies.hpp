#pragma once
// The one way the project copies between Views (fill.hpp fills one): each copy states its direction, so that
// it is counted as a host-device copy (launch_counts.hpp) on every backend, and a device build checks at compile
// time that the direction matches the Views' memory spaces (a host build cannot tell: all its spaces are
// host memory). A copy between host and device waits for the device; inside a time step only the copies a
// solver lists may do so (issue #24).
#include <Kokkos_Core.hpp>

#include "parallel/launch_counts.hpp"

namespace meridian::parallel {

template <class View>
inline constexpr bool host_accessible =
    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename View::memory_space>::accessible;
template <class View>
inline constexpr bool device_accessible =
    Kokkos::SpaceAccessibility<Kokkos::DefaultExecutionSpace, typename View::memory_space>::accessible;

// Kokkos::deep_copy(destination, source), counted as a copy in `direction`.
template <Copy direction, class Destination, class Source>
void copy(const Destination& destination, const Source& source) {
  if constexpr (direction == Copy::host_to_device)
    static_assert(host_accessible<Source> && device_accessible<Destination>, "host-to-device: from host to device memory");
  if constexpr (direction == Copy::device_to_host)
    static_assert(device_accessible<Source> && host_accessible<Destination>, "device-to-host: from device to host memory");
  if constexpr (direction == Copy::device_to_device)
    static_assert(device_accessible<Source> && device_accessible<Destination>, "device-to-device: in device memory");
  count_copy(direction, static_cast<double>(source.span()) * sizeof(typename Source::value_type));
  Kokkos::deep_copy(destination, source);
}

// A host View with `view`'s values (`view` itself where device memory is host memory; still counted as the
// device-to-host copy a device build makes).
template <class View>
auto host_mirror_of(const View& view) {
  auto mirror = Kokkos::create_mirror_view(Kokkos::HostSpace(), view);
  copy<Copy::device_to_host>(mirror, view);
  return mirror;
}

}  // namespace meridian::parallel
