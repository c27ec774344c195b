#pragma once
// The flux-form pieces of the transport step, direction-generic: a face is addressed by the cell
// above it along an axis and that axis' index offsets (dk, dj, di).
#include "mesh/field.hpp"
#include "solvers/common/kokkos_math.hpp"

namespace meridian::advection {

using FaceFlux = Kokkos::View<double***, mesh::Layout>;  // volume flux through the lower face of each cell

// WRF's 5th-order upwind interpolation (Wicker & Skamarock 2002) of the tracer at the face between
// cell 0 (above) and cell -1 (below), times the volume flux through it. Across an open boundary
// face the tracer is upwinded at first order from a zero halo, so nothing flows in.
KOKKOS_INLINE_FUNCTION double fifth_order_flux(const mesh::Field& q, int c, int k, int j, int i, int dk, int dj,
                                               int di, double flux, bool boundary_face) {
  const double q0 = q(c, k, j, i), qm1 = q(c, k - dk, j - dj, i - di);
  if (boundary_face) return flux > 0 ? flux * qm1 : flux * q0;
  const double q1 = q(c, k + dk, j + dj, i + di), qm2 = q(c, k - 2 * dk, j - 2 * dj, i - 2 * di);
  const double q2 = q(c, k + 2 * dk, j + 2 * dj, i + 2 * di), qm3 = q(c, k - 3 * dk, j - 3 * dj, i - 3 * di);
  const double centred = 37 * (q0 + qm1) - 8 * (q1 + qm2) + (q2 + qm3);
  const double upwind = 10 * (q0 - qm1) - 5 * (q1 - qm2) + (q2 - qm3);
  return flux * (flux > 0 ? centred - upwind : centred + upwind) * (1.0 / 60.0);
}

KOKKOS_INLINE_FUNCTION double first_order_flux(const mesh::Field& q, int c, int k, int j, int i, int dk, int dj,
                                               int di, double flux) {
  return flux > 0 ? flux * q(c, k - dk, j - dj, i - di) : flux * q(c, k, j, i);
}

// Local index of the open-boundary face along an axis on this rank, or -1 when there is none.
struct OpenFaces {
  int lower[3] = {-1, -1, -1};
  int upper[3] = {-1, -1, -1};
  KOKKOS_INLINE_FUNCTION bool is_boundary(int axis, int index) const {
    return index == lower[axis] || index == upper[axis];
  }
};

}  // namespace meridian::advection
