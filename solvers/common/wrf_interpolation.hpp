#pragma once
// WRF's face interpolations from the six cells around a face (Wicker & Skamarock 2002): the 6th-order
// centred value, and the 5th-order upwind one, which is the centred value less a 6th difference
// weighted by the sign of the flow through the face. qm3 .. q2 are the cells three below to two above
// the face; `sign` is +1 where the flow goes up the axis (from qm1 into q0), -1 where it goes down.
// Templated on the arithmetic type, so single-precision advection stays single.
#include <Kokkos_Core.hpp>

namespace meridian::solvers {

template <class Real>
KOKKOS_FORCEINLINE_FUNCTION Real sixth_order_centred(Real qm3, Real qm2, Real qm1, Real q0, Real q1, Real q2) {
  return (Real(37) * (q0 + qm1) - Real(8) * (q1 + qm2) + (q2 + qm3)) * Real(1.0 / 60.0);
}

template <class Real>
KOKKOS_FORCEINLINE_FUNCTION Real fifth_order_upwind(Real qm3, Real qm2, Real qm1, Real q0, Real q1, Real q2,
                                                    Real sign) {
  return (Real(37) * (q0 + qm1) - Real(8) * (q1 + qm2) + (q2 + qm3) -
          sign * (Real(10) * (q0 - qm1) - Real(5) * (q1 - qm2) + (q2 - qm3))) *
         Real(1.0 / 60.0);
}

}  // namespace meridian::solvers
