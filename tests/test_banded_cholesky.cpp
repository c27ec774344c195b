// The multigrid's coarsest-level solver (solvers/common/sparse/banded_cholesky.hpp): the whole-grid operator's
// columns name the cells a periodic halo images (its product is PoissonOperator's), the factor solves to
// round-off on walled, periodic and p = 0 grids, its band after the reverse Cuthill-McKee ordering is about a
// cross-section (twice, periodic), and a singular operator is refused unless pinned.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "solvers/common/sparse/banded_cholesky.hpp"
#include "solvers/common/sparse/poisson_operator.hpp"

using namespace meridian;
using sparse::FaceCondition;

namespace {

struct Grid {
  long nx, ny, nz;
  mesh::Boundary x, y, z;
  FaceCondition faces;  // on every face of a non-periodic axis
};

mesh::GridSpec spec_of(const Grid& g) {
  mesh::GridSpec spec;
  spec.dimensions = g.nz > 1 ? 3 : 2;
  spec.cells = {g.nx, g.ny, g.nz};
  spec.boundary = {g.x, g.y, g.z};
  return spec;
}

sparse::PoissonProblem problem_of(const Grid& g) {
  sparse::PoissonProblem p;
  p.spacing = {0.5, 0.25, 1.0};
  p.lower = p.upper = {g.faces, g.faces, g.faces};
  return p;
}

std::vector<double> multiply(const sparse::CsrHost& a, const std::vector<double>& x) {
  std::vector<double> y(a.rows(), 0.0);
  for (int r = 0; r < a.rows(); ++r)
    for (int n = a.row_offsets[r]; n < a.row_offsets[r + 1]; ++n) y[r] += a.values[n] * x[a.columns[n]];
  return y;
}

std::vector<double> sample(long cells) {
  std::vector<double> x(cells);
  for (long c = 0; c < cells; ++c) x[c] = std::sin(0.37 * c) + 0.1 * std::cos(1.3 * c * c);
  return x;
}

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0;
  for (std::size_t n = 0; n < a.size(); ++n) worst = std::max(worst, std::abs(a[n] - b[n]));
  return worst;
}

const Grid definite_grids[] = {
    {8, 6, 4, mesh::Boundary::open, mesh::Boundary::open, mesh::Boundary::open, FaceCondition::zero_value},
    {8, 6, 4, mesh::Boundary::periodic, mesh::Boundary::open, mesh::Boundary::periodic, FaceCondition::zero_value},
    {16, 2, 1, mesh::Boundary::periodic, mesh::Boundary::open, mesh::Boundary::periodic, FaceCondition::zero_value},
};

TEST(BandedCholesky, WholeGridMatrixIsTheOperatorsProduct) {
  for (const Grid& g : definite_grids) {
    const mesh::Decomposition d(MPI_COMM_SELF, spec_of(g));
    const sparse::PoissonProblem problem = problem_of(g);
    sparse::PoissonOperator op(d, problem);
    const std::vector<double> x = sample(d.local_cell_count());
    sparse::Vector xd = sparse::to_device(x, "x"), yd("y", op.rows());
    op.apply(xd, yd);
    const auto y = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), yd);
    const std::vector<double> product = multiply(sparse::PoissonOperator::whole_grid_matrix(d, problem), x);
    EXPECT_LT(max_difference(product, std::vector<double>(y.data(), y.data() + y.extent(0))), 1e-12) << g.nx << " x " << g.ny;
  }
}

TEST(BandedCholesky, SolvesToRoundOff) {
  for (const Grid& g : definite_grids) {
    const mesh::Decomposition d(MPI_COMM_SELF, spec_of(g));
    const sparse::CsrHost a = sparse::PoissonOperator::whole_grid_matrix(d, problem_of(g));
    const std::vector<double> x = sample(a.rows());
    std::vector<double> b = multiply(a, x);
    sparse::BandedCholesky(a).solve(b);
    EXPECT_LT(max_difference(b, x), 1e-12) << g.nx << " x " << g.ny << " x " << g.nz;
  }
}

TEST(BandedCholesky, BandIsAboutACrossSection) {
  const Grid walled{16, 16, 16, mesh::Boundary::open, mesh::Boundary::open, mesh::Boundary::open, FaceCondition::zero_value};
  const Grid periodic{16, 16, 16, mesh::Boundary::periodic, mesh::Boundary::periodic, mesh::Boundary::periodic,
                      FaceCondition::zero_value};
  const mesh::Decomposition dw(MPI_COMM_SELF, spec_of(walled)), dp(MPI_COMM_SELF, spec_of(periodic));
  sparse::CsrHost fully_periodic = sparse::PoissonOperator::whole_grid_matrix(dp, problem_of(periodic));
  for (int n = 0; n < fully_periodic.row_offsets[1]; ++n)  // made definite: the band is the point here
    if (fully_periodic.columns[n] == 0) fully_periodic.values[n] += 1;
  const int walled_band = sparse::BandedCholesky(sparse::PoissonOperator::whole_grid_matrix(dw, problem_of(walled))).bandwidth();
  const int periodic_band = sparse::BandedCholesky(fully_periodic).bandwidth();
  RecordProperty("walled_band", walled_band);
  RecordProperty("periodic_band", periodic_band);
  EXPECT_LE(walled_band, 16 * 16);
  EXPECT_LE(periodic_band, 2 * 16 * 16);
}

TEST(BandedCholesky, RefusesASingularMatrix) {
  const Grid walls{8, 8, 1, mesh::Boundary::open, mesh::Boundary::open, mesh::Boundary::periodic, FaceCondition::zero_gradient};
  const mesh::Decomposition d(MPI_COMM_SELF, spec_of(walls));
  EXPECT_THROW(sparse::BandedCholesky(sparse::PoissonOperator::whole_grid_matrix(d, problem_of(walls))), std::runtime_error);
}

}  // namespace
