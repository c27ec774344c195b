#pragma once
// The [mesh] section shared by every grid-based solver, and its translation to a GridSpec.
#include <array>

#include "io/deck.hpp"
#include "mesh/decomposition.hpp"

namespace meridian::solvers {

// Stencil solvers choose boundaries per axis; spectral ones are periodic on every axis.
enum class MeshKind { stencil, spectral };

void declare_mesh_keys(io::Schema& schema, MeshKind kind);
// Global cells (nx, ny, nz), checked against the dimensions and the process-grid shape.
std::array<long, 3> grid_cells(const io::Deck& deck);
// Reads [mesh]; `halo_width` is the solver's stencil need.
mesh::GridSpec grid_spec(const io::Deck& deck, int halo_width);

}  // namespace meridian::solvers
