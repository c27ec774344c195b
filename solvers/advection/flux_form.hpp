#pragma once
// The flux-form pieces of the transport step, direction-generic: a face is addressed by the cell
// above it along an axis and that axis' index offsets (dk, dj, di).
#include "mesh/field.hpp"
#include "solvers/common/kokkos_math.hpp"
#include "solvers/common/wrf_interpolation.hpp"

namespace meridian::advection {

// The volume flux through the lower face of each cell, in the solver's precision.
template <class Real>
using FaceFlux = Kokkos::View<Real***, mesh::Layout>;

// The upwind face flux of the tracer at the face between the cell at `above` and the one a `stride`
// below it, times the volume flux through the face: WRF's 5th-order upwind interpolation (Wicker &
// Skamarock 2002) away from open boundaries, and, as WRF does next to a specified boundary, lower
// orders whose stencils stay inside the domain: 3rd-order upwind two faces in, 2nd-order centred one
// face in, and 1st-order upwind on the boundary face itself (from a zero halo, so nothing flows in).
// `from_boundary` is the face's distance in faces from the nearest open boundary face (OpenFaces).
// A pointer and a stride serve every direction (1 along x, a row along y, a plane along z). The
// arithmetic is in the tracer's type Real, so in single precision a vector holds twice as many cells.
template <class Real>
KOKKOS_FORCEINLINE_FUNCTION Real upwind_flux(const Real* above, long stride, Real flux, int from_boundary) {
  // Every order is computed and the result selected arithmetically, without a branch, so the loop
  // over the contiguous index vectorises (the halo is wide enough for every load).
  const Real q0 = above[0], qm1 = above[-stride], q1 = above[stride], qm2 = above[-2 * stride];
  const Real q2 = above[2 * stride], qm3 = above[-3 * stride];
  const Real sign = flux > 0 ? Real(1) : Real(-1);
  const Real fifth = solvers::fifth_order_upwind(qm3, qm2, qm1, q0, q1, q2, sign);
  const Real third =
      (Real(7) * (q0 + qm1) - (q1 + qm2) + sign * ((q1 - qm2) - Real(3) * (q0 - qm1))) * Real(1.0 / 12.0);
  const Real second = Real(0.5) * (q0 + qm1);
  const Real first = flux > 0 ? qm1 : q0;
  const Real value = from_boundary == 0   ? first
                     : from_boundary == 1 ? second
                     : from_boundary == 2 ? third
                                          : fifth;
  return flux * value;
}

template <class Real>
KOKKOS_INLINE_FUNCTION Real first_order_flux(const Real* above, long stride, Real flux) {
  return flux > 0 ? flux * above[-stride] : flux * above[0];
}

// A cell's new value, stored. Ahead of a tracer's edge the stencil leaves ripples that decay by orders of
// magnitude per cell; in single precision they reach the subnormal range within a few cells, and x86
// CPUs take subnormal arithmetic through a microcode path ~100x slower (measured: the 2048^2 rotation
// at 1.1e8 cell-updates/s instead of 2.4e8). So a single-precision value below 1e-20 (far below its
// resolution of any tracer of order 1e-12 or more) is stored as zero, and every value a kernel reads,
// and every product of such a value with a flux or a stencil weight, stays a normal number. Double
// precision reaches subnormals some 40 cells further out: it stores the value as it is.
KOKKOS_INLINE_FUNCTION double stored(double value) { return value; }
KOKKOS_INLINE_FUNCTION float stored(float value) { return km::fabs(value) < 1e-20f ? 0.0f : value; }

// Local index of the open-boundary face along an axis on this rank, or -1 when there is none.
struct OpenFaces {
  int lower[3] = {-1, -1, -1};
  int upper[3] = {-1, -1, -1};
  static constexpr int interior = 3;  // this far in, and beyond, a face has the full stencil
  // Distance in faces from the face at `index` along `axis` to the nearest open boundary face,
  // capped at `interior`: the argument upwind_flux takes.
  KOKKOS_INLINE_FUNCTION int from_boundary(int axis, int index) const {
    int d = interior;
    if (lower[axis] >= 0) d = index - lower[axis] < d ? index - lower[axis] : d;
    if (upper[axis] >= 0) d = upper[axis] - index < d ? upper[axis] - index : d;
    return d;
  }
};

}  // namespace meridian::advection
