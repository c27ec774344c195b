#include "solvers/atmosphere/water_kernels.hpp"

#include "parallel/launch_policy.hpp"

namespace meridian::atmosphere {

namespace {

// The water's fluxes through this rank's faces across mesh axis `axis`, into the flux buffer's water slots:
// faces numbered as face_fluxes numbers them (rows of faces along x), one thread per face.
template <int Dims>
void water_face_fluxes(int axis, const WaterInputs& in) {
  const mesh::Field water = in.water, air = in.air;
  const Flux flux = in.flux;
  const BackgroundView cells = in.cells;
  const Block b = in.b;
  const int first = in.first_slot;
  const bool along_y = Dims == 3 && axis == 1, along_z = axis == Dims - 1;
  const int di = axis == 0, dj = along_y, dk = along_z;
  const int rows_y = b.ny + dj, rows = rows_y * (b.nz + dk), faces_per_row = b.nx + di;
  Kokkos::parallel_for(
      "atmosphere::water_face_fluxes", parallel::FlatPolicy(0, rows * faces_per_row), KOKKOS_LAMBDA(const int n) {
        const int row = n / faces_per_row, i = n % faces_per_row;
        const int k = Dims == 2 ? row : row / rows_y, j = Dims == 2 ? 0 : row % rows_y;
        double fraction[water_species][4];
        for (int s = 0; s < 4; ++s) {  // the cells two below the face to one above it
          const int kk = b.h + k + (s - 2) * dk, jj = b.h + j + (s - 2) * dj, ii = b.h + i + (s - 2) * di;
          const double rho = at<Dims>(air, density, kk, jj, ii) + cells(kk).rho;
          for (int c = 0; c < water_species; ++c) fraction[c][s] = at<Dims>(water, c, kk, jj, ii) / rho;
        }
        const double mass_flux = flux(density, row, i);
        for (int c = 0; c < water_species; ++c)
          flux(first + c, row, i) = mass_flux * fraction_at_face(fraction[c], mass_flux);
      });
}

template <int Dims>
void apply_water_tendencies(int axis, const WaterInputs& in, const mesh::Field& initial, const mesh::Field& out,
                            double dt, double spacing) {
  const Flux flux = in.flux;
  const Block b = in.b;
  const int first = in.first_slot;
  const bool along_y = Dims == 3 && axis == 1, along_z = axis == Dims - 1;
  const int di = axis == 0, dj = along_y, dk = along_z, flux_rows_y = b.ny + dj;
  const double scale = dt / spacing;
  Kokkos::parallel_for(
      "atmosphere::apply_water_tendencies", parallel::FlatPolicy(0, b.nz * b.ny * b.nx), KOKKOS_LAMBDA(const int n) {
        const int i = n % b.nx, row = n / b.nx;
        const int k = Dims == 2 ? row : row / b.ny, j = Dims == 2 ? 0 : row % b.ny;
        const int lower = Dims == 2 ? k : k * flux_rows_y + j;
        const int upper = Dims == 2 ? k + dk : (k + dk) * flux_rows_y + j + dj;
        for (int c = 0; c < water_species; ++c)
          at<Dims>(out, c, b.h + k, b.h + j, b.h + i) =
              at<Dims>(initial, c, b.h + k, b.h + j, b.h + i) -
              scale * (flux(first + c, upper, i + di) - flux(first + c, lower, i));
      });
}

}  // namespace

template <int Dims>
void water_tendencies(int axis, const WaterInputs& in, const mesh::Field& initial, const mesh::Field& out, double dt,
                      double spacing) {
  water_face_fluxes<Dims>(axis, in);
  apply_water_tendencies<Dims>(axis, in, initial, out, dt, spacing);
}

template <int Dims>
void water_wall_halos_across(int axis, const Block& b, const BackgroundView& cells, const mesh::Field& air,
                             const mesh::Field& water) {
  const int h = b.h;
  if (axis < Dims - 1) {
    // The side walls: the air's halos copy the first cell inside, whose background is the same: so does the water.
    const bool lower = axis == 0 ? b.west : b.south, upper = axis == 0 ? b.east : b.north;
    if (!lower && !upper) return;
    const int cells_along = axis == 0 ? b.nx : b.ny, across = axis == 0 ? b.ny : b.nx;
    Kokkos::parallel_for(
        "atmosphere::water_side_wall_halos", parallel::FlatPolicy(0, b.nz * across), KOKKOS_LAMBDA(const int r) {
          const int k = h + r / across, t = h + r % across;
          for (int side = 0; side < 2; ++side) {
            if ((side == 0 && !lower) || (side == 1 && !upper)) continue;
            const int inside = side == 0 ? h : h + cells_along - 1;
            for (int s = 1; s <= h; ++s) {
              const int halo = side == 0 ? h - s : h + cells_along - 1 + s;
              for (int c = 0; c < water_species; ++c)
                at<Dims>(water, c, k, axis == 0 ? t : halo, axis == 0 ? halo : t) =
                    at<Dims>(water, c, k, axis == 0 ? t : inside, axis == 0 ? inside : t);
            }
          }
        });
    return;
  }
  if (!b.ground && !b.lid) return;
  const int width = b.nx + 2 * h, columns = width * (Dims == 3 ? b.ny + 2 * h : 1);
  Kokkos::parallel_for(
      "atmosphere::water_ground_and_lid_halos", parallel::FlatPolicy(0, columns), KOKKOS_LAMBDA(const int n) {
        const int i = n % width, j = n / width;
        for (int side = 0; side < 2; ++side) {
          if ((side == 0 && !b.ground) || (side == 1 && !b.lid)) continue;
          const int inside = side == 0 ? h : h + b.nz - 1;
          const double rho_inside = at<Dims>(air, density, inside, j, i) + cells(inside).rho;
          for (int s = 1; s <= h; ++s) {
            const int halo = side == 0 ? h - s : h + b.nz - 1 + s;
            const double scale = (at<Dims>(air, density, halo, j, i) + cells(halo).rho) / rho_inside;
            for (int c = 0; c < water_species; ++c) at<Dims>(water, c, halo, j, i) = at<Dims>(water, c, inside, j, i) * scale;
          }
        }
      });
}

template <int Dims>
void moist_physics(const Block& b, const BackgroundView& cells, const mesh::Field& air, const mesh::Field& water,
                   const mesh::Field& last_pressure, double dt, bool adjustment, double tolerance) {
  Kokkos::parallel_for(
      "atmosphere::moist_physics", parallel::FlatPolicy(0, b.nz * b.ny * b.nx), KOKKOS_LAMBDA(const int n) {
        const int i = b.h + n % b.nx, row = n / b.nx;
        const int k = b.h + (Dims == 2 ? row : row / b.ny), j = b.h + (Dims == 2 ? 0 : row % b.ny);
        const BackgroundPoint cell = cells(k);
        double w[water_species];
        for (int c = 0; c < water_species; ++c) w[c] = at<Dims>(water, c, k, j, i);
        const double rho = at<Dims>(air, density, k, j, i) + cell.rho;
        double rt = at<Dims>(air, rho_theta, k, j, i);
        const double before = rt;
        double& pressure = at<Dims>(last_pressure, 0, k, j, i);
        const bool adjusted =
            moist_step(rho, at<Dims>(air, momentum_z, k, j, i) / rho, dt, rt, cell, w, pressure, adjustment, tolerance);
        if (rt != before) at<Dims>(air, rho_theta, k, j, i) = rt;
        if (!adjusted) return;
        for (int c = 0; c < water_species; ++c) at<Dims>(water, c, k, j, i) = w[c];
      });
}

template <int Dims>
void record_pressure(const Block& b, const BackgroundView& cells, const mesh::Field& air, const mesh::Field& last_pressure) {
  Kokkos::parallel_for(
      "atmosphere::record_pressure", parallel::FlatPolicy(0, b.nz * b.ny * b.nx), KOKKOS_LAMBDA(const int n) {
        const int i = b.h + n % b.nx, row = n / b.nx;
        const int k = b.h + (Dims == 2 ? row : row / b.ny), j = b.h + (Dims == 2 ? 0 : row % b.ny);
        at<Dims>(last_pressure, 0, k, j, i) = cell_pressure(at<Dims>(air, rho_theta, k, j, i), cells(k));
      });
}

template void water_tendencies<2>(int, const WaterInputs&, const mesh::Field&, const mesh::Field&, double, double);
template void water_tendencies<3>(int, const WaterInputs&, const mesh::Field&, const mesh::Field&, double, double);
template void water_wall_halos_across<2>(int, const Block&, const BackgroundView&, const mesh::Field&,
                                         const mesh::Field&);
template void water_wall_halos_across<3>(int, const Block&, const BackgroundView&, const mesh::Field&,
                                         const mesh::Field&);
template void record_pressure<2>(const Block&, const BackgroundView&, const mesh::Field&, const mesh::Field&);
template void record_pressure<3>(const Block&, const BackgroundView&, const mesh::Field&, const mesh::Field&);
template void moist_physics<2>(const Block&, const BackgroundView&, const mesh::Field&, const mesh::Field&,
                               const mesh::Field&, double, bool, double);
template void moist_physics<3>(const Block&, const BackgroundView&, const mesh::Field&, const mesh::Field&,
                               const mesh::Field&, double, bool, double);

}  // namespace meridian::atmosphere
