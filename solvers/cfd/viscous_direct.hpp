#pragma once
// The Crank-Nicolson viscous step solved directly: (I - alpha L) d = b is, for each velocity component, the
// separable operator alpha (-L + 1 / alpha) on the faces the momentum equation sets, which
// direct_poisson::DirectPoisson inverts exactly with the shift 1 / alpha (as CaNS solves its implicit diffusion).
// Component c's unknowns: along axis c its interior faces, nodes between two faces the boundaries hold at 0 in
// the increment (the axis its tridiagonal systems run along), or all of them where the axis is periodic; across,
// the cell-centred faces with each side's homogeneous condition (wall and inflow mirror the value, -u: as p = 0
// on a face; free slip and outflow copy it: zero gradient). Immersed bodies' forced faces break the
// separability: those decks keep CG.
#include <array>
#include <memory>
#include <vector>

#include "mesh/decomposition.hpp"
#include "mesh/field.hpp"
#include "solvers/cfd/mac_boundaries.hpp"
#include "solvers/common/direct_poisson/direct_poisson.hpp"

namespace meridian::cfd {

class ViscousDirect {
 public:
  // Throws mesh::DecompositionError where a component's pencils do not fit the ranks. The components' solvers
  // share `workspace`'s arrays (with the pressure solve's where it is the same), and their right-hand side and
  // solution.
  ViscousDirect(const mesh::Decomposition& decomp, const MacBoundaries& boundaries,
                direct_poisson::Workspace workspace = {});
  // Overwrites `increment` (b on entry) with d on the faces the momentum equation sets; the others keep theirs.
  void solve(const mesh::Field& increment, double alpha);

 private:
  struct Component {
    std::array<int, 3> axes;  // its logical axes, slowest first, as mesh/ axes (x, y, z) = (0, 1, 2)
    direct_poisson::Box box;  // this rank's unknowns by logical axis, in the component's unknown indices
    int first[3];             // the field index (x, y, z) of the box's first unknown
    sparse::Vector b, x;
    std::unique_ptr<direct_poisson::DirectPoisson> solver;
  };
  std::vector<Component> components_;
};

}  // namespace meridian::cfd
