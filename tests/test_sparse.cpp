// The pressure Poisson solve (solvers/common/sparse): conjugate gradients with the Jacobi and the multigrid
// preconditioners on manufactured solutions, with walls (singular: the null space removed), with p = 0
// faces, and periodic; second-order convergence, the tolerance reached, the mean kept at zero, the same
// answers on any rank count as on one, multigrid's iteration count flat under refinement, a grid it
// cannot coarsen refused, and a rank's block past the operator's 32-bit indices refused before assembly.
#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "mesh/reductions.hpp"
#include "solvers/common/sparse/conjugate_gradient.hpp"

using namespace meridian;
using sparse::FaceCondition;

namespace {

constexpr double pi = 3.141592653589793;

struct Case {
  int dimensions;
  mesh::Boundary boundary_x, boundary_y;
  FaceCondition face_x;                          // on both x faces when x is not periodic
  std::function<double(double, double, double)> exact;
  double eigenvalue;                             // -laplacian(exact) = eigenvalue * exact
};

struct Outcome {
  double max_error = 0, mean = 0;
  sparse::SolveResult solve;
  std::vector<double> solution;  // this rank's cells
  std::vector<long> cell;        // their global indices, x fastest
};

Outcome solve(const Case& c, long n, MPI_Comm comm, sparse::Preconditioner preconditioner) {
  mesh::GridSpec spec;
  spec.dimensions = c.dimensions;
  spec.cells = {n, n, c.dimensions == 3 ? n : 1};
  spec.boundary = {c.boundary_x, c.boundary_y, mesh::Boundary::periodic};
  const mesh::Decomposition d(comm, spec);
  const double h = 1.0 / static_cast<double>(n);
  sparse::PoissonProblem problem;
  problem.spacing = {h, h, h};
  problem.lower[0] = problem.upper[0] = c.face_x;
  sparse::PoissonOperator op(d, problem);
  sparse::Vector b("b", op.rows()), x("x", op.rows());
  auto rhs = Kokkos::create_mirror_view(b);
  std::vector<double> exact(op.rows());
  Outcome out;
  long row = 0;
  for (long k = 0; k < d.local_cells(2); ++k)
    for (long j = 0; j < d.local_cells(1); ++j)
      for (long i = 0; i < d.local_cells(0); ++i, ++row) {
        out.cell.push_back(((d.offset(2) + k) * n + d.offset(1) + j) * n + d.offset(0) + i);
        const double px = (d.offset(0) + i + 0.5) * h, py = (d.offset(1) + j + 0.5) * h, pz = (d.offset(2) + k + 0.5) * h;
        exact[row] = c.exact(px, py, c.dimensions == 3 ? pz : 0.0);
        rhs(row) = c.eigenvalue * exact[row];
      }
  Kokkos::deep_copy(b, rhs);
  sparse::ConjugateGradient cg(op, d, problem, preconditioner);
  out.solve = cg.solve(b, x, {1e-11, 20000});
  const auto solution = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  double error = 0, sum = 0;
  for (long r = 0; r < op.rows(); ++r) {
    error = std::max(error, std::abs(solution(r) - exact[r])), sum += solution(r);
    out.solution.push_back(solution(r));
  }
  out.max_error = mesh::global_max(error, comm);
  out.mean = mesh::global_sum(sum, comm) / static_cast<double>(d.global_cell_count());
  return out;
}

class PoissonTest : public ::testing::TestWithParam<std::tuple<int, sparse::Preconditioner>> {};

const Case cases[] = {
    // Walls all round: zero normal gradient, singular.
    {2, mesh::Boundary::open, mesh::Boundary::open, FaceCondition::zero_gradient,
     [](double x, double y, double) { return std::cos(pi * x) * std::cos(pi * y); }, 2 * pi * pi},
    // p = 0 on the x faces, periodic in y: non-singular.
    {2, mesh::Boundary::open, mesh::Boundary::periodic, FaceCondition::zero_value,
     [](double x, double y, double) { return std::sin(pi * x) * std::cos(2 * pi * y); }, 5 * pi * pi},
    // Periodic cube: singular.
    {3, mesh::Boundary::periodic, mesh::Boundary::periodic, FaceCondition::zero_gradient,
     [](double x, double y, double z) { return std::sin(2 * pi * x) * std::sin(2 * pi * y) * std::cos(2 * pi * z); },
     12 * pi * pi},
};

TEST_P(PoissonTest, ConvergesAtSecondOrderWithTheMeanRemoved) {
  const auto [index, preconditioner] = GetParam();
  const Case& c = cases[index];
  const long sizes[3] = {16, 32, 64};
  double errors[3];
  for (int s = 0; s < 3; ++s) {
    const Outcome o = solve(c, sizes[s], MPI_COMM_WORLD, preconditioner);
    EXPECT_TRUE(o.solve.converged) << "n = " << sizes[s] << ": residual " << o.solve.residual;
    EXPECT_LE(o.solve.residual, 1e-11);
    EXPECT_LT(std::abs(o.mean), 1e-12) << "n = " << sizes[s];
    errors[s] = o.max_error;
  }
  for (int s = 1; s < 3; ++s)
    EXPECT_GT(std::log2(errors[s - 1] / errors[s]), 1.9) << "errors " << errors[s - 1] << " -> " << errors[s];
}

TEST_P(PoissonTest, AnyRankCountGivesTheOneRankAnswer) {
  const auto [index, preconditioner] = GetParam();
  const Case& c = cases[index];
  const long n = c.dimensions == 3 ? 16 : 32;
  const Outcome all = solve(c, n, MPI_COMM_WORLD, preconditioner), one = solve(c, n, MPI_COMM_SELF, preconditioner);
  // The solution is of order one; the solves stop at a relative residual of 1e-11.
  double difference = 0;
  for (std::size_t r = 0; r < all.solution.size(); ++r)
    difference = std::max(difference, std::abs(all.solution[r] - one.solution[all.cell[r]]));
  EXPECT_LT(mesh::global_max(difference, MPI_COMM_WORLD), 1e-9);
  if (preconditioner == sparse::Preconditioner::jacobi) {
    EXPECT_NEAR(all.solve.iterations, one.solve.iterations, 1);
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, PoissonTest,
                         ::testing::Combine(::testing::Values(0, 1, 2),
                                            ::testing::Values(sparse::Preconditioner::jacobi,
                                                              sparse::Preconditioner::multigrid)));

int ranks_of(MPI_Comm comm) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  return ranks;
}

// Multigrid's iterations stay flat from 32^2 to 512^2 (48^2 to 768^2 on a multiple of 3 ranks, whose row
// blocks must stay even), where Jacobi's double with each refinement.
TEST(PoissonMultigrid, IterationsStayFlatUnderRefinement) {
  const long base = ranks_of(MPI_COMM_WORLD) % 3 == 0 ? 48 : 32;
  int fewest = 1 << 30, most = 0;
  for (long n = base; n <= 16 * base; n *= 2) {
    const Outcome o = solve(cases[0], n, MPI_COMM_WORLD, sparse::Preconditioner::multigrid);
    EXPECT_TRUE(o.solve.converged) << "n = " << n;
    fewest = std::min(fewest, o.solve.iterations), most = std::max(most, o.solve.iterations);
  }
  EXPECT_LE(most - fewest, 3) << "iterations from " << fewest << " to " << most;
}

TEST(PoissonMultigrid, RefusesAGridItCannotCoarsen) {
  // 65 cells per axis: odd at once, so the coarsest level would be the whole 65^2 grid.
  EXPECT_THROW(solve(cases[0], 65, MPI_COMM_WORLD, sparse::Preconditioner::multigrid), mesh::DecompositionError);
}

// 675^3 cells on one rank: 7 entries a row overflow the CSR's int offsets (INT_MAX / 7 = 306,783,378 rows);
// 674^3 (306,182,024) fit. The check reads the decomposition only: nothing is allocated.
TEST(PoissonOperator, RefusesARankBlockPastItsIndices) {
  const auto on_one_rank = [](long n) {
    mesh::GridSpec spec;
    spec.dimensions = 3;
    spec.cells = {n, n, n};
    return mesh::Decomposition(MPI_COMM_SELF, spec);
  };
  EXPECT_NO_THROW(sparse::PoissonOperator::check_size(on_one_rank(674)));
  try {
    sparse::PoissonOperator::check_size(on_one_rank(675));
    ADD_FAILURE() << "675^3 cells on one rank were accepted";
  } catch (const mesh::DecompositionError& e) {
    EXPECT_EQ(e.key(), "nx");
    EXPECT_NE(std::string(e.what()).find("307546875"), std::string::npos) << e.what();
  }
}

}  // namespace
