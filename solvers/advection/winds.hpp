#pragma once
// Prescribed winds on the unit square or cube, each the curl of a vector potential A times a
// factor of time g(t). Face volume fluxes are circulations of A around the face edges (Stokes),
// so every edge term enters two faces of a cell with opposite signs: the discrete divergence
// is zero and a constant tracer stays constant to round-off.
#include <Kokkos_Core.hpp>

#include <cmath>

#include "solvers/common/kokkos_math.hpp"

namespace meridian::advection {

enum class WindKind { uniform, rotation, deformation };

// Moves (x, y, z) to where the fluid there at time t was at time 0; false when that fluid came in
// through an open face. The uniform wind's paths are straight, so a departure point outside the
// box along an open axis is exactly the fluid that entered; the rotation's paths inside the unit
// disk about the centre stay in the box, and every shape is zero beyond it to below 1e-4. The
// deformational flow is carried back only at whole periods, where it is the identity.
struct Departure {
  WindKind kind = WindKind::rotation;
  Kokkos::Array<double, 3> shift{{0, 0, 0}};  // uniform: the distance travelled along each axis
  Kokkos::Array<bool, 3> periodic{{true, true, true}};
  double cos_turn = 1, sin_turn = 0;  // rotation: the angle turned

  // The uniform wind carries each coordinate back on its own: coordinate c along `axis`, and whether it stays in
  // the box (always, along a periodic axis).
  KOKKOS_INLINE_FUNCTION bool carry_back(int axis, double& c) const {
    c -= shift[axis];
    if (periodic[axis]) {
      c -= km::floor(c);
      return true;
    }
    return c >= 0 && c <= 1;
  }

  KOKKOS_INLINE_FUNCTION bool operator()(double& x, double& y, double& z) const {
    if (kind == WindKind::uniform) {
      // Per coordinate by name, not through an array of pointers to them, which a GPU keeps in local memory.
      const bool inside_x = carry_back(0, x), inside_y = carry_back(1, y), inside_z = carry_back(2, z);
      return inside_x && inside_y && inside_z;
    }
    if (kind == WindKind::rotation) {
      const double dx = x - 0.5, dy = y - 0.5;
      x = 0.5 + cos_turn * dx + sin_turn * dy;
      y = 0.5 - sin_turn * dx + cos_turn * dy;
    }
    return true;
  }
};

struct Wind {
  WindKind kind = WindKind::rotation;
  double u = 1, v = 0, w = 0;  // uniform velocity, unit lengths per unit time
  double period = 1.5;         // deformation: the flow reverses at period/2 and the tracer returns at period
  // Axes along which the box wraps; across the others fluid enters from outside carrying no tracer.
  Kokkos::Array<bool, 3> periodic{{true, true, true}};

  static constexpr double rotation_rate = 2 * pi;  // one turn per unit time about the centre

  // Vector potential component `axis` at (x, y, z).
  KOKKOS_INLINE_FUNCTION double potential(int axis, double x, double y, double z) const {
    switch (kind) {
      case WindKind::uniform: return axis == 0 ? v * z : axis == 1 ? w * x : u * y;
      case WindKind::rotation:
        return axis == 2 ? -0.5 * rotation_rate * ((x - 0.5) * (x - 0.5) + (y - 0.5) * (y - 0.5)) : 0.0;
      case WindKind::deformation: {
        if (axis != 2) return 0.0;
        const double sx = km::sin(pi * x), sy = km::sin(pi * y);
        return sx * sx * sy * sy / pi;
      }
    }
    return 0.0;
  }

  double time_factor(double t) const { return kind == WindKind::deformation ? std::cos(pi * t / period) : 1.0; }

  // The exact solution is the initial field carried back along the flow: known at every time
  // for uniform and rotating winds, and at whole periods for the deformational flow.
  bool exact_known(double t) const {
    if (kind != WindKind::deformation) return true;
    const double turns = t / period;
    return std::fabs(turns - std::round(turns)) < 1e-12 * (1 + turns);
  }

  // The map back from time t to time 0 (Departure), its constants worked out here once rather than at
  // every point a kernel carries back.
  Departure departure(double t) const {
    Departure d;
    d.kind = kind;
    d.shift = {{u * t, v * t, w * t}};
    d.periodic = periodic;
    d.cos_turn = std::cos(rotation_rate * t);
    d.sin_turn = std::sin(rotation_rate * t);
    return d;
  }
};

}  // namespace meridian::advection
