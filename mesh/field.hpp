#pragma once
// A field is a Kokkos View of one or more components on the local block plus halo cells.
// Index order (component, z, y, x), LayoutRight: x is contiguous on every backend and matches
// the C order of the HDF5 datasets.
#include <Kokkos_Core.hpp>

#include <string>

#include "mesh/decomposition.hpp"

namespace meridian::mesh {

using Layout = Kokkos::LayoutRight;
using Field = Kokkos::View<double****, Layout>;

// Allocated extents including halos, in View order (z, y, x).
inline Field make_field(const Decomposition& decomp, int components, const std::string& label) {
  return Field(label, components, decomp.local_cells(2) + 2 * decomp.halo(2),
               decomp.local_cells(1) + 2 * decomp.halo(1), decomp.local_cells(0) + 2 * decomp.halo(0));
}

}  // namespace meridian::mesh
