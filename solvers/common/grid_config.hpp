#pragma once
// The [mesh] section shared by every grid-based solver, and its translation to a GridSpec.
#include "io/deck.hpp"
#include "mesh/decomposition.hpp"

namespace meridian::solvers {

void declare_mesh_keys(io::Schema& schema);
// Reads [mesh]; `halo_width` is the solver's stencil need.
mesh::GridSpec grid_spec(const io::Deck& deck, int halo_width);

}  // namespace meridian::solvers
