#include "solvers/common/sparse/poisson_stencil.hpp"

namespace meridian::sparse {

PoissonStencil::PoissonStencil(const mesh::Decomposition& d, const PoissonProblem& problem)
    : dims_(d.dimensions()), singular_(is_singular(d, problem)) {
  for (int a = 0; a < 3; ++a) {
    first_[a] = d.halo(a);
    last_[a] = d.halo(a) + static_cast<int>(d.local_cells(a)) - 1;
    weight_[a] = 1 / (problem.spacing[a] * problem.spacing[a]);
    const bool domain_face = !d.periodic(a);
    face_[a][0] = domain_face && d.at_lower_boundary(a) ? static_cast<int>(problem.lower[a]) : neighbour;
    face_[a][1] = domain_face && d.at_upper_boundary(a) ? static_cast<int>(problem.upper[a]) : neighbour;
  }
}

}  // namespace meridian::sparse
