#include "solvers/atmosphere/cell_reductions.hpp"

#include "parallel/launch_policy.hpp"
#include "parallel/team_shape.hpp"
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

// A cell's signal rate: (|u_axis| + c) / spacing maxed over the axes, or summed over them for the unsplit scheme.
template <int Dims, bool SeriesOnly = false>
KOKKOS_INLINE_FUNCTION double cell_signal_rate(const double state[components_of<Dims>], const BackgroundPoint& cell,
                                               const Spacing& spacing, bool unsplit, bool& beyond_series) {
  double along[Dims];
  signal_speeds<Dims, SeriesOnly>(state, cell, along, beyond_series);
  // The axes spelled out, not looped: GCC left one instantiation's loop rolled, and the row's loop scalar.
  const auto combine = [unsplit](double rate, double next) { return unsplit ? rate + next : max_of(rate, next); };
  double rate = combine(along[0] / spacing[0], along[1] / spacing[1]);
  if constexpr (Dims == 3) rate = combine(rate, along[2] / spacing[2]);
  return rate;
}

// The largest signal rate of one row of cells along x (`q`: component 0 of its first cell). On the host in
// blocks (the last one shorter): the block's rates with the pressure's series alone, a loop GCC vectorises, then
// their max by LaneMax; a row with a cell beyond the series' reach is redone cell by cell with the libm form. A
// max is exact and max_of passes over NaNs in any order, so this is the cell-by-cell value.
template <int Dims>
struct SignalRateRow {
  static constexpr int n = components_of<Dims>, block = 64;
  const double* q;
  long component;
  int cells;
  BackgroundPoint cell;
  Spacing spacing;
  bool unsplit;

  // The scheme a compile-time constant: a select on a run-time bool is one GCC does not vectorise.
  template <bool SeriesOnly, bool Unsplit>
  KOKKOS_INLINE_FUNCTION double rate(int i, bool& beyond_series) const {
    double state[n];
    for (int c = 0; c < n; ++c) state[c] = q[c * component + i];
    return cell_signal_rate<Dims, SeriesOnly>(state, cell, spacing, Unsplit, beyond_series);
  }
  double largest() const { return unsplit ? largest_of<true>() : largest_of<false>(); }
  template <bool Unsplit>
  double largest_of() const {
    const SignalRateRow row = *this;  // a local copy: its members then stay in registers across the loops
    LaneMax largest(Kokkos::reduction_identity<double>::max());
    bool beyond = false;
    for (int first = 0; first < cells; first += block) {
      const int length = cells - first < block ? cells - first : block;  // the row's last block may be shorter
      double rates[block];
      int out[block];  // not bool: a store of a char may change any object, for all GCC knows, `row` too
      MERIDIAN_INDEPENDENT_ITERATIONS
      for (int i = 0; i < length; ++i) {
        bool beyond_series;
        rates[i] = row.rate<true, Unsplit>(first + i, beyond_series);
        out[i] = beyond_series;
      }
      for (int i = 0; i < length; ++i) beyond |= out[i] != 0;
      largest.add(rates, length);
    }
    if (!beyond) return largest.value();
    double m = Kokkos::reduction_identity<double>::max();  // the whole row again, exactly: some series' rates are wrong
    for (int i = 0; i < cells; ++i) {
      bool unused;
      m = max_of(m, row.rate<false, Unsplit>(i, unused));
    }
    return m;
  }
};

template <int Dims>
double max_signal_rate(const Block& b, const mesh::Field& q, const BackgroundView& cells, const Spacing& spacing,
                       bool unsplit) {
  double rate = 0;
  if constexpr (parallel::device_memory_is_host) {
    const long component = static_cast<long>(q.stride(0));
    Kokkos::parallel_reduce(
        "atmosphere::signal_rate", parallel::FlatPolicy(0, static_cast<long>(b.nz) * b.ny),
        [=](const long row, double& r) {
          const int k = static_cast<int>(Dims == 2 ? row : row / b.ny), j = static_cast<int>(Dims == 2 ? 0 : row % b.ny);
          const SignalRateRow<Dims> line{&at<Dims>(q, 0, b.h + k, b.h + j, b.h), component, b.nx, cells(b.h + k),
                                         spacing, unsplit};
          r = max_of(r, line.largest());
        },
        Kokkos::Max<double>(rate));
  } else {
    const auto body = KOKKOS_LAMBDA(const int k, const int j, const int i, double& r) {
      double state[components_of<Dims>];
      for (int c = 0; c < components_of<Dims>; ++c) state[c] = at<Dims>(q, c, b.h + k, b.h + j, b.h + i);
      bool beyond_series;
      r = max_of(r, cell_signal_rate<Dims>(state, cells(b.h + k), spacing, unsplit, beyond_series));
    };
    reduce_over_cells("atmosphere::signal_rate", b, body, Kokkos::Max<double>(rate));
  }
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
