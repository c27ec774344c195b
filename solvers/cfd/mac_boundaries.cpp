#include "solvers/cfd/mac_boundaries.hpp"

#include <cmath>

#include "mesh/reductions.hpp"
#include "solvers/common/kokkos_math.hpp"

namespace meridian::cfd {

MacGrid mac_grid(const mesh::Decomposition& d, const double (&length)[3]) {
  MacGrid g;
  g.dims = d.dimensions();
  for (int a = 0; a < 3; ++a) {
    g.n[a] = static_cast<int>(d.local_cells(a));
    g.lo[a] = d.halo(a);
    g.extent[a] = g.n[a] + 2 * g.lo[a];
    g.offset[a] = d.offset(a);
    g.length[a] = length[a];
    g.h[a] = length[a] / static_cast<double>(d.global_cells(a));
  }
  return g;
}

namespace {

using Plane = parallel::Plane;

// The two axes other than `axis`, and this rank's cells of them. b1 is
// the faster of the two in memory and the plane's contiguous (second) index, so that host threads walk cache
// lines and GPU warps coalesce along it; a 2-D grid's y faces then run along x, not along its one z index.
struct PlaneAxes {
  int b1, b2;
  constexpr explicit PlaneAxes(int axis) : b1(axis == 0 ? 1 : 0), b2(axis == 2 ? 1 : 2) {}
  Plane owned(const MacGrid& g) const {
    return Plane{{g.lo[b2], g.lo[b1]}, {g.lo[b2] + g.n[b2], g.lo[b1] + g.n[b1]}};
  }
};

// The inflow's normal velocity at the face point x (its tangential indices), pointing into the domain.
KOKKOS_INLINE_FUNCTION double inflow_at(const MacGrid& g, int axis, int side, const int (&x)[3]) {
  double shape = 1;
  if (g.profile == static_cast<int>(InflowProfile::parabolic))
    for (int b = 0; b < g.dims; ++b) {
      if (b == axis) continue;
      const double xi = (static_cast<double>(g.offset[b] + x[b] - g.lo[b]) + 0.5) * g.h[b] / g.length[b];
      shape *= 4 * xi * (1 - xi);
    }
  return (side == 0 ? 1 : -1) * g.inflow_velocity * shape;
}

// The domain faces of one axis that this rank holds (`sides`: bit 0 the lower, bit 1 the upper) along their
// planes (every index of the other two axes, halos included), `depth` ghost layers deep, in one launch over
// passes x planes: a pass sets one layer of a tangential component's ghosts, or a face's normal component and
// its ghosts, of one side. Passes write apart and read only values no pass writes where the two faces' stencils
// do not meet (apply_faces launches the sides apart where they might). On the host a pass streams through its
// plane: a thread that did every pass at one point read and wrote some 24 places apart and, past the
// prefetchers' streams, waited on each (the 3-D cavity at 64^3 spent 9% of its step here). The axis is a
// template parameter, so a point's indices are registers.
template <int Axis>
void apply_faces_of_axis(const mesh::Field& u, const MacGrid g, int sides, Fill mode, int depth) {
  constexpr int b1 = PlaneAxes(Axis).b1, b2 = PlaneAxes(Axis).b2;
  const bool homogeneous = mode == Fill::homogeneous;
  const int per_side = (g.dims - 1) * depth + 1;  // a side's passes: its tangential layers, then its normal component
  const int side_count = sides == 3 ? 2 : 1;
  const parallel::Cells passes{{0, 0, 0}, {side_count * per_side, g.extent[b2], g.extent[b1]}};
  parallel::for_each(
      "mac::face", passes, KOKKOS_LAMBDA(const int pass, const int q2, const int q1) {
        const int side = sides == 2 ? 1 : pass / per_side, r = pass % per_side;
        const int kind = g.face[Axis][side];
        const int out = side == 0 ? -1 : 1;
        int x[3];
        x[b1] = q1, x[b2] = q2;
        if (r < per_side - 1) {
          const int b = r < depth ? b1 : b2, m = r % depth + 1;
          const double lid = !homogeneous && b == MacGrid::tangential_axis(Axis) ? g.wall_velocity[Axis][side] : 0.0;
          const int first = side == 0 ? g.lo[Axis] : g.lo[Axis] + g.n[Axis] - 1;  // the cell next to the face
          x[Axis] = first - out * (m - 1);
          const double inside = at(u, b, x);
          x[Axis] = first + out * m;
          double& ghost = u(b, x[2], x[1], x[0]);
          if (kind == static_cast<int>(FaceKind::wall)) ghost = 2 * lid - inside;
          else if (kind == static_cast<int>(FaceKind::inflow)) ghost = -inside;
          else ghost = inside;
          return;
        }
        const int face = side == 0 ? g.lo[Axis] : g.lo[Axis] + g.n[Axis];  // the normal component's index
        const int beyond = side == 0 ? depth : depth - 1;                   // normal-component ghosts past the face
        x[Axis] = face;
        double& normal = u(Axis, x[2], x[1], x[0]);
        if (kind == static_cast<int>(FaceKind::inflow)) normal = homogeneous ? 0.0 : inflow_at(g, Axis, side, x);
        else if (kind != static_cast<int>(FaceKind::outflow) || homogeneous) normal = 0;
        const double on_face = normal;
        for (int m = 1; m <= beyond; ++m) {
          x[Axis] = face - out * m;
          const double inside = at(u, Axis, x);
          x[Axis] = face + out * m;
          u(Axis, x[2], x[1], x[0]) = kind == static_cast<int>(FaceKind::outflow) ? on_face : 2 * on_face - inside;
        }
      });
}

void apply_faces_of_axis(const mesh::Field& u, const MacGrid& g, int axis, int sides, Fill mode, int depth) {
  if (axis == 0) apply_faces_of_axis<0>(u, g, sides, mode, depth);
  else if (axis == 1) apply_faces_of_axis<1>(u, g, sides, mode, depth);
  else apply_faces_of_axis<2>(u, g, sides, mode, depth);
}

// An outflow face's normal velocity from the continuity of its cell (this rank's part of the face).
void outflow_by_continuity(const mesh::Field& u, const MacGrid g, int axis, int side) {
  const PlaneAxes p(axis);
  const int b1 = p.b1, b2 = p.b2;
  const int cell = side == 0 ? g.lo[axis] : g.lo[axis] + g.n[axis] - 1, face = side == 0 ? cell : cell + 1;
  const int inner = side == 0 ? cell + 1 : cell;
  const double sign = side == 0 ? 1 : -1;
  parallel::for_each(
      "mac::outflow_continuity", p.owned(g), KOKKOS_LAMBDA(const int q2, const int q1) {
        int x[3];
        x[b1] = q1, x[b2] = q2, x[axis] = cell;
        double across = 0;
        for (int b = 0; b < g.dims; ++b)
          if (b != axis) across += (at(u, b, x, b, 1) - at(u, b, x)) / g.h[b];
        x[axis] = inner;
        const double next = at(u, axis, x);
        x[axis] = face;
        u(axis, x[2], x[1], x[0]) = next + sign * g.h[axis] * across;
      });
}

// The outflow's normal velocity before the projection: convective (d/dt + U_c d/dn) u = 0 with the face's
// mean outgoing velocity U_c, or zero gradient (u_face = its neighbour).
void outflow_rule(const mesh::Field& u, const MacGrid g, int axis, int side, double dt, double outgoing, bool convective) {
  const PlaneAxes p(axis);
  const int b1 = p.b1, b2 = p.b2;
  const int face = side == 0 ? g.lo[axis] : g.lo[axis] + g.n[axis];
  const int inner = side == 0 ? face + 1 : face - 1, out = side == 0 ? -1 : 1;
  parallel::for_each(
      "mac::outflow_rule", p.owned(g), KOKKOS_LAMBDA(const int q2, const int q1) {
        int x[3];
        x[b1] = q1, x[b2] = q2, x[axis] = inner;
        const double next = at(u, axis, x);
        x[axis] = face;
        double& value = u(axis, x[2], x[1], x[0]);
        value = convective ? value - dt * outgoing * out * (value - next) / g.h[axis] : next;
      });
}

// This rank's sum of the normal velocity over a domain face it holds.
double normal_velocity_sum(const mesh::Field& u, const MacGrid g, int axis, int side) {
  const PlaneAxes p(axis);
  const int b1 = p.b1, b2 = p.b2, face = side == 0 ? g.lo[axis] : g.lo[axis] + g.n[axis];
  double local = 0;
  parallel::reduce(
      "mac::outflow_mean", p.owned(g),
      KOKKOS_LAMBDA(const int q2, const int q1, double& sum) {
        int x[3];
        x[b1] = q1, x[b2] = q2, x[axis] = face;
        sum += at(u, axis, x);
      },
      local);
  return local;
}

}  // namespace

MacBoundaries::MacBoundaries(const mesh::Decomposition& decomp, const MacGrid& grid, const BoundarySettings& settings)
    : decomp_(decomp), grid_(grid), settings_(settings), exchange_(decomp, decomp.dimensions()) {
  for (int a = 0; a < grid_.dims; ++a) {
    const bool held[2] = {decomp.at_lower_boundary(a), decomp.at_upper_boundary(a)};
    for (int side = 0; side < 2; ++side) {
      grid_.face[a][side] = !decomp.periodic(a) && held[side] ? static_cast<int>(settings.face[a][side]) : -1;
      grid_.wall_velocity[a][side] = settings.wall_velocity[a][side];
    }
  }
  grid_.profile = static_cast<int>(settings.profile);
}

bool MacBoundaries::any(FaceKind kind) const {
  for (int a = 0; a < grid_.dims; ++a)
    for (int side = 0; side < 2; ++side)
      if (!decomp_.periodic(a) && settings_.face[a][side] == kind) return true;
  return false;
}

void MacBoundaries::apply_faces(const mesh::Field& velocity, Fill mode, Layers layers) {
  for (int a = 0; a < grid_.dims; ++a) {
    const int sides = (grid_.face[a][0] >= 0 ? 1 : 0) | (grid_.face[a][1] >= 0 ? 2 : 0);
    if (sides == 0) continue;
    const int depth = layers == Layers::all ? grid_.lo[a] : 1;
    // Each face reads and writes `depth` cells on either side of it: on a rank this thin the two faces'
    // stencils may meet, and the lower face must be done everywhere before the upper one starts.
    if (sides == 3 && grid_.n[a] <= 2 * depth) {
      apply_faces_of_axis(velocity, grid_, a, 1, mode, depth);
      apply_faces_of_axis(velocity, grid_, a, 2, mode, depth);
    } else {
      apply_faces_of_axis(velocity, grid_, a, sides, mode, depth);
    }
  }
}

void MacBoundaries::fill(const mesh::Field& velocity, Fill mode, double time, Layers layers) {
  if (mode != Fill::homogeneous) {
    const double ramp = settings_.inflow_ramp_time;
    const double s = ramp > 0 && time < ramp ? std::sin(0.5 * pi * time / ramp) : 1.0;
    grid_.inflow_velocity = settings_.inflow_velocity * s * s;
  }
  exchange_.exchange(velocity, mesh::Corners::fill);
  apply_faces(velocity, mode, layers);
  if (mode == Fill::state && any(FaceKind::outflow)) {
    for (int a = 0; a < grid_.dims; ++a)
      for (int side = 0; side < 2; ++side)
        if (grid_.face[a][side] == static_cast<int>(FaceKind::outflow)) outflow_by_continuity(velocity, grid_, a, side);
    apply_faces(velocity, mode, layers);
    // Continuity sets the outflow faces on owned cells only: the neighbours along the face need them.
    exchange_.exchange(velocity, mesh::Corners::fill);
  }
}

double MacBoundaries::mean_normal_velocity(const mesh::Field& velocity, int axis, int side) const {
  const double local = grid_.face[axis][side] >= 0 ? normal_velocity_sum(velocity, grid_, axis, side) : 0.0;
  double cells = 1;
  for (int b = 0; b < grid_.dims; ++b)
    if (b != axis) cells *= static_cast<double>(decomp_.global_cells(b));
  return mesh::global_sum(local, decomp_.comm()) / cells;
}

void MacBoundaries::outflow_before_predictor(const mesh::Field& velocity, double dt) {
  if (settings_.outflow != OutflowKind::convective) return;
  for (int a = 0; a < grid_.dims; ++a)
    for (int side = 0; side < 2; ++side) {
      if (decomp_.periodic(a) || settings_.face[a][side] != FaceKind::outflow) continue;
      const double out = side == 0 ? -1 : 1;
      const double outgoing = out * std::max(0.0, out * mean_normal_velocity(velocity, a, side));  // collective
      if (grid_.face[a][side] >= 0) outflow_rule(velocity, grid_, a, side, dt, outgoing, true);
    }
}

void MacBoundaries::outflow_after_predictor(const mesh::Field& velocity) {
  if (settings_.outflow != OutflowKind::zero_gradient) return;
  for (int a = 0; a < grid_.dims; ++a)
    for (int side = 0; side < 2; ++side)
      if (grid_.face[a][side] == static_cast<int>(FaceKind::outflow)) outflow_rule(velocity, grid_, a, side, 0, 0, false);
}

}  // namespace meridian::cfd
