#pragma once
// Exact cell averages of a tracer shape carried back to time 0: the reference the solver's errors are measured
// against, and its initial state. Gauss-Legendre quadrature (3 points an axis) over the cell's departure points.
#include <Kokkos_Core.hpp>

#include "solvers/advection/tracer_shapes.hpp"
#include "solvers/advection/winds.hpp"

namespace meridian::advection {

// A cell of the unit box: its lower corner and its widths.
struct CellBounds {
  double x0, y0, z0, dx, dy, dz;
};

// Point p of an axis's `points` across a cell from `lower`, `width` wide, and its weight: the Gauss rule's, or
// one point mid-cell of weight 1 (a 2-D grid's z).
KOKKOS_INLINE_FUNCTION double quadrature_coordinate(double lower, double width, int p, int points) {
  return lower + (0.5 + (points > 1 ? GaussRule::node(p) : 0.0)) * width;
}
KOKKOS_INLINE_FUNCTION double quadrature_weight(int p, int points) { return points > 1 ? GaussRule::weight(p) : 1.0; }

// The quadrature point by point: any shape, any wind. `z_points` is 1 on a 2-D grid.
KOKKOS_INLINE_FUNCTION double point_quadrature_average(const Shape& shape, const Departure& departure,
                                                       const CellBounds& cell, int z_points) {
  constexpr int n = GaussRule::points;
  double sum = 0;
  for (int pz = 0; pz < z_points; ++pz)
    for (int py = 0; py < n; ++py)
      for (int px = 0; px < n; ++px) {
        double x = quadrature_coordinate(cell.x0, cell.dx, px, n);
        double y = quadrature_coordinate(cell.y0, cell.dy, py, n);
        double z = quadrature_coordinate(cell.z0, cell.dz, pz, z_points);
        if (!departure(x, y, z)) continue;
        sum += quadrature_weight(pz, z_points) * quadrature_weight(py, n) * quadrature_weight(px, n) * shape(x, y, z);
      }
  return sum;
}

// Along one axis, the quadrature weights of the points whose fluid was in the box, and the same sum of the
// shape's factor there.
struct AxisSums {
  double inside = 0, factor = 0;
};

KOKKOS_INLINE_FUNCTION AxisSums axis_sums(const Shape& shape, const Departure& departure, int axis, double lower,
                                          double width, int points) {
  AxisSums sums;
  for (int p = 0; p < points; ++p) {
    double c = quadrature_coordinate(lower, width, p, points);
    const double weight = quadrature_weight(p, points);
    if (!departure.carry_back(axis, c)) continue;
    sums.inside += weight;
    sums.factor += weight * shape.factor(axis, c);
  }
  return sums;
}

// The same quadrature where the uniform wind carries each coordinate back on its own and the shape is
// base + amplitude gx gy gz: the sum over the points factors into sums along each axis, 9 factor evaluations
// where the points took 27 shapes (the sine wave's three sines each; 2.2 s an output at 128^3 on one core).
KOKKOS_INLINE_FUNCTION double separable_average(const Shape& shape, const Departure& departure, const CellBounds& cell,
                                                int z_points) {
  const AxisSums x = axis_sums(shape, departure, 0, cell.x0, cell.dx, GaussRule::points);
  const AxisSums y = axis_sums(shape, departure, 1, cell.y0, cell.dy, GaussRule::points);
  const AxisSums z = axis_sums(shape, departure, 2, cell.z0, cell.dz, z_points);
  return shape.base() * x.inside * y.inside * z.inside + shape.amplitude() * x.factor * y.factor * z.factor;
}

KOKKOS_INLINE_FUNCTION double cell_average(const Shape& shape, const Departure& departure, const CellBounds& cell,
                                           int z_points) {
  if (departure.kind == WindKind::uniform && shape.separable()) return separable_average(shape, departure, cell, z_points);
  return point_quadrature_average(shape, departure, cell, z_points);
}

}  // namespace meridian::advection
