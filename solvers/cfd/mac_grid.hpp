#pragma once
// The staggered (MAC) grid of the projection solver as kernels see it: a plain struct taken by value,
// and the per-face arithmetic as free inline functions (the AMReX kernel-header shape: the class that
// launches a kernel only sets it up). Velocity component c lives on the lower face along axis c of the
// cell with the same index, pressure at the cell centre. Indices are those of mesh::Field, halos
// included: this rank's cells are [lo, lo + n) along each axis; in 2-D the z range is the single index 0.
#include <Kokkos_Core.hpp>

#include <string>

#include "mesh/decomposition.hpp"
#include "mesh/field.hpp"
#include "parallel/launch_policy.hpp"
#include "parallel/team_shape.hpp"

namespace meridian::cfd {

// What holds a domain face. Periodic axes have no faces.
enum class FaceKind { wall, free_slip, inflow, outflow };
enum class InflowProfile { uniform, parabolic };
// central4 falls back to central on the faces whose stencil would reach a body or a domain face
// (MacProjection's fourth_order_cells).
enum class AdvectionScheme { central, quick, central4 };

struct MacGrid {
  int dims = 2;
  int n[3] = {1, 1, 1}, lo[3] = {0, 0, 0}, extent[3] = {1, 1, 1};
  long offset[3] = {0, 0, 0};
  double h[3] = {1, 1, 1}, length[3] = {1, 1, 1};
  // Per axis and side (0 lower, 1 upper): the FaceKind as an int where the face is a domain face held by
  // this rank, else -1 (a periodic axis, or a neighbouring rank's side).
  int face[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}};
  // A wall's velocity along its first tangential axis (tangential_axis), the moving lid.
  double wall_velocity[3][2] = {{0, 0}, {0, 0}, {0, 0}};
  int profile = 0;             // InflowProfile
  double inflow_velocity = 0;  // its maximum (parabolic) or value (uniform), ramped to the current time

  KOKKOS_INLINE_FUNCTION static int tangential_axis(int axis) { return axis == 0 ? 1 : 0; }
  // The face of component c at x is set by a boundary condition, not by the momentum equation: the
  // domain's lower face along c (its upper face lies in the halo, outside every owned range).
  // x's index along c picked, not indexed by c: a runtime index would put x in a GPU thread's local memory.
  KOKKOS_INLINE_FUNCTION bool fixed(int c, const int x[3]) const {
    return face[c][0] >= 0 && (c == 0 ? x[0] : c == 1 ? x[1] : x[2]) == lo[c];
  }
  KOKKOS_INLINE_FUNCTION double cell_volume() const { return h[0] * h[1] * (dims == 3 ? h[2] : 1.0); }
};

MacGrid mac_grid(const mesh::Decomposition& d, const double (&length)[3]);

// x + s e_a, as an index triple.
struct Shift {
  int x[3];
  KOKKOS_INLINE_FUNCTION Shift(const int (&from)[3], int axis, int s) : x{from[0], from[1], from[2]} { x[axis] += s; }
};

KOKKOS_INLINE_FUNCTION double at(const mesh::Field& f, int c, const int (&x)[3]) { return f(c, x[2], x[1], x[0]); }
KOKKOS_INLINE_FUNCTION double at(const mesh::Field& f, int c, const int (&x)[3], int axis, int s) {
  return at(f, c, Shift(x, axis, s).x);
}

// The distance in memory between neighbouring faces along `axis` (x, y, z) of a contiguous field: the stencils
// below read through pointers, as indexing the four-index View for every read cost more than their arithmetic.
KOKKOS_INLINE_FUNCTION long stride_along(const mesh::Field& u, int axis) { return static_cast<long>(u.stride(3 - axis)); }

// Those distances along x, y and z, and between a field's components, for the stencils of a fixed dimension D.
// Their axis and component loops have D steps, so the compiler unrolls them: every axis is then a constant,
// which keeps a GPU thread's indices in registers and lets a host row of faces vectorise, x's distance being
// the constant 1 (mesh::Field is LayoutRight) where a runtime one would make every load a gather.
struct FaceStrides {
  long y, z, component;
  KOKKOS_INLINE_FUNCTION long along(int axis) const { return axis == 0 ? 1 : axis == 1 ? y : z; }
  // Where the row (k, j) starts (its face at x index 0) within a component: a row kernel's pointers.
  KOKKOS_INLINE_FUNCTION long row(int k, int j) const { return k * z + j * y; }
};
KOKKOS_INLINE_FUNCTION FaceStrides face_strides(const mesh::Field& u) {
  return {stride_along(u, 1), stride_along(u, 2), static_cast<long>(u.stride(0))};
}

// d(u_a u_c)/dx_a summed over a, conservative: the flux through the face between u_c(y - e_a) and u_c(y)
// is the advecting velocity (u_a(y) + u_a(y - e_c)) / 2 times u_c interpolated there, centrally or by
// QUICK (Leonard 1979: 3/8 downstream + 6/8 upstream - 1/8 far upstream, third order and upwind-biased).
// `u0` points at component 0 of the face's cell.
template <int D, bool Quick>
KOKKOS_INLINE_FUNCTION double advection(const double* u0, int c, const FaceStrides& f, const MacGrid& g) {
  const long along_c = f.along(c);
  const double* uc = u0 + c * f.component;
  double sum = 0;
  for (int a = 0; a < D; ++a) {
    const long s = f.along(a);
    const double* ua = u0 + a * f.component;
    double flux[2];
    for (int side = 0; side < 2; ++side) {
      const double* wy = ua + side * s;  // u_a(y), y = x + side e_a
      const double* cy = uc + side * s;  // u_c(y)
      const double w = 0.5 * (wy[0] + wy[-along_c]);
      const double here = cy[0], below = cy[-s];
      const double value = !Quick ? 0.5 * (here + below)
                           : w > 0 ? 0.375 * here + 0.75 * below - 0.125 * cy[-2 * s]
                                   : 0.375 * below + 0.75 * here - 0.125 * cy[s];
      flux[side] = w * value;
    }
    sum += (flux[1] - flux[0]) / g.h[a];
  }
  return sum;
}

// u_a interpolated along c to the edge (or, for a = c, the cell centre) half a spacing below the face at
// `p` along c, `along_c` the stride between faces along c, to fourth order: 9/16 of the two nearest values
// less 1/16 of the next two.
KOKKOS_INLINE_FUNCTION double advecting_velocity4(const double* p, long along_c) {
  return 0.5625 * (p[0] + p[-along_c]) - 0.0625 * (p[along_c] + p[-2 * along_c]);
}

// d(u_a u_c)/dx_a summed over a, conservative and fourth order (Morinishi, Lund, Vasilyev & Moin 1998,
// J. Comput. Phys. 143, their Div.-S4): 9/8 of the flux difference over one spacing less 1/8 of that over
// three, the advecting velocity interpolated to fourth order. Second order leaves the wake's vortices too weak: at
// Schaefer-Turek 2D-2, D/h = 32, the lift's half peak-to-peak is 0.953 with central and 0.976 with this
// (the benchmark's about 1.01; scripts/validation/README.md).
constexpr int advection4_reach = 3;  // how many faces away along each axis advection4 reads
template <int D>
KOKKOS_INLINE_FUNCTION double advection4(const double* u0, int c, const FaceStrides& f, const MacGrid& g) {
  const long along_c = f.along(c);
  const double* uc = u0 + c * f.component;
  double sum = 0;
  for (int a = 0; a < D; ++a) {
    const long s = f.along(a);
    const double* ua = u0 + a * f.component;
    const double near1 = advecting_velocity4(ua + s, along_c) * 0.5 * (uc[s] + uc[0]);
    const double near0 = advecting_velocity4(ua, along_c) * 0.5 * (uc[0] + uc[-s]);
    const double upper = advecting_velocity4(ua + 2 * s, along_c) * 0.5 * (uc[0] + uc[3 * s]);
    const double lower = advecting_velocity4(ua - s, along_c) * 0.5 * (uc[-3 * s] + uc[0]);
    sum += (1.125 * (near1 - near0) - (upper - lower) / 24) / g.h[a];
  }
  return sum;
}

// The Laplacian of the component whose face value `uc` points at.
template <int D>
KOKKOS_INLINE_FUNCTION double laplacian(const double* uc, const FaceStrides& f, const MacGrid& g) {
  double sum = 0;
  for (int a = 0; a < D; ++a) {
    const long s = f.along(a);
    sum += (uc[s] - 2 * uc[0] + uc[-s]) / (g.h[a] * g.h[a]);
  }
  return sum;
}
// The divergence of the cell whose component-0 face `u0` points at.
template <int D>
KOKKOS_INLINE_FUNCTION double divergence(const double* u0, const FaceStrides& f, const MacGrid& g) {
  double sum = 0;
  for (int a = 0; a < D; ++a) {
    const double* ua = u0 + a * f.component;  // through a stride, as a shifted index copy sat in local memory
    sum += (ua[f.along(a)] - ua[0]) / g.h[a];
  }
  return sum;
}
// The same at the cell at x, in either dimension.
KOKKOS_INLINE_FUNCTION double divergence(const mesh::Field& u, const int (&x)[3], const MacGrid& g) {
  const double* u0 = &u(0, x[2], x[1], x[0]);
  const FaceStrides f = face_strides(u);
  return g.dims == 3 ? divergence<3>(u0, f, g) : divergence<2>(u0, f, g);
}

// This rank's cells (or the faces stored with them), as a (z, y, x) range.
inline parallel::Cells owned(const MacGrid& g) {
  return {{g.lo[2], g.lo[1], g.lo[0]}, {g.lo[2] + g.n[2], g.lo[1] + g.n[1], g.lo[0] + g.n[0]}};
}

// Over this rank's cells (or the faces stored with them), a row along x at a time (parallel::row_team_shape):
// make_row(k, j) makes the row's body, a functor whose row(i) runs at each cell of the row (a struct: a lambda
// returned from the device lambda drove nvcc 13's front end past 24 GB). On the host one loop along the row
// that GCC is told carries no dependence, which vectorises where the body's loops have compile-time lengths (a
// kernel's dimension a template parameter) and it reads through pointers the row holds by value (members of the
// closure the loop runs in could be changed by its stores, for all GCC knows); on a GPU a warp along the row.
// A launch over owned() calls its body cell by cell through Kokkos' tiles, which GCC leaves scalar.
template <class MakeRow>
void for_each_row(const std::string& label, const MacGrid& g, const MakeRow& make_row) {
  const parallel::TeamShape shape = parallel::row_team_shape();
  const int rows = g.n[2] * g.n[1], rows_per_team = shape.threads, first = g.lo[0], last = g.lo[0] + g.n[0];
  const int ny = g.n[1], z0 = g.lo[2], y0 = g.lo[1];
  Kokkos::parallel_for(
      label, shape.row_policy(rows), KOKKOS_LAMBDA(const parallel::TeamMember& team) {
        parallel::for_each_team_row(team, rows_per_team, rows, [&](const int r) {
          const auto row = make_row(z0 + r / ny, y0 + r % ny);
          parallel::for_each_in_row(team, first, last, row);
        });
      });
}

}  // namespace meridian::cfd
