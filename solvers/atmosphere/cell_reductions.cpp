#include "solvers/atmosphere/cell_reductions.hpp"

#include "parallel/launch_policy.hpp"
#include "solvers/atmosphere/water_transport.hpp"

namespace meridian::atmosphere {

namespace {
// Reductions over this rank's interior cells of body(k, j, i, result) (j = 0 in 2-D).
template <class Body, class Reducer>
void reduce_over_cells(const char* label, const Block& b, const Body& body, const Reducer& reducer) {
  parallel::reduce(label, parallel::Cells{{0, 0, 0}, {b.nz, b.ny, b.nx}}, body, reducer);
}

// What the diagnostics sum or bound over this rank's cells, each from one cell's state.
enum class CellQuantity { mass, energy, abs_w, theta_perturbation };

// A cell's mass and total energy (kinetic, internal, potential) less the background's (per metre along
// y in 2-D), |w| or theta'. The energy perturbation rho |u|^2 / 2 + cv p' / rd + g z rho' has no
// cancellation (rho cv T = cv p / rd), so its sums round like the perturbation, not like the total.
template <int N>
KOKKOS_INLINE_FUNCTION double cell_quantity(CellQuantity what, const double state[N], const BackgroundPoint& cell,
                                            double z, double volume) {
  const double rho = state[density] + cell.rho;
  if (what == CellQuantity::mass) return state[density] * volume;
  if (what == CellQuantity::abs_w) return km::fabs(state[momentum_z] / rho);
  if (what == CellQuantity::theta_perturbation)
    return (state[rho_theta] + cell.rho_theta) / rho - cell.rho_theta / cell.rho;
  double speed_squared = 0;
  for (int c = 0; c < N; ++c)
    if (is_momentum(c)) speed_squared += (state[c] / rho) * (state[c] / rho);
  const double p = pressure_perturbation(state[rho_theta], cell.rho_theta, cell.pressure);
  return (0.5 * rho * speed_squared + cv / rd * p + gravity * z * state[density]) * volume;
}

// The sum, max or min over this rank's cells of one quantity (Kokkos 3.4 takes one reducer a launch).
template <int Dims, class Reducer>
double reduce_cells(CellQuantity what, const Block& b, const mesh::Field& q, const BackgroundView& cells, double dz,
                    double volume, long z_offset) {
  double result = 0;
  const auto body = KOKKOS_LAMBDA(const int k, const int j, const int i, double& r) {
    double state[components_of<Dims>];
    for (int c = 0; c < components_of<Dims>; ++c) state[c] = at<Dims>(q, c, b.h + k, b.h + j, b.h + i);
    const double value =
        cell_quantity<components_of<Dims>>(what, state, cells(b.h + k), (z_offset + k + 0.5) * dz, volume);
    Reducer(r).join(r, value);
  };
  reduce_over_cells("atmosphere::diagnostics", b, body, Reducer(result));
  return result;
}
}  // namespace

template <int Dims>
double max_signal_rate(const Block& b, const mesh::Field& q, const BackgroundView& cells, const Spacing& spacing,
                       bool unsplit) {
  double rate = 0;
  const auto body = KOKKOS_LAMBDA(const int k, const int j, const int i, double& r) {
    double state[components_of<Dims>], along[Dims];
    for (int c = 0; c < components_of<Dims>; ++c) state[c] = at<Dims>(q, c, b.h + k, b.h + j, b.h + i);
    signal_speeds<Dims>(state, cells(b.h + k), along);
    double cell_rate = along[0] / spacing[0];
    for (int axis = 1; axis < Dims; ++axis)
      cell_rate = unsplit ? cell_rate + along[axis] / spacing[axis] : max_of(cell_rate, along[axis] / spacing[axis]);
    r = max_of(r, cell_rate);
  };
  reduce_over_cells("atmosphere::signal_rate", b, body, Kokkos::Max<double>(rate));
  return rate;
}

template <int Dims>
void local_diagnostics(const Block& b, const mesh::Field& q, const BackgroundView& cells, double dz, double volume,
                       long z_offset, double sums[2], double maxima[3]) {
  using Sum = Kokkos::Sum<double>;
  using Max = Kokkos::Max<double>;
  using Min = Kokkos::Min<double>;
  sums[0] = reduce_cells<Dims, Sum>(CellQuantity::mass, b, q, cells, dz, volume, z_offset);
  sums[1] = reduce_cells<Dims, Sum>(CellQuantity::energy, b, q, cells, dz, volume, z_offset);
  maxima[0] = reduce_cells<Dims, Max>(CellQuantity::abs_w, b, q, cells, dz, volume, z_offset);
  maxima[1] = -reduce_cells<Dims, Min>(CellQuantity::theta_perturbation, b, q, cells, dz, volume, z_offset);
  maxima[2] = reduce_cells<Dims, Max>(CellQuantity::theta_perturbation, b, q, cells, dz, volume, z_offset);
}

template <int Dims>
void local_water_diagnostics(const Block& b, const mesh::Field& q, const mesh::Field& water, const BackgroundView& cells,
                             const Kokkos::View<const WaterPoint*>& background_water, double volume, double sums[3],
                             double maxima[3]) {
  // What one cell contributes: 0, 1 the species' masses; 2 the water's internal energy beyond the dry formula
  // (water_internal_energy); 3 minus its smaller mixing ratio; 4 its cloud mixing ratio; 5 its supersaturation.
  // Each sum less the background cell's.
  for (int what = 0; what < 6; ++what) {
    const auto body = KOKKOS_LAMBDA(const int k, const int j, const int i, double& r) {
      const double rho = at<Dims>(q, density, b.h + k, b.h + j, b.h + i) + cells(b.h + k).rho;
      const double rv = at<Dims>(water, vapour, b.h + k, b.h + j, b.h + i);
      const double rc = at<Dims>(water, cloud, b.h + k, b.h + j, b.h + i);
      const double rho_d = rho - rv - rc;
      const BackgroundPoint& cell = cells(b.h + k);
      const auto temperature = [&] {
        return cell_temperature(rho, cell_pressure(at<Dims>(q, rho_theta, b.h + k, b.h + j, b.h + i), cell), {rv, rc});
      };
      if (what < 3) {
        const WaterPoint& w = background_water(b.h + k);
        double value = what == 0 ? rv - w.vapour : rc - w.cloud;
        if (what == 2) {
          value = water_internal_energy(rv, rc, temperature()) -
                  water_internal_energy(w.vapour, w.cloud, cell_temperature(cell.rho, cell.pressure, w));
        }
        r += value * volume;
        return;
      }
      double value = what == 3 ? -min_of(rv, rc) / rho_d : rc / rho_d;
      if (what == 5) value = rv / rho_d / moist::saturation_mixing_ratio(temperature(), rho_d) - 1;
      r = max_of(r, value);
    };
    if (what < 3) {
      sums[what] = 0;
      reduce_over_cells("atmosphere::water_diagnostics", b, body, Kokkos::Sum<double>(sums[what]));
    } else {
      maxima[what - 3] = 0;
      reduce_over_cells("atmosphere::water_diagnostics", b, body, Kokkos::Max<double>(maxima[what - 3]));
    }
  }
}

// The 2-D slice's and the 3-D box's.
template double max_signal_rate<2>(const Block&, const mesh::Field&, const BackgroundView&, const Spacing&, bool);
template double max_signal_rate<3>(const Block&, const mesh::Field&, const BackgroundView&, const Spacing&, bool);
template void local_diagnostics<2>(const Block&, const mesh::Field&, const BackgroundView&, double, double, long,
                                   double[2], double[3]);
template void local_water_diagnostics<2>(const Block&, const mesh::Field&, const mesh::Field&, const BackgroundView&,
                                         const Kokkos::View<const WaterPoint*>&, double, double[3], double[3]);
template void local_water_diagnostics<3>(const Block&, const mesh::Field&, const mesh::Field&, const BackgroundView&,
                                         const Kokkos::View<const WaterPoint*>&, double, double[3], double[3]);
template void local_diagnostics<3>(const Block&, const mesh::Field&, const BackgroundView&, double, double, long,
                                   double[2], double[3]);

}  // namespace meridian::atmosphere
