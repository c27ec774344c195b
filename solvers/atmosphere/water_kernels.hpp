#pragma once
// The launches that carry water on this rank's block (water_transport.hpp's arithmetic): one direction's
// water fluxes, their divergence, the halos beyond the walls, and the saturation adjustment. The water's
// fluxes are taken from the air's mass flux that dynamics_kernels' face_fluxes has just left in the flux
// buffer, so they run after it in each stage and sweep, and before its tendencies overwrite the forcing state.
#include "solvers/atmosphere/dynamics_kernels.hpp"
#include "solvers/atmosphere/water_transport.hpp"

namespace meridian::atmosphere {

// The water of one stage: its forcing state (halos filled), the air's forcing state it is read with, and the
// flux buffer's slots from `first_slot` on for its fluxes.
struct WaterInputs {
  mesh::Field water, air;
  Flux flux;
  BackgroundView cells;
  Block b;
  int first_slot;
};

// out = initial - dt (divergence across mesh axis `axis` of F rho_k / rho at the limited upwind face values);
// `out` may be `initial`.
template <int Dims>
void water_tendencies(int axis, const WaterInputs& in, const mesh::Field& initial, const mesh::Field& out, double dt,
                      double spacing);

// Halos beyond the walls across mesh axis `axis`, the air's halos already filled: each species' fraction
// mirrored evenly (the partial density scaled by the air's density in the halo over the cell's inside).
template <int Dims>
void water_wall_halos_across(int axis, const Block& b, const BackgroundView& cells, const mesh::Field& air,
                             const mesh::Field& water);

// The end of a moist step in every cell of the block (water_transport.hpp's moist_step): the moist expansion's
// correction over the step dt, then (with `adjustment`) the saturation adjustment; `last_pressure` holds each
// cell's pressure at the end of the previous step and is updated.
template <int Dims>
void moist_physics(const Block& b, const BackgroundView& cells, const mesh::Field& air, const mesh::Field& water,
                   const mesh::Field& last_pressure, double dt, bool adjustment, double tolerance);

// last_pressure = every cell's pressure now.
template <int Dims>
void record_pressure(const Block& b, const BackgroundView& cells, const mesh::Field& air, const mesh::Field& last_pressure);

}  // namespace meridian::atmosphere
