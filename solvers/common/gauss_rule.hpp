#pragma once
// Cell averages by quadrature, for initial states: advection's tracers, the atmosphere's background and
// perturbations.
#include <Kokkos_Core.hpp>

namespace meridian::solvers {

// Three-point Gauss-Legendre nodes on [-1/2, 1/2] and weights summing to one: exact for
// polynomials of degree five, so cell averages of smooth fields carry a sixth-order error.
struct GaussRule {
  static constexpr int points = 3;
  KOKKOS_INLINE_FUNCTION static double node(int n) {
    return n == 0 ? -0.3872983346207417 : n == 1 ? 0.0 : 0.3872983346207417;
  }
  KOKKOS_INLINE_FUNCTION static double weight(int n) { return n == 1 ? 8.0 / 18.0 : 5.0 / 18.0; }
};

}  // namespace meridian::solvers
