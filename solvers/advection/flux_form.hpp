#pragma once
// The flux-form pieces of the transport step, direction-generic: a face is addressed by the cell
// above it along an axis and that axis' index offsets (dk, dj, di).
#include "mesh/field.hpp"
#include "solvers/common/kokkos_math.hpp"

namespace meridian::advection {

using FaceFlux = Kokkos::View<double***, mesh::Layout>;  // volume flux through the lower face of each cell

// WRF's 5th-order upwind interpolation (Wicker & Skamarock 2002) of the tracer at the face between
// the cell at `above` and the one a `stride` below it, times the volume flux through the face.
// Across an open boundary face (open_face = 1; 0 elsewhere) the tracer is upwinded at first order
// from a zero halo, so nothing flows in. A pointer and a stride serve every direction (1 along x,
// a row along y, a plane along z).
KOKKOS_INLINE_FUNCTION double fifth_order_flux(const double* above, long stride, double flux, double open_face) {
  // Both fluxes are computed and blended arithmetically, without a branch or a select on a
  // loop-invariant flag, so the loop over the contiguous index vectorises (the halo is wide
  // enough for every load).
  const double q0 = above[0], qm1 = above[-stride], q1 = above[stride], qm2 = above[-2 * stride];
  const double q2 = above[2 * stride], qm3 = above[-3 * stride];
  const double centred = 37 * (q0 + qm1) - 8 * (q1 + qm2) + (q2 + qm3);
  const double upwind = 10 * (q0 - qm1) - 5 * (q1 - qm2) + (q2 - qm3);
  const double high = flux * (flux > 0 ? centred - upwind : centred + upwind) * (1.0 / 60.0);
  const double low = flux * (flux > 0 ? qm1 : q0);
  return high + open_face * (low - high);
}

KOKKOS_INLINE_FUNCTION double first_order_flux(const double* above, long stride, double flux) {
  return flux > 0 ? flux * above[-stride] : flux * above[0];
}

// Local index of the open-boundary face along an axis on this rank, or -1 when there is none.
struct OpenFaces {
  int lower[3] = {-1, -1, -1};
  int upper[3] = {-1, -1, -1};
  // 1 for the open-boundary face at `index` along `axis`, else 0: the weight fifth_order_flux takes.
  KOKKOS_INLINE_FUNCTION double weight(int axis, int index) const {
    return index == lower[axis] || index == upper[axis] ? 1.0 : 0.0;
  }
};

}  // namespace meridian::advection
