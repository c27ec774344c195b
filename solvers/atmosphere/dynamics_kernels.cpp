#include "solvers/atmosphere/dynamics_kernels.hpp"

#include "parallel/launch_policy.hpp"
#include "parallel/team_shape.hpp"

namespace meridian::atmosphere {

Block block_of(const mesh::Decomposition& d, bool side_walls) {
  const int vertical = d.dimensions() - 1;
  const bool box = d.dimensions() == 3;
  return Block{static_cast<int>(d.local_cells(0)), box ? static_cast<int>(d.local_cells(1)) : 1,
               static_cast<int>(d.local_cells(vertical)), d.halo(0), side_walls && d.at_lower_boundary(0),
               side_walls && d.at_upper_boundary(0), box && side_walls && d.at_lower_boundary(1),
               box && side_walls && d.at_upper_boundary(1), d.at_lower_boundary(vertical),
               d.at_upper_boundary(vertical)};
}

namespace {

// The distance in memory between neighbouring cells along mesh axis `axis`.
template <int Dims>
long axis_stride(const mesh::Field& q, int axis) {
  if (axis == 0) return 1;
  return static_cast<long>(Dims == 2 || axis == 1 ? q.stride(2) : q.stride(1));
}

// Rows (along x) of cells or faces are numbered k * rows_y + j; the slice has one row per level.
template <int Dims>
KOKKOS_FORCEINLINE_FUNCTION int row_of(int k, int j, int rows_y) {
  return Dims == 2 ? k : k * rows_y + j;
}

// Where face `n` of the faces 0 .. cells across one axis (0 the lowest or leftmost) sits with respect
// to walls at its ends (`low`, `high`: those this rank touches).
KOKKOS_INLINE_FUNCTION FaceStencil face_stencil(int n, int cells, bool low, bool high) {
  if (low && n == 0) return FaceStencil::wall_below;
  if (high && n == cells) return FaceStencil::wall_above;
  if ((low && n == 1) || (high && n == cells - 1)) return FaceStencil::next_to_wall;
  return FaceStencil::interior;
}

// One row of faces as the host's vector loop sees it: where its first face's upper cell and flux start, and what
// the faces share.
struct RowOfFaces {
  const double* cells;
  double* flux;
  long stride, component_stride, flux_component_stride;
  int faces, last_face, normal;
  bool fifth, wall_row, west_wall, east_wall;  // the scheme; every face a wall; face 0, face last_face one
  FaceInputs inputs;

  KOKKOS_FORCEINLINE_FUNCTION bool wall(int i) const {
    return wall_row | (west_wall & (i == 0)) | (east_wall & (i == last_face));
  }
};

// The fluxes of a row whose stencils are all interior, on the host, by the flux functions with the scheme and
// the normal momentum fixed at compile time, in a loop that vectorises. False where a face's pressure
// perturbation was beyond its series' reach: the caller redoes the row with the normal known at run time.
template <int Dims, bool Fifth, int Normal>
bool known_row_fluxes(const RowOfFaces& r) {
  constexpr int n = components_of<Dims>;
  int beyond = 0;
  MERIDIAN_INDEPENDENT_ITERATIONS
  for (int i = 0; i < r.faces; ++i) {
    const bool wall = r.wall(i);
    double f[n];
    bool beyond_series;
    if constexpr (Fifth)
      fifth_order_face_flux<n, Normal>(r.cells + i, r.stride, r.component_stride, Normal, r.inputs, wall, f,
                                       beyond_series);
    else
      face_flux<n, Normal>(r.cells + i, r.stride, r.component_stride, Normal, r.inputs, wall, FaceStencil::interior,
                           f, beyond_series);
    for (int c = 0; c < n; ++c) r.flux[c * r.flux_component_stride + i] = f[c];
    beyond |= beyond_series;
  }
  return beyond == 0;
}

template <int Dims, bool Fifth>
bool known_row_fluxes(const RowOfFaces& r) {
  if (r.normal == momentum_x) return known_row_fluxes<Dims, Fifth, momentum_x>(r);
  if (r.normal == momentum_z) return known_row_fluxes<Dims, Fifth, momentum_z>(r);
  if constexpr (Dims == 3) return known_row_fluxes<Dims, Fifth, momentum_y>(r);
  return false;
}

// Fluxes through this rank's faces across mesh axis `axis`: rows of faces along x (a row of x-faces
// per row of cells, a row of y-faces per y face and level, a row of z-faces per face level and y),
// lanes along x. On the host the rows whose stencils are all interior go through known_row_fluxes.
template <int Dims>
void face_fluxes(int axis, const FluxInputs& in) {
  const mesh::Field q = in.q;
  const Flux flux = in.flux;
  const BackgroundView cells = in.cells, faces = in.faces;
  const Block b = in.b;
  const double hv = in.hyperviscosity, spacing = in.spacing, nu = in.viscosity, kappa = in.diffusivity;
  const bool fifth = in.fifth_order, one_sided = in.one_sided_walls, vector_rows = in.vector_rows;
  const bool along_y = Dims == 3 && axis == 1, along_z = axis == Dims - 1;
  const int normal = normal_momentum<Dims>(axis);
  const long component_stride = static_cast<long>(q.stride(0));
  const long stride = axis_stride<Dims>(q, axis);
  const int rows_y = b.ny + (along_y ? 1 : 0), rows = rows_y * (b.nz + (along_z ? 1 : 0));
  const int faces_per_row = axis == 0 ? b.nx + 1 : b.nx;
  const parallel::TeamShape shape = parallel::row_team_shape();
  const int rows_per_team = shape.threads;
  Kokkos::parallel_for(
      "atmosphere::face_fluxes", shape.row_policy(rows), KOKKOS_LAMBDA(const parallel::TeamMember& team) {
        parallel::for_each_team_row(team, rows_per_team, rows, [&](const int row) {
          const int k = Dims == 2 ? row : row / rows_y, j = Dims == 2 ? 0 : row % rows_y;
          FaceInputs inputs{};  // the levels past a narrower halo stay zero: no read of an unset value
          inputs.hyperviscosity = hv, inputs.spacing = spacing, inputs.viscosity = nu, inputs.diffusivity = kappa;
          // The background of the stencil's cells that the halo holds (all six with the 5th-order flux's
          // three-cell halo): across the horizontal faces the row's level, across the vertical ones the
          // levels about the face. A loop of constant bounds, unrolled to constant indices: with the halo's
          // width as its bounds, sm_90's face-flux kernel kept `inputs` in local memory (ptxas: a 400-byte
          // stack frame in 2-D, 480 in 3-D; 192 and 288 now).
          inputs.face = along_z ? faces(k) : cells(b.h + k);
          for (int s = 0; s < 6; ++s)
            if (s >= 3 - b.h && s < 3 + b.h) inputs.cell[s] = cells(b.h + k + (along_z ? s - 3 : 0));
          const bool wall_row = (along_z && ((b.ground && k == 0) || (b.lid && k == b.nz))) ||
                                (along_y && ((b.south && j == 0) || (b.north && j == b.ny)));
          const FaceStencil row_stencil = !one_sided || axis == 0 ? FaceStencil::interior
                                          : along_z      ? face_stencil(k, b.nz, b.ground, b.lid)
                                                         : face_stencil(j, b.ny, b.south, b.north);
          const RowOfFaces r{&at<Dims>(q, 0, b.h + k, b.h + j, b.h), &flux(0, row, 0), stride, component_stride,
                             static_cast<long>(flux.stride(0)), faces_per_row, b.nx, normal, fifth, wall_row,
                             axis == 0 && b.west, axis == 0 && b.east, inputs};
          const bool vector_row = vector_rows && row_stencil == FaceStencil::interior && !(one_sided && axis == 0);
          if constexpr (parallel::device_memory_is_host) {
            if (vector_row && (r.fifth ? known_row_fluxes<Dims, true>(r) : known_row_fluxes<Dims, false>(r))) return;
          }
          parallel::for_each_in_row(team, 0, faces_per_row, [&](const int i) {
            const bool wall = r.wall(i);
            const double* above = &at<Dims>(q, 0, b.h + k, b.h + j, b.h + i);
            const FaceStencil stencil = axis == 0 && one_sided ? face_stencil(i, b.nx, b.west, b.east) : row_stencil;
            double f[components_of<Dims>];
            bool beyond_series;
            if (fifth)
              fifth_order_face_flux<components_of<Dims>>(above, stride, component_stride, normal, inputs, wall, f,
                                                         beyond_series);
            else
              face_flux<components_of<Dims>>(above, stride, component_stride, normal, inputs, wall, stencil, f,
                                             beyond_series);
            for (int c = 0; c < components_of<Dims>; ++c) flux(c, row, i) = f[c];
          });
        });
      });
}

// out = initial - dt (flux divergence across mesh axis `axis`), and along the vertical the buoyancy
// -g rho' of `forcing` in the z momentum and the Rayleigh layer's relaxation of `forcing`. `out` may be
// `initial` or `forcing`: each cell is read before it is written. One row's cells along x: pointers at its
// first cell's component 0 (the fluxes' at the faces below and above it), and the row's Rayleigh values.
// Through pointers the host's loop reads contiguous memory and vectorises (through the Views' indices it read
// the flux slices by gathers and was slower than scalar).
template <int Dims>
struct UpdateRow {
  static constexpr int n = components_of<Dims>;
  const double *initial, *forcing, *lower, *upper;
  double* out;
  long component, flux_component;
  double scale, buoyancy, dt;
  bool rayleigh;
  BackgroundPoint cell;
  double wind, rate;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    double state[n], relaxation[n] = {};
    for (int c = 0; c < n; ++c) state[c] = forcing[c * component + i];
    if (rayleigh) rayleigh_tendency<n>(state, cell, wind, rate, relaxation);
    for (int c = 0; c < n; ++c) {
      double next = initial[c * component + i] - scale * (upper[c * flux_component + i] - lower[c * flux_component + i]);
      if (c == momentum_z) next -= buoyancy * state[density];
      if (rayleigh) next += dt * relaxation[c];
      out[c * component + i] = next;
    }
  }
};

template <int Dims>
void apply_tendencies(int axis, const Block& b, const Flux& flux, const mesh::Field& initial,
                      const mesh::Field& forcing, const mesh::Field& out, double dt, double spacing,
                      const VerticalSources& sources) {
  const bool along_y = Dims == 3 && axis == 1, along_z = axis == Dims - 1;
  const double scale = dt / spacing, buoyancy = along_z ? dt * gravity : 0.0;
  const bool rayleigh = along_z && sources.rayleigh;
  const BackgroundView cells = sources.cells;
  const Kokkos::View<const double*> rate = sources.rayleigh_rate;
  const double wind = sources.wind;
  const int di = axis == 0, dj = along_y, dk = along_z;
  const int flux_rows_y = b.ny + dj;
  const long component = static_cast<long>(initial.stride(0)), flux_component = static_cast<long>(flux.stride(0));
  const parallel::TeamShape shape = parallel::row_team_shape();
  const int rows_per_team = shape.threads, rows = b.nz * b.ny;
  Kokkos::parallel_for(
      "atmosphere::apply_tendencies", shape.row_policy(rows), KOKKOS_LAMBDA(const parallel::TeamMember& team) {
        parallel::for_each_team_row(team, rows_per_team, rows, [&](const int row) {
          const int k = Dims == 2 ? row : row / b.ny, j = Dims == 2 ? 0 : row % b.ny;
          const int lower = row_of<Dims>(k, j, flux_rows_y), upper = row_of<Dims>(k + dk, j + dj, flux_rows_y);
          const UpdateRow<Dims> update{&at<Dims>(initial, 0, b.h + k, b.h + j, b.h),
                                       &at<Dims>(forcing, 0, b.h + k, b.h + j, b.h),
                                       &flux(0, lower, 0),
                                       &flux(0, upper, di),
                                       &at<Dims>(out, 0, b.h + k, b.h + j, b.h),
                                       component,
                                       flux_component,
                                       scale,
                                       buoyancy,
                                       dt,
                                       rayleigh,
                                       rayleigh ? cells(b.h + k) : BackgroundPoint{},
                                       wind,
                                       rayleigh ? rate(k) : 0.0};
          parallel::for_each_in_row(team, 0, b.nx, update);
        });
      });
}

// The halos beyond a side wall across horizontal mesh axis `axis` (x, or y in 3-D) on this rank's
// interior rows: every component copied from its mirror cell, the normal momentum zero.
template <int Dims>
void side_wall_halos(int axis, bool lower_wall, bool upper_wall, const Block& b, const mesh::Field& q) {
  const int h = b.h, cells_along = axis == 0 ? b.nx : b.ny, across = axis == 0 ? b.ny : b.nx;
  const int normal = normal_momentum<Dims>(axis);
  Kokkos::parallel_for(
      "atmosphere::side_wall_halos", parallel::FlatPolicy(0, b.nz * across), KOKKOS_LAMBDA(const int r) {
        const int k = h + r / across, t = h + r % across;
        for (int side = 0; side < 2; ++side) {
          if ((side == 0 && !lower_wall) || (side == 1 && !upper_wall)) continue;
          const int inside = side == 0 ? h : h + cells_along - 1;
          for (int s = 1; s <= h; ++s) {
            const int halo = side == 0 ? h - s : h + cells_along - 1 + s;
            const int j_halo = axis == 0 ? t : halo, i_halo = axis == 0 ? halo : t;
            const int j_inside = axis == 0 ? t : inside, i_inside = axis == 0 ? inside : t;
            for (int c = 0; c < components_of<Dims>; ++c)
              at<Dims>(q, c, k, j_halo, i_halo) = at<Dims>(q, c, k, j_inside, i_inside);
            at<Dims>(q, normal, k, j_halo, i_halo) = 0;
          }
        }
      });
}

}  // namespace

template <int Dims>
void directional_fluxes(int axis, const FluxInputs& in) {
  face_fluxes<Dims>(axis, in);
}

template <int Dims>
void directional_update(int axis, const FluxInputs& in, const mesh::Field& initial, const mesh::Field& out, double dt,
                        const VerticalSources& sources) {
  apply_tendencies<Dims>(axis, in.b, in.flux, initial, in.q, out, dt, in.spacing, sources);
}

template <int Dims>
void wall_halos_across(int axis, const Block& b, const BackgroundView& cells, const mesh::Field& q) {
  const int h = b.h;
  if (axis == 0) {
    if (b.west || b.east) side_wall_halos<Dims>(0, b.west, b.east, b, q);
  } else if (axis < Dims - 1) {
    if (b.south || b.north) side_wall_halos<Dims>(1, b.south, b.north, b, q);
  } else if (b.ground || b.lid) {
    const int width = b.nx + 2 * h, columns = width * (Dims == 3 ? b.ny + 2 * h : 1);
    Kokkos::parallel_for(
        "atmosphere::ground_and_lid_halos", parallel::FlatPolicy(0, columns), KOKKOS_LAMBDA(const int n) {
          const int i = n % width, j = n / width;
          for (int side = 0; side < 2; ++side) {
            if ((side == 0 && !b.ground) || (side == 1 && !b.lid)) continue;
            const int inside = side == 0 ? h : h + b.nz - 1;
            for (int s = 1; s <= h; ++s) {
              const int halo = side == 0 ? h - s : h + b.nz - 1 + s;
              at<Dims>(q, density, halo, j, i) = at<Dims>(q, density, inside, j, i);
              at<Dims>(q, rho_theta, halo, j, i) = at<Dims>(q, rho_theta, inside, j, i);
              at<Dims>(q, momentum_z, halo, j, i) = 0;
              for (int c = 0; c < components_of<Dims>; ++c)
                if (is_momentum(c) && c != momentum_z)
                  at<Dims>(q, c, halo, j, i) = at<Dims>(q, c, inside, j, i) / cells(inside).rho * cells(halo).rho;
            }
          }
        });
  }
}

// The 2-D slice's and the 3-D box's.
template void directional_fluxes<2>(int, const FluxInputs&);
template void directional_fluxes<3>(int, const FluxInputs&);
template void directional_update<2>(int, const FluxInputs&, const mesh::Field&, const mesh::Field&, double,
                                    const VerticalSources&);
template void directional_update<3>(int, const FluxInputs&, const mesh::Field&, const mesh::Field&, double,
                                    const VerticalSources&);
template void wall_halos_across<2>(int, const Block&, const BackgroundView&, const mesh::Field&);
template void wall_halos_across<3>(int, const Block&, const BackgroundView&, const mesh::Field&);

}  // namespace meridian::atmosphere
