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

// Component c's logical axes, slowest first, as mesh/ axes. Where axis c holds nodes (it is not periodic), it is
// the axis the tridiagonal systems run along (logical 0; in 2-D 1, behind the one z), the others follow from z
// down: a transform along nodes is a DST-I, which FFTW takes 1.5-2.5x as long over as a DST-II of the cells'
// length (the nodes' count, N - 1, is odd for even N), while a Thomas sweep costs the same along any axis.
// Otherwise the mesh's own order (z, y, x).
std::array<int, 3> logical_axes(const mesh::Decomposition& d, int c) {
  if (c >= d.dimensions() || d.periodic(c)) return {2, 1, 0};
  std::array<int, 3> order{};
  int n = 0;
  if (d.dimensions() == 2) order[n++] = 2;
  order[n++] = c;
  for (int a = d.dimensions() - 1; a >= 0; --a)
    if (a != c) order[n++] = a;
  return order;
}

// The unknowns of component c over the whole grid, and this rank's block of them (and where it starts in the
// field). Along axis c a non-periodic grid's unknowns are faces 1 .. N - 1 (face 0 and face N are held at 0).
direct_poisson::SeparableGrid component_grid(const mesh::Decomposition& d, const MacGrid& g, const BoundarySettings& s,
                                             int c, const std::array<int, 3>& axes, direct_poisson::Box& mine, int first[3]) {
  direct_poisson::SeparableGrid grid;
  grid.dimensions = d.dimensions();
  for (int logical = 0; logical < 3; ++logical) {
    const int a = axes[logical];
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
    component.axes = logical_axes(decomp, c);
    const direct_poisson::SeparableGrid grid = component_grid(decomp, boundaries.grid(), boundaries.settings(), c,
                                                              component.axes, component.box, component.first);
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
    const long n1 = component.box.count[1], n2 = component.box.count[2];
    // The field's distances along the logical axes, and its first unknown's place.
    Kokkos::Array<long, 3> along{};
    long start = static_cast<long>(c * increment.stride(0));
    for (int n = 0; n < 3; ++n) {
      along[n] = stride_along(increment, component.axes[n]);
      start += component.first[n] * stride_along(increment, n);
    }
    double* const u = increment.data() + start;
    const sparse::Vector b = component.b, x = component.x;
    parallel::for_each("mac::viscous_gather", cells_of(component.box), KOKKOS_LAMBDA(const long l0, const long l1, const long l2) {
      b((l0 * n1 + l1) * n2 + l2) = u[l0 * along[0] + l1 * along[1] + l2 * along[2]];
    });
    component.solver->solve(b, x, 1 / alpha, 1 / alpha);
    parallel::for_each("mac::viscous_scatter", cells_of(component.box), KOKKOS_LAMBDA(const long l0, const long l1, const long l2) {
      u[l0 * along[0] + l1 * along[1] + l2 * along[2]] = x((l0 * n1 + l1) * n2 + l2);
    });
  }
}

}  // namespace meridian::cfd
