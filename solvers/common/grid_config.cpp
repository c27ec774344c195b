#include "solvers/common/grid_config.hpp"

namespace meridian::solvers {

namespace {
void declare_vertical_slice_keys(io::Schema& schema) {
  using io::KeyType;
  schema.add({"mesh", "dimensions", KeyType::integer, 2L, "1",
              "2 for an x-z vertical slice, 3 for an x-y-z box (z is the vertical in both)", {}, 2, 3});
  schema.add({"mesh", "nx", KeyType::integer, 100L, "cells", "cells along x (horizontal)", {}, 1, 1e9});
  schema.add({"mesh", "ny", KeyType::integer, 1L, "cells", "cells along y (horizontal; 3-D only, 1 in 2-D)", {}, 1,
              1e9});
  schema.add({"mesh", "nz", KeyType::integer, 50L, "cells",
              "cells along the vertical z (the ground below, a lid above)", {}, 1, 1e9});
  auto& grid = schema.add({"mesh", "process_grid", KeyType::integer_list, std::vector<long>{0, 0, 0}, "ranks",
                           "ranks along x, y and the vertical z (the y entry must be 0 or 1 in 2-D); 0 lets MPI choose",
                           {}, 0, 1e6});
  grid.restart_may_change = true;
}
}  // namespace

void declare_mesh_keys(io::Schema& schema, MeshKind kind) {
  using io::KeyType;
  if (kind == MeshKind::vertical_slice) return declare_vertical_slice_keys(schema);
  schema.add({"mesh", "dimensions", KeyType::integer, 2L, "1", "2 for a square grid, 3 for a cube", {}, 2, 3});
  schema.add({"mesh", "nx", KeyType::integer, 64L, "cells", "cells along x", {}, 1, 1e9});
  schema.add({"mesh", "ny", KeyType::integer, 64L, "cells", "cells along y", {}, 1, 1e9});
  schema.add({"mesh", "nz", KeyType::integer, 1L, "cells", "cells along z (1 for a 2-D grid)", {}, 1, 1e9});
  if (kind == MeshKind::stencil) {
    const std::vector<std::string> boundaries{"periodic", "open"};
    schema.add({"mesh", "boundary_x", KeyType::string, std::string("periodic"), "", "boundary along x", boundaries});
    schema.add({"mesh", "boundary_y", KeyType::string, std::string("periodic"), "", "boundary along y", boundaries});
    schema.add({"mesh", "boundary_z", KeyType::string, std::string("periodic"), "", "boundary along z", boundaries});
  }
  const char* doc = kind == MeshKind::stencil
                        ? "ranks along x, y, z; 0 lets MPI choose"
                        : "ranks along x, y, z of the real-space pencils: x must be 1 (or 0); z = 1 gives slabs; "
                          "0 lets MPI choose";
  auto& grid = schema.add({"mesh", "process_grid", KeyType::integer_list, std::vector<long>{0, 0, 0}, "ranks", doc,
                           {}, 0, 1e6});
  grid.restart_may_change = true;
}

std::array<long, 3> grid_cells(const io::Deck& deck) {
  const std::array<long, 3> cells{deck.integer("mesh", "nx"), deck.integer("mesh", "ny"), deck.integer("mesh", "nz")};
  if (deck.integer("mesh", "dimensions") == 2 && cells[2] != 1)
    deck.fail("mesh", "nz", "a 2-D grid (mesh.dimensions = 2) needs nz = 1");
  if (deck.integers("mesh", "process_grid").size() != 3)
    deck.fail("mesh", "process_grid", "expected three entries [x, y, z]");
  return cells;
}

mesh::GridSpec grid_spec(const io::Deck& deck, int halo_width) {
  mesh::GridSpec spec;
  spec.dimensions = static_cast<int>(deck.integer("mesh", "dimensions"));
  spec.cells = grid_cells(deck);
  const char* keys[3] = {"boundary_x", "boundary_y", "boundary_z"};
  for (int axis = 0; axis < 3; ++axis)
    spec.boundary[axis] =
        deck.string("mesh", keys[axis]) == "open" ? mesh::Boundary::open : mesh::Boundary::periodic;
  const auto& grid = deck.integers("mesh", "process_grid");
  for (int axis = 0; axis < 3; ++axis) spec.process_grid[axis] = static_cast<int>(grid[axis]);
  spec.halo_width = halo_width;
  return spec;
}

mesh::GridSpec vertical_slice_spec(const io::Deck& deck, int halo_width, mesh::Boundary sides) {
  mesh::GridSpec spec;
  spec.dimensions = static_cast<int>(deck.integer("mesh", "dimensions"));
  const long nx = deck.integer("mesh", "nx"), ny = deck.integer("mesh", "ny"), nz = deck.integer("mesh", "nz");
  const auto& grid = deck.integers("mesh", "process_grid");
  if (grid.size() != 3) deck.fail("mesh", "process_grid", "expected three entries [x, y, z]");
  const std::array<int, 3> ranks{static_cast<int>(grid[0]), static_cast<int>(grid[1]), static_cast<int>(grid[2])};
  if (spec.dimensions == 3) {
    spec.cells = {nx, ny, nz};
    spec.process_grid = ranks;
    spec.boundary = {sides, sides, mesh::Boundary::open};
  } else {
    if (ny != 1)
      deck.fail("mesh", "ny",
                "a 2-D atmosphere (mesh.dimensions = 2) is an x-z slice: allowed is ny = 1 only (set mesh.dimensions = "
                "3 for cells along y)");
    if (ranks[1] > 1)
      deck.fail("mesh", "process_grid",
                "a 2-D atmosphere (mesh.dimensions = 2) has one cell along y: the y entry must be 0 or 1");
    // The slice's vertical is the mesh's second axis: its rows are then contiguous along x.
    spec.cells = {nx, nz, 1};
    spec.process_grid = {ranks[0], ranks[2], 1};
    spec.boundary = {sides, mesh::Boundary::open, mesh::Boundary::periodic};
  }
  spec.halo_width = halo_width;
  return spec;
}

}  // namespace meridian::solvers
