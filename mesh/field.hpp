#pragma once
// A field is a Kokkos View of one or more components on the local block plus halo cells.
// Index order (component, z, y, x), LayoutRight: x is contiguous on every backend and matches
// the C order of the HDF5 datasets. Fields are double unless a solver stores its state in another
// floating-point type (advection's single precision): FieldOf<float>.
#include <Kokkos_Core.hpp>

#include <string>

#include "mesh/decomposition.hpp"
#include "mesh/message_buffer.hpp"
#include "parallel/copies.hpp"

namespace meridian::mesh {

using Layout = Kokkos::LayoutRight;
template <class Real>
using FieldOf = Kokkos::View<Real****, Layout>;
using Field = FieldOf<double>;

// Allocated extents including halos, in View order (z, y, x).
template <class Real = double>
FieldOf<Real> make_field(const Decomposition& decomp, int components, const std::string& label) {
  return FieldOf<Real>(label, components, decomp.local_cells(2) + 2 * decomp.halo(2),
                       decomp.local_cells(1) + 2 * decomp.halo(1), decomp.local_cells(0) + 2 * decomp.halo(0));
}

// A view readable on the host, for staging output and checkpoints: the view itself where device
// memory is host memory (counted all the same as the copy a device build makes), else `mirror` (made once by
// the caller) refreshed from it.
template <class DeviceView>
typename DeviceView::HostMirror on_host(const DeviceView& view, const typename DeviceView::HostMirror& mirror) {
  // On the host the copy of the view onto itself is a no-op, counted.
  const auto target = parallel::device_memory_is_host ? Kokkos::create_mirror_view(view) : mirror;
  parallel::copy<parallel::Copy::device_to_host>(target, view);
  return target;
}

}  // namespace meridian::mesh
