#pragma once
// Initial tracer distributions, evaluated pointwise in kernels; cell averages come from
// Gauss-Legendre quadrature so that finite-volume errors are measured against averages.
#include <Kokkos_Core.hpp>

#include "solvers/common/gauss_rule.hpp"
#include "solvers/common/kokkos_math.hpp"

namespace meridian::advection {

enum class ShapeKind { gaussian, cosine_bell, slotted_disk, sine_wave, constant };

struct Shape {
  ShapeKind kind = ShapeKind::cosine_bell;
  double cx = 0.5, cy = 0.75, cz = 0.5;  // centre
  double radius = 0.15;
  int dimensions = 2;
  // Zalesak (1979): slot 0.05 wide, reaching 0.25 up from the bottom of the disk.
  static constexpr double slot_width = 0.05, slot_length = 0.25;

  KOKKOS_INLINE_FUNCTION double operator()(double x, double y, double z) const {
    if (separable()) return base() + amplitude() * factor(0, x) * factor(1, y) * factor(2, z);
    const double dz = dimensions == 3 ? z - cz : 0.0;
    const double r = km::sqrt((x - cx) * (x - cx) + (y - cy) * (y - cy) + dz * dz);
    if (kind == ShapeKind::cosine_bell) return r < radius ? 0.5 * (1 + km::cos(pi * r / radius)) : 0.0;
    const bool in_slot = km::fabs(x - cx) < 0.5 * slot_width && y < cy - radius + slot_length;
    return r < radius && !in_slot ? 1.0 : 0.0;
  }

  // The sine wave, the Gaussian hill and the constant are base + amplitude gx(x) gy(y) gz(z); the cosine bell and
  // the slotted disk are no such product.
  KOKKOS_INLINE_FUNCTION bool separable() const {
    return kind == ShapeKind::sine_wave || kind == ShapeKind::gaussian || kind == ShapeKind::constant;
  }
  KOKKOS_INLINE_FUNCTION double base() const { return kind == ShapeKind::gaussian ? 0.0 : 1.0; }
  KOKKOS_INLINE_FUNCTION double amplitude() const {
    return kind == ShapeKind::sine_wave ? 0.5 : kind == ShapeKind::gaussian ? 1.0 : 0.0;
  }
  // g along `axis` at coordinate c (1 along z in 2-D): the Gaussian's exp(-(2 r / radius)^2) is the product of
  // exp(-(2 d / radius)^2) over the axes' distances d from the centre. Its e-folding width is radius/2, so the
  // hill is below 1e-4 of its peak at twice the radius.
  KOKKOS_INLINE_FUNCTION double factor(int axis, double c) const {
    if ((axis == 2 && dimensions != 3) || kind == ShapeKind::constant) return 1.0;
    if (kind == ShapeKind::sine_wave) return km::sin(2 * pi * c);
    const double s = 2 * (c - (axis == 0 ? cx : axis == 1 ? cy : cz)) / radius;
    return km::exp(-s * s);
  }
};

using solvers::GaussRule;

}  // namespace meridian::advection
