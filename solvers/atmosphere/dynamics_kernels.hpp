#pragma once
// The launches of the atmosphere's dynamics on this rank's block: one direction's face fluxes and their
// divergence with the vertical sources, and the halos beyond the walls. The arithmetic per face and cell
// is euler_flux.hpp's; the solver chooses the direction, the stage and the buffers.
#include <Kokkos_Core.hpp>

#include "mesh/decomposition.hpp"
#include "mesh/field.hpp"
#include "solvers/atmosphere/euler_flux.hpp"
#include "solvers/atmosphere/hydrostatic_background.hpp"

namespace meridian::atmosphere {

// This rank's block: interior cells (ny = 1 in 2-D) and halo, and the walls it touches: west and east
// at x = 0 and width, south and north at y = 0 and depth (3-D), the ground and the lid.
struct Block {
  int nx, ny, nz, h;
  bool west, east, south, north, ground, lid;
};

Block block_of(const mesh::Decomposition& d, bool side_walls);

// Component c of the cell at halo-inclusive (vertical k, y j, x i): the 2-D slice keeps its vertical on
// the View's y index (and ignores j), the 3-D box on the View's z index.
template <int Dims, class View>
KOKKOS_FORCEINLINE_FUNCTION auto& at(const View& q, int c, int k, int j, int i) {
  if constexpr (Dims == 2)
    return q(c, 0, k, i);
  else
    return q(c, k, j, i);
}

using Flux = Kokkos::View<double***, mesh::Layout>;

// What one sweep's face-flux kernel reads.
struct FluxInputs {
  mesh::Field q;
  Flux flux;
  BackgroundView cells, faces;
  Block b;
  double hyperviscosity, spacing, viscosity, diffusivity;
  bool fifth_order, one_sided_walls;
  // On the host, the rows of interior stencils by a vectorised loop of the same flux functions (false: every row
  // by the general loop, as on a GPU; a test compares the two bitwise).
  bool vector_rows = true;
};

// The sources of the vertical sweep: the buoyancy -g rho' and the Rayleigh layer's rate per interior row.
struct VerticalSources {
  BackgroundView cells;
  Kokkos::View<const double*> rayleigh_rate;  // 1/s by interior level; zero below the layer
  double wind;
  bool rayleigh;
};

// One direction's tendencies of one stage, in two launches: its face fluxes into in.flux, then out = initial - dt
// (their divergence) with the vertical sources. Between them the flux buffer holds the air's mass flux, which
// the water's fluxes are made from (water_kernels.hpp); `out` may be in.q or `initial`.
template <int Dims>
void directional_fluxes(int axis, const FluxInputs& in);
template <int Dims>
void directional_update(int axis, const FluxInputs& in, const mesh::Field& initial, const mesh::Field& out, double dt,
                        const VerticalSources& sources);

// Halos beyond the walls across mesh axis `axis`, as miniWeather's: zero normal momentum; the tangential
// momenta scaled by the background density (the ground and the lid, so u and v are mirrored evenly) or
// copied (the side walls, whose background is the same on both sides); the density and rho theta
// perturbations copied.
template <int Dims>
void wall_halos_across(int axis, const Block& b, const BackgroundView& cells, const mesh::Field& q);

}  // namespace meridian::atmosphere
