#pragma once
// Reductions over this rank's interior cells: the fastest signal, for the time step, and the sums and
// extrema the diagnostics report.
#include <Kokkos_Core.hpp>

#include "mesh/field.hpp"
#include "solvers/atmosphere/dynamics_kernels.hpp"

namespace meridian::atmosphere {

using Spacing = Kokkos::Array<double, 3>;

// Max over cells of (|u_axis| + c) / spacing over the axes, or of its sum over them for the unsplit scheme.
template <int Dims>
double max_signal_rate(const Block& b, const mesh::Field& q, const BackgroundView& cells, const Spacing& spacing,
                       bool unsplit);

// Sums of mass and energy, and maxima of |w|, -theta' and theta', over this rank's cells.
template <int Dims>
void local_diagnostics(const Block& b, const mesh::Field& q, const BackgroundView& cells, double dz, double volume,
                       long z_offset, double sums[2], double maxima[3]);

// The water on this rank, less the background's (sums; the background's own is summed once on the host, in one
// order, so the totals' large part has the same bits on any decomposition): the masses of vapour and cloud and
// their internal energy beyond the dry formula of local_diagnostics (water_internal_energy); and the extrema the
// tests watch (maxima): minus the smallest mixing ratio of either species, the largest cloud mixing ratio, and the
// largest supersaturation q_v / q_vs - 1.
template <int Dims>
void local_water_diagnostics(const Block& b, const mesh::Field& q, const mesh::Field& water, const BackgroundView& cells,
                             const Kokkos::View<const WaterPoint*>& background_water, double volume, double sums[3],
                             double maxima[3]);

}  // namespace meridian::atmosphere
