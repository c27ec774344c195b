#include "solvers/cfd/viscous_direct.hpp"

#include <algorithm>

#include "parallel/launch_policy.hpp"

namespace meridian::cfd {

using direct_poisson::AxisKind;

namespace {

// The homogeneous condition a face of `kind` puts on the velocity components tangential to it.
sparse::FaceCondition tangential_condition(FaceKind kind) {
  return kind == FaceKind::wall || kind == FaceKind::inflow ? sparse::FaceCondition::zero_value
                                                            : sparse::FaceCondition::zero_gradient;
}

// The unknowns of component c over the whole grid, and this rank's block of them (and where it starts in the
// field). Along axis c a non-periodic grid's unknowns are faces 1 .. N - 1 (face 0 and face N are held at 0).
direct_poisson::SeparableGrid component_grid(const mesh::Decomposition& d, const MacGrid& g,
                                             const BoundarySettings& s, int c, direct_poisson::Box& mine, int first[3]) {
  direct_poisson::SeparableGrid grid;
  grid.dimensions = d.dimensions();
  for (int a = 0; a < 3; ++a) {
    const int logical = 2 - a;
    const bool periodic = d.periodic(a) || a >= d.dimensions();
    const bool nodes = a == c && !periodic;
    grid.cells[logical] = d.global_cells(a) - (nodes ? 1 : 0);
    grid.spacing[logical] = g.h[a];
    grid.kinds[logical] = nodes ? AxisKind::dirichlet_nodes
                                : direct_poisson::axis_kind(periodic, tangential_condition(s.face[a][0]),
                                                            tangential_condition(s.face[a][1]));
    const long low = nodes ? std::max(d.offset(a), 1L) : d.offset(a);  // the first face this rank sets
    mine.offset[logical] = nodes ? low - 1 : low;
    mine.count[logical] = d.offset(a) + d.local_cells(a) - low;
    first[a] = g.lo[a] + static_cast<int>(low - d.offset(a));
  }
  grid.blocks = direct_poisson::gather_blocks(d.comm(), mine);
  return grid;
}

parallel::Cells cells_of(const direct_poisson::Box& box) {
  return {{0, 0, 0}, {box.count[0], box.count[1], box.count[2]}};
}

}  // namespace

ViscousDirect::ViscousDirect(const mesh::Decomposition& decomp, const MacBoundaries& boundaries,
                             direct_poisson::Workspace workspace) {
  using Use = direct_poisson::Workspace::Use;
  for (int c = 0; c < decomp.dimensions(); ++c) {
    Component component;
    const direct_poisson::SeparableGrid grid =
        component_grid(decomp, boundaries.grid(), boundaries.settings(), c, component.box, component.first);
    direct_poisson::DirectPoisson::check_layout(grid.cells, decomp.size(), decomp.dimensions());
    const auto size = static_cast<std::size_t>(component.box.size());
    component.b = workspace.array(Use::right_hand_side, 0, size);
    component.x = workspace.array(Use::solution, 0, size);
    component.solver = std::make_unique<direct_poisson::DirectPoisson>(decomp.comm(), grid, mesh::default_message_path(),
                                                                       direct_poisson::Kernels{}, workspace);
    components_.push_back(std::move(component));
  }
}

void ViscousDirect::solve(const mesh::Field& increment, double alpha) {
  for (std::size_t c = 0; c < components_.size(); ++c) {
    const Component& component = components_[c];
    const long ny = component.box.count[1], nx = component.box.count[2];
    const int i0 = component.first[0], j0 = component.first[1], k0 = component.first[2], cc = static_cast<int>(c);
    const sparse::Vector b = component.b, x = component.x;
    parallel::for_each("mac::viscous_gather", cells_of(component.box), KOKKOS_LAMBDA(const long k, const long j, const long i) {
      b((k * ny + j) * nx + i) = increment(cc, k0 + k, j0 + j, i0 + i);
    });
    component.solver->solve(b, x, 1 / alpha, 1 / alpha);
    parallel::for_each("mac::viscous_scatter", cells_of(component.box), KOKKOS_LAMBDA(const long k, const long j, const long i) {
      increment(cc, k0 + k, j0 + j, i0 + i) = x((k * ny + j) * nx + i);
    });
  }
}

}  // namespace meridian::cfd
