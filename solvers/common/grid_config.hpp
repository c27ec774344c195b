#pragma once
// The [mesh] section shared by every grid-based solver, and its translation to a GridSpec.
#include <array>

#include "io/deck.hpp"
#include "mesh/decomposition.hpp"

namespace meridian::solvers {

// Stencil solvers choose boundaries per axis; spectral ones are periodic on every axis; a vertical
// slice (the atmosphere) is a 2-D x-z or a 3-D x-y-z grid whose vertical (nz cells) is the mesh's last
// axis, bounded by the ground and a lid, its horizontal boundaries the solver's own choice.
enum class MeshKind { stencil, spectral, vertical_slice };

void declare_mesh_keys(io::Schema& schema, MeshKind kind);
// Global cells (nx, ny, nz), checked against the dimensions and the process-grid shape.
std::array<long, 3> grid_cells(const io::Deck& deck);
// Reads [mesh]; `halo_width` is the solver's stencil need.
mesh::GridSpec grid_spec(const io::Deck& deck, int halo_width);
// Reads the [mesh] of a vertical slice: nx along x, ny along y (3-D; 1 in 2-D), nz along the vertical,
// which is mesh axis 1 in 2-D and 2 in 3-D, open at the ground and the lid; the horizontal axes periodic
// or bounded by walls (open) as `sides` says. process_grid is [x, y, z] in the deck in both.
mesh::GridSpec vertical_slice_spec(const io::Deck& deck, int halo_width, mesh::Boundary sides);

}  // namespace meridian::solvers
