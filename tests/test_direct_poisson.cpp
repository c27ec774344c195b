// The direct pressure solver (solvers/common/direct_poisson): for every pair of face conditions on every axis, in
// 2-D and 3-D with unequal spacings and uneven blocks, its backward error is round-off against the operator
// sparse::PoissonOperator assembles, with the build's kernels and with a GPU's (run on the host too); it agrees with multigrid-preconditioned CG; it converges at second order
// to continuous solutions; the singular (all zero-gradient) case returns a zero-mean solution; and any rank
// count gives one rank's answer. The matrix-free stencil that checks its residual in a projection gives the
// assembled operator's product for every face pair.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "mesh/halo_exchange.hpp"
#include "mesh/reductions.hpp"
#include "parallel/device_memory.hpp"
#include "parallel/launch_policy.hpp"
#include "solvers/common/direct_poisson/direct_poisson.hpp"
#include "solvers/common/sparse/conjugate_gradient.hpp"
#include "solvers/common/sparse/poisson_stencil.hpp"

using namespace meridian;
using direct_poisson::AxisKind;
using sparse::FaceCondition;

namespace {

constexpr double pi = 3.141592653589793;
constexpr AxisKind kinds[] = {AxisKind::periodic, AxisKind::neumann_neumann, AxisKind::dirichlet_dirichlet,
                              AxisKind::neumann_dirichlet, AxisKind::dirichlet_neumann};

const char* name_of(AxisKind kind) {
  switch (kind) {
    case AxisKind::periodic: return "periodic";
    case AxisKind::neumann_neumann: return "zero gradient, zero gradient";
    case AxisKind::dirichlet_dirichlet: return "p = 0, p = 0";
    case AxisKind::neumann_dirichlet: return "zero gradient, p = 0";
    case AxisKind::dirichlet_neumann: return "p = 0, zero gradient";
    case AxisKind::dirichlet_nodes: return "nodes between faces at 0";
  }
  return "";
}

// A grid of the given kinds per axis (x, y, z), cells and spacings, on `comm`.
struct Grid {
  mesh::GridSpec spec;
  sparse::PoissonProblem problem;
  Grid(int dimensions, const std::array<AxisKind, 3>& kind, const std::array<long, 3>& cells,
       const std::array<double, 3>& spacing) {
    spec.dimensions = dimensions;
    spec.cells = {cells[0], cells[1], dimensions == 3 ? cells[2] : 1};
    problem.spacing = spacing;
    for (int a = 0; a < 3; ++a) {
      spec.boundary[a] = kind[a] == AxisKind::periodic || a >= dimensions ? mesh::Boundary::periodic : mesh::Boundary::open;
      const bool low_zero = kind[a] == AxisKind::dirichlet_dirichlet || kind[a] == AxisKind::dirichlet_neumann;
      const bool high_zero = kind[a] == AxisKind::dirichlet_dirichlet || kind[a] == AxisKind::neumann_dirichlet;
      problem.lower[a] = low_zero ? FaceCondition::zero_value : FaceCondition::zero_gradient;
      problem.upper[a] = high_zero ? FaceCondition::zero_value : FaceCondition::zero_gradient;
    }
  }
};

// Global row indices (x fastest) of this rank's cells, and a function of the cell centre at each.
struct Cells {
  std::vector<long> global;
  std::vector<std::array<double, 3>> centre;
};
Cells cells_of(const mesh::Decomposition& d, const sparse::PoissonProblem& p) {
  Cells c;
  for (long k = 0; k < d.local_cells(2); ++k)
    for (long j = 0; j < d.local_cells(1); ++j)
      for (long i = 0; i < d.local_cells(0); ++i) {
        const long gi = d.offset(0) + i, gj = d.offset(1) + j, gk = d.offset(2) + k;
        c.global.push_back((gk * d.global_cells(1) + gj) * d.global_cells(0) + gi);
        c.centre.push_back({(gi + 0.5) * p.spacing[0], (gj + 0.5) * p.spacing[1], (gk + 0.5) * p.spacing[2]});
      }
  return c;
}

// A right-hand side the same on any rank count: a hash of the global cell index.
std::vector<double> random_rhs(const Cells& c) {
  std::vector<double> b;
  for (const long g : c.global) {
    std::mt19937_64 generator(static_cast<unsigned long>(g) * 2654435761UL + 17);
    b.push_back(std::uniform_real_distribution<double>(-1, 1)(generator));
  }
  return b;
}

double global_max_abs(const std::vector<double>& v, MPI_Comm comm) {
  double m = 0;
  for (const double x : v) m = std::max(m, std::abs(x));
  return mesh::global_max(m, comm);
}

double global_mean(const std::vector<double>& v, const mesh::Decomposition& d) {
  double sum = 0;
  for (const double x : v) sum += x;
  return mesh::global_sum(sum, d.comm()) / static_cast<double>(d.global_cell_count());
}

// ||b - A p||_inf / (||A||_inf ||p||_inf + ||b||_inf), b with its mean removed where A is singular.
double backward_error(const Grid& grid, MPI_Comm comm,
                      direct_poisson::Kernels kernels = {}) {
  const mesh::Decomposition d(comm, grid.spec);
  sparse::PoissonOperator op(d, grid.problem);
  direct_poisson::DirectPoisson solver(d, grid.problem, mesh::default_message_path(), kernels);
  const Cells cells = cells_of(d, grid.problem);
  std::vector<double> b = random_rhs(cells);
  const sparse::Vector rhs = parallel::device_copy("v", b), p("p", b.size()), product("Ap", b.size());
  solver.solve(rhs, p);
  op.apply(p, product);
  if (op.singular()) {
    const double mean = global_mean(b, d);
    for (double& x : b) x -= mean;
  }
  const std::vector<double> ap = parallel::host_copy(product), solution = parallel::host_copy(p);
  std::vector<double> residual(b.size());
  for (std::size_t n = 0; n < b.size(); ++n) residual[n] = b[n] - ap[n];
  double norm_a = 0;  // an interior row: the diagonal 2 / h^2 per axis and as much again off it
  for (int a = 0; a < grid.spec.dimensions; ++a) norm_a += 4 / (grid.problem.spacing[a] * grid.problem.spacing[a]);
  return global_max_abs(residual, comm) / (norm_a * global_max_abs(solution, comm) + global_max_abs(b, comm));
}

// Makhoul's form (the GPU's) gives FFTW's real-to-real coefficients (the host's), and each method's backward
// undoes its forward up to the normalisation, for every kind and odd and even lengths.
TEST(AxisTransform, MakhoulGivesFftwsCoefficientsAndEachInverts) {
  using direct_poisson::AxisTransform;
  using direct_poisson::TransformMethod;
  std::mt19937 random(7);
  std::uniform_real_distribution<double> value(-1, 1);
  constexpr long batch = 3;
  for (AxisKind kind : {kinds[0], kinds[1], kinds[2], kinds[3], kinds[4], AxisKind::dirichlet_nodes})
    for (int n : {1, 2, 5, 8, 13}) {
      SCOPED_TRACE(std::string(name_of(kind)) + ", n = " + std::to_string(n));
      std::vector<double> x(static_cast<std::size_t>(batch * n));
      for (double& v : x) v = value(random);
      const sparse::Vector in = parallel::device_copy("x", x), coefficients("c", x.size()), back("x'", x.size());
      std::vector<TransformMethod> methods{TransformMethod::makhoul};
      if (parallel::device_memory_is_host) methods.push_back(TransformMethod::fftw_real_to_real);
      std::vector<std::vector<double>> results;
      for (TransformMethod method : methods) {
        const AxisTransform transform(kind, n, batch, method);
        transform.forward(in, coefficients);
        transform.backward(coefficients, back);
        const std::vector<double> again = parallel::host_copy(back);
        for (std::size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(again[i], transform.normalisation() * x[i], 1e-13 * n);
        results.push_back(parallel::host_copy(coefficients));
      }
      for (std::size_t i = 0; results.size() == 2 && i < x.size(); ++i) EXPECT_NEAR(results[0][i], results[1][i], 1e-13 * n);
    }
}

// Rows whose values lie `inner` apart (an axis of a (z, y, x) block other than x) give the coefficients of the same
// rows made contiguous, by either method, and invert.
TEST(AxisTransform, StridedRowsGiveTheContiguousRowsCoefficients) {
  using direct_poisson::AxisTransform;
  using direct_poisson::TransformMethod;
  std::mt19937 random(11);
  std::uniform_real_distribution<double> value(-1, 1);
  constexpr long outer = 2, inner = 3, batch = outer * inner;
  std::vector<TransformMethod> methods{TransformMethod::makhoul};
  if (parallel::device_memory_is_host) methods.push_back(TransformMethod::fftw_real_to_real);
  for (AxisKind kind : {kinds[0], kinds[1], kinds[2], kinds[3], kinds[4], AxisKind::dirichlet_nodes})
    for (int n : {1, 4, 7})
      for (TransformMethod method : methods) {
        SCOPED_TRACE(std::string(name_of(kind)) + ", n = " + std::to_string(n));
        std::vector<double> strided(static_cast<std::size_t>(batch * n)), rows(strided.size());
        for (long o = 0; o < outer; ++o)
          for (long s = 0; s < n; ++s)
            for (long i = 0; i < inner; ++i) {
              const double v = value(random);
              strided[static_cast<std::size_t>((o * n + s) * inner + i)] = v;
              rows[static_cast<std::size_t>((o * inner + i) * n + s)] = v;
            }
        const sparse::Vector in = parallel::device_copy("x", strided), along = parallel::device_copy("rows", rows);
        const sparse::Vector coefficients("c", strided.size()), row_coefficients("rc", rows.size()), back("x'", strided.size());
        const AxisTransform across(kind, n, batch, method, inner), contiguous(kind, n, batch, method);
        across.forward(in, coefficients);
        contiguous.forward(along, row_coefficients);
        across.backward(coefficients, back);
        const std::vector<double> c = parallel::host_copy(coefficients), rc = parallel::host_copy(row_coefficients);
        const std::vector<double> again = parallel::host_copy(back);
        for (long o = 0; o < outer; ++o)
          for (long s = 0; s < n; ++s)
            for (long i = 0; i < inner; ++i) {
              const auto at = static_cast<std::size_t>((o * n + s) * inner + i);
              EXPECT_NEAR(c[at], rc[static_cast<std::size_t>((o * inner + i) * n + s)], 1e-13 * n);
              EXPECT_NEAR(again[at], across.normalisation() * strided[at], 1e-13 * n);
            }
      }
}

// Makhoul's form along y and x at once gives the coefficients of the x transform followed by the y transform
// (the rows strided), and inverts, for every pair of kinds, odd and even lengths, and lengths of one (the FFT
// at least two long).
TEST(PlaneTransform, GivesTheAxisTransformsCoefficientsAndInverts) {
  using direct_poisson::AxisTransform;
  using direct_poisson::PlaneTransform;
  using direct_poisson::TransformMethod;
  std::mt19937 random(13);
  std::uniform_real_distribution<double> value(-1, 1);
  constexpr long planes = 2;
  const AxisKind every[] = {kinds[0], kinds[1], kinds[2], kinds[3], kinds[4], AxisKind::dirichlet_nodes};
  for (AxisKind y : every)
    for (AxisKind x : every)
      for (const std::array<int, 2> n : {std::array<int, 2>{4, 6}, {5, 7}, {1, 3}, {3, 1}})
        if (direct_poisson::fft_length(y, n[0]) > 1 && direct_poisson::fft_length(x, n[1]) > 1) {
          SCOPED_TRACE(std::string("y: ") + name_of(y) + ", x: " + name_of(x) + ", " + std::to_string(n[0]) + " x " +
                       std::to_string(n[1]));
          std::vector<double> values(static_cast<std::size_t>(planes * n[0] * n[1]));
          for (double& v : values) v = value(random);
          const sparse::Vector in = parallel::device_copy("x", values), coefficients("c", values.size()),
                               by_axes("axes", values.size()), back("x'", values.size());
          const PlaneTransform plane({y, x}, n, planes);
          plane.forward(in, coefficients);
          plane.backward(coefficients, back);
          const AxisTransform along_x(x, n[1], planes * n[0], TransformMethod::makhoul),
              along_y(y, n[0], planes * n[1], TransformMethod::makhoul, n[1]);
          along_x.forward(in, by_axes);
          along_y.forward(by_axes, by_axes);
          const std::vector<double> c = parallel::host_copy(coefficients), expected = parallel::host_copy(by_axes),
                                    again = parallel::host_copy(back);
          const double size = n[0] * n[1];
          for (std::size_t i = 0; i < values.size(); ++i) {
            EXPECT_NEAR(c[i], expected[i], 1e-13 * size);
            EXPECT_NEAR(again[i], plane.normalisation() * values[i], 1e-13 * plane.normalisation() * size);
          }
        }
}

// The Thomas kernel's GPU layout (a thread per column, its loads issued rows ahead) run on the host gives the
// host's blocks of columns' solutions bit for bit, and both solve the systems: every kind, a pinned (singular)
// mode, row counts below, at and past the rows loaded together, and more modes than a host block holds.
TEST(ModeSystems, OneColumnPerThreadGivesTheBlocksSolutions) {
  const double h = 0.1, scale = 2.5;
  for (const AxisKind kind : {AxisKind::neumann_neumann, AxisKind::dirichlet_dirichlet, AxisKind::neumann_dirichlet,
                              AxisKind::dirichlet_neumann, AxisKind::dirichlet_nodes})
    for (const long n : {1L, 7L, 16L, 37L}) {
      const long modes = 300;
      const bool pinned = kind == AxisKind::neumann_neumann && n > 1;
      const double shift = pinned ? 0.0 : 0.5;
      std::mt19937_64 generator(static_cast<unsigned long>(n) * 31 + static_cast<unsigned long>(kind));
      std::uniform_real_distribution<double> uniform(-1, 1);
      std::vector<double> lambda(modes), b(static_cast<std::size_t>(n * modes));
      for (long m = 0; m < modes; ++m) lambda[m] = m == 0 ? 0.0 : 50 * (1 + uniform(generator));
      for (double& x : b) x = uniform(generator);
      const Kokkos::View<double*> eigenvalues = parallel::device_copy("lambda", lambda);
      std::vector<std::vector<double>> solutions;
      for (const bool one_column : {false, true}) {
        const direct_poisson::ModeSystems systems(n, modes, h, kind, eigenvalues, pinned ? 0 : -1,
                                                  direct_poisson::TridiagonalSolver::thomas, one_column);
        const Kokkos::View<double*> values = parallel::device_copy("values", b);
        systems.solve(values, shift, scale);
        solutions.push_back(parallel::host_copy(values));
      }
      const std::string where = std::string(name_of(kind)) + ", n = " + std::to_string(n);
      ASSERT_EQ(solutions[0], solutions[1]) << where;
      // Each unpinned system's rows, -p_(k-1) + (2 + lambda h^2 + shift h^2) p_k - p_(k+1) (its end rows with their
      // faces' terms), against scale b h^2.
      const std::vector<double>& p = solutions[0];
      const double low = kind == AxisKind::dirichlet_dirichlet || kind == AxisKind::dirichlet_neumann ? 3
                         : kind == AxisKind::dirichlet_nodes                                          ? 2
                                                                                                      : 1;
      const double high = kind == AxisKind::dirichlet_dirichlet || kind == AxisKind::neumann_dirichlet ? 3
                          : kind == AxisKind::dirichlet_nodes                                          ? 2
                                                                                                       : 1;
      for (long m = pinned ? 1 : 0; m < modes; ++m)
        for (long k = 0; k < n; ++k) {
          const auto at = [&](long row) { return p[static_cast<std::size_t>(row * modes + m)]; };
          const double diagonal = (n == 1 ? low + high - 2 : k == 0 ? low : k == n - 1 ? high : 2) +
                                  (lambda[m] + shift) * h * h;
          const double row = (k > 0 ? -at(k - 1) : 0.0) + diagonal * at(k) - (k < n - 1 ? at(k + 1) : 0.0);
          ASSERT_NEAR(row, scale * b[static_cast<std::size_t>(k * modes + m)] * h * h, 1e-13) << where << ", mode " << m;
        }
    }
}

// The kernel sets each test runs: the build's, a GPU's (Makhoul's form, interleaved where the rows are strided,
// and a Thomas thread per mode; on the host too) and, where the build has it, cuSPARSE's tridiagonal solver.
struct KernelSet {
  direct_poisson::Kernels kernels;
  const char* name;
};
std::vector<KernelSet> kernel_sets() {
  std::vector<KernelSet> sets{{{}, "the build's kernels"}, {direct_poisson::gpu_kernels, "a GPU's kernels"}};
  if (direct_poisson::available(direct_poisson::TridiagonalSolver::cusparse))
    sets.push_back({{direct_poisson::TridiagonalSolver::cusparse}, "cuSPARSE"});
  return sets;
}

TEST(DirectPoisson, BackwardErrorIsRoundOffForEveryFacePairIn2d) {
  for (const KernelSet& set : kernel_sets())
    for (const AxisKind x : kinds)
      for (const AxisKind y : kinds) {
        const Grid grid(2, {x, y, AxisKind::periodic}, {13, 10, 1}, {0.1, 0.1025, 1});
        EXPECT_LE(backward_error(grid, MPI_COMM_WORLD, set.kernels), 1e-14)
            << "x: " << name_of(x) << "; y: " << name_of(y) << "; " << set.name;
      }
}

TEST(DirectPoisson, BackwardErrorIsRoundOffForEveryFacePairIn3d) {
  // Each kind on each axis, beside two others.
  for (const KernelSet& set : kernel_sets())
    for (int s = 0; s < 5; ++s)
      for (int t = 1; t < 5; t += 2) {
        const AxisKind x = kinds[s], y = kinds[(s + t) % 5], z = kinds[(s + 2 * t) % 5];
        const Grid grid(3, {x, y, z}, {9, 7, 6}, {0.1, 0.13, 0.07});
        EXPECT_LE(backward_error(grid, MPI_COMM_WORLD, set.kernels), 1e-14)
            << "x: " << name_of(x) << "; y: " << name_of(y) << "; z: " << name_of(z) << "; " << set.name;
      }
}

// max |A p - stencil(p)| / (||A||_inf max |p|): the assembled product against the stencil's from p's field, its
// halos exchanged.
double stencil_difference(const Grid& grid, MPI_Comm comm) {
  const mesh::Decomposition d(comm, grid.spec);
  sparse::PoissonOperator op(d, grid.problem);
  const sparse::PoissonStencil stencil(d, grid.problem);
  const std::vector<double> values = random_rhs(cells_of(d, grid.problem));
  const sparse::Vector p = parallel::device_copy("p", values), product("Ap", values.size());
  op.apply(p, product);
  const mesh::Field field = mesh::make_field(d, 1, "p");
  auto host = Kokkos::create_mirror_view(field);
  const long hx = d.halo(0), hy = d.halo(1), hz = d.halo(2), nx = d.local_cells(0), ny = d.local_cells(1);
  for (long n = 0; n < static_cast<long>(values.size()); ++n)
    host(0, hz + n / (nx * ny), hy + n / nx % ny, hx + n % nx) = values[n];
  Kokkos::deep_copy(field, host);
  mesh::HaloExchange(d, 1).exchange(field);
  const sparse::Vector by_stencil("stencil", values.size());
  const parallel::Cells owned{{hz, hy, hx}, {hz + d.local_cells(2), hy + ny, hx + nx}};
  parallel::for_each(
      "test::stencil", owned, KOKKOS_LAMBDA(const int k, const int j, const int i) {
        by_stencil(((k - hz) * ny + j - hy) * nx + i - hx) = stencil.apply(field, k, j, i);
      });
  const std::vector<double> assembled = parallel::host_copy(product), matrix_free = parallel::host_copy(by_stencil);
  std::vector<double> difference(values.size());
  for (std::size_t n = 0; n < values.size(); ++n) difference[n] = assembled[n] - matrix_free[n];
  double norm_a = 0;
  for (int a = 0; a < grid.spec.dimensions; ++a) norm_a += 4 / (grid.problem.spacing[a] * grid.problem.spacing[a]);
  return global_max_abs(difference, comm) / (norm_a * global_max_abs(values, comm));
}

TEST(PoissonStencil, GivesTheAssembledProductForEveryFacePair) {
  for (const AxisKind x : kinds)
    for (const AxisKind y : kinds) {
      const Grid grid(2, {x, y, AxisKind::periodic}, {13, 10, 1}, {0.1, 0.1025, 1});
      EXPECT_LE(stencil_difference(grid, MPI_COMM_WORLD), 1e-15) << "x: " << name_of(x) << "; y: " << name_of(y);
    }
  for (int s = 0; s < 5; ++s)
    for (int t = 1; t < 5; t += 2) {
      const AxisKind x = kinds[s], y = kinds[(s + t) % 5], z = kinds[(s + 2 * t) % 5];
      const Grid grid(3, {x, y, z}, {9, 7, 6}, {0.1, 0.13, 0.07});
      EXPECT_LE(stencil_difference(grid, MPI_COMM_WORLD), 1e-15)
          << "x: " << name_of(x) << "; y: " << name_of(y) << "; z: " << name_of(z);
    }
}

std::vector<double> direct_solution(const Grid& grid, MPI_Comm comm, const std::vector<double>& b) {
  const mesh::Decomposition d(comm, grid.spec);
  direct_poisson::DirectPoisson solver(d, grid.problem);
  const sparse::Vector p("p", b.size());
  solver.solve(parallel::device_copy("v", b), p);
  return parallel::host_copy(p);
}

TEST(DirectPoisson, AgreesWithMultigridConjugateGradients) {
  for (const auto& kind : {std::array<AxisKind, 3>{AxisKind::neumann_dirichlet, AxisKind::neumann_neumann, AxisKind::periodic},
                           std::array<AxisKind, 3>{AxisKind::neumann_neumann, AxisKind::neumann_neumann, AxisKind::periodic}}) {
    const Grid grid(2, kind, {64, 32, 1}, {1.0 / 64, 1.025 / 64, 1});
    const mesh::Decomposition d(MPI_COMM_WORLD, grid.spec);
    sparse::PoissonOperator op(d, grid.problem);
    sparse::ConjugateGradient cg(op, d, grid.problem, sparse::Preconditioner::multigrid);
    const std::vector<double> b = random_rhs(cells_of(d, grid.problem));
    const sparse::Vector krylov("krylov", b.size());
    const sparse::SolveResult solved = cg.solve(parallel::device_copy("v", b), krylov, {1e-13, 2000});
    ASSERT_TRUE(solved.converged) << solved.residual;
    const std::vector<double> direct = direct_solution(grid, MPI_COMM_WORLD, b), iterated = parallel::host_copy(krylov);
    std::vector<double> difference(b.size());
    for (std::size_t n = 0; n < b.size(); ++n) difference[n] = direct[n] - iterated[n];
    EXPECT_LE(global_max_abs(difference, MPI_COMM_WORLD), 1e-9 * global_max_abs(direct, MPI_COMM_WORLD))
        << name_of(kind[0]) << " x, " << name_of(kind[1]) << " y";
  }
}

// The solvers of a run share one Workspace (a projection's pressure solve and its viscous ones): solves of two
// grids interleaved, the second's smaller, of other kinds (a DST-I, whose FFT input is padded with zeros) and
// shifted, give what each solver gives with arrays of its own, bit for bit, with the build's kernels and a GPU's.
TEST(DirectPoisson, SolversSharingAWorkspaceGiveTheirOwnAnswers) {
  const Grid large(3, {AxisKind::neumann_dirichlet, AxisKind::dirichlet_dirichlet, AxisKind::neumann_neumann}, {16, 12, 12},
                   {0.1, 0.12, 0.09});
  const Grid small(3, {AxisKind::neumann_neumann, AxisKind::dirichlet_neumann, AxisKind::dirichlet_dirichlet}, {11, 10, 8},
                   {0.1, 0.1, 0.1});
  const mesh::Decomposition on_large(MPI_COMM_WORLD, large.spec), on_small(MPI_COMM_WORLD, small.spec);
  // The small grid as a viscous component along x sees it: nodes between faces held at 0 (logical z, y, x).
  direct_poisson::SeparableGrid nodes;
  nodes.cells = {small.spec.cells[2], small.spec.cells[1], small.spec.cells[0]};
  nodes.kinds = {AxisKind::dirichlet_dirichlet, AxisKind::dirichlet_neumann, AxisKind::dirichlet_nodes};
  nodes.spacing = {0.1, 0.1, 0.1};
  nodes.blocks = direct_poisson::gather_blocks(
      MPI_COMM_WORLD, {{on_small.offset(2), on_small.offset(1), on_small.offset(0)},
                       {on_small.local_cells(2), on_small.local_cells(1), on_small.local_cells(0)}});
  const std::vector<double> first = random_rhs(cells_of(on_large, large.problem)),
                            second = random_rhs(cells_of(on_small, small.problem));
  std::vector<double> third(first.size());
  for (std::size_t n = 0; n < first.size(); ++n) third[n] = 2 * first[n] - 0.25;
  const auto path = mesh::default_message_path();
  for (const KernelSet& set : kernel_sets()) {
    // Solves first on the large grid, then the small (shifted), then the large again.
    const auto solve_in_turn = [&](const direct_poisson::Workspace& large_arrays,
                                   const direct_poisson::Workspace& small_arrays) {
      direct_poisson::DirectPoisson a(on_large, large.problem, path, set.kernels, large_arrays),
          b(MPI_COMM_WORLD, nodes, path, set.kernels, small_arrays);
      const sparse::Vector x1("x1", first.size()), x2("x2", second.size()), x3("x3", first.size());
      a.solve(parallel::device_copy("b1", first), x1);
      b.solve(parallel::device_copy("b2", second), x2, 30.0, 0.5);
      a.solve(parallel::device_copy("b3", third), x3);
      return std::vector<std::vector<double>>{parallel::host_copy(x1), parallel::host_copy(x2), parallel::host_copy(x3)};
    };
    const direct_poisson::Workspace shared;
    EXPECT_EQ(solve_in_turn(shared, shared), solve_in_turn({}, {})) << set.name;
  }
}

// Per kind on the unit interval: a function meeting its face conditions, and k with -f'' = k^2 f.
double profile(AxisKind kind, double x) {
  switch (kind) {
    case AxisKind::periodic: return std::cos(2 * pi * x) + std::sin(2 * pi * x);
    case AxisKind::neumann_neumann: return std::cos(pi * x);
    case AxisKind::dirichlet_dirichlet:
    case AxisKind::dirichlet_nodes: return std::sin(pi * x);
    case AxisKind::neumann_dirichlet: return std::cos(pi * x / 2);
    case AxisKind::dirichlet_neumann: return std::sin(pi * x / 2);
  }
  return 0;
}
double wavenumber(AxisKind kind) {
  return kind == AxisKind::periodic ? 2 * pi : kind == AxisKind::neumann_dirichlet || kind == AxisKind::dirichlet_neumann ? pi / 2 : pi;
}

// Max error against the product of the axes' profiles on n cells a side of the unit square or cube.
double continuous_error(int dimensions, const std::array<AxisKind, 3>& kind, long n) {
  const double h = 1.0 / static_cast<double>(n);
  const Grid grid(dimensions, kind, {n, n, n}, {h, h, h});
  const mesh::Decomposition d(MPI_COMM_WORLD, grid.spec);
  const Cells cells = cells_of(d, grid.problem);
  double k2 = 0;
  for (int a = 0; a < dimensions; ++a) k2 += wavenumber(kind[a]) * wavenumber(kind[a]);
  std::vector<double> exact, b;
  for (const auto& x : cells.centre) {
    double f = 1;
    for (int a = 0; a < dimensions; ++a) f *= profile(kind[a], x[a]);
    exact.push_back(f), b.push_back(k2 * f);
  }
  const std::vector<double> p = direct_solution(grid, MPI_COMM_WORLD, b);
  for (std::size_t c = 0; c < p.size(); ++c) exact[c] -= p[c];
  return global_max_abs(exact, MPI_COMM_WORLD);
}

TEST(DirectPoisson, ConvergesAtSecondOrder) {
  for (int dimensions : {2, 3})
    for (int s = 0; s < 5; ++s) {
      const std::array<AxisKind, 3> kind{kinds[s], kinds[(s + 1) % 5], kinds[(s + 2) % 5]};
      const long n = dimensions == 3 ? 12 : 16;
      const double coarse = continuous_error(dimensions, kind, n), fine = continuous_error(dimensions, kind, 2 * n);
      EXPECT_GT(std::log2(coarse / fine), 1.9) << dimensions << "-D, x: " << name_of(kind[0]) << ", errors "
                                               << coarse << " -> " << fine;
    }
}

TEST(DirectPoisson, SingularCavityGivesAFiniteZeroMeanSolution) {
  const Grid grid(3, {AxisKind::neumann_neumann, AxisKind::neumann_neumann, AxisKind::neumann_neumann}, {12, 10, 8},
                  {0.1, 0.1, 0.1});
  const mesh::Decomposition d(MPI_COMM_WORLD, grid.spec);
  const std::vector<double> p = direct_solution(grid, MPI_COMM_WORLD, random_rhs(cells_of(d, grid.problem)));
  const double largest = global_max_abs(p, MPI_COMM_WORLD);
  EXPECT_TRUE(std::isfinite(largest));
  EXPECT_GT(largest, 0);
  EXPECT_LT(std::abs(global_mean(p, d)), 1e-14 * largest);
}

TEST(DirectPoisson, AnyRankCountGivesTheOneRankAnswer) {
  for (int dimensions : {2, 3}) {
    const Grid grid(dimensions, {AxisKind::neumann_dirichlet, AxisKind::periodic, AxisKind::dirichlet_dirichlet},
                    {14, 11, 9}, {0.1, 0.1025, 0.09});
    const mesh::Decomposition all(MPI_COMM_WORLD, grid.spec), one(MPI_COMM_SELF, grid.spec);
    const Cells cells = cells_of(all, grid.problem), single = cells_of(one, grid.problem);
    const std::vector<double> p = direct_solution(grid, MPI_COMM_WORLD, random_rhs(cells)),
                              q = direct_solution(grid, MPI_COMM_SELF, random_rhs(single));
    std::vector<double> difference(p.size());
    for (std::size_t c = 0; c < p.size(); ++c) difference[c] = p[c] - q[cells.global[c]];
    EXPECT_LE(global_max_abs(difference, MPI_COMM_WORLD), 1e-12 * global_max_abs(p, MPI_COMM_WORLD)) << dimensions << "-D";
  }
}

// The libraries' 32-bit counts bound a rank's pencil (its rows, each 2 longer than the axis): 1289^3 cells fit
// on one rank, 1290^3 do not; 1290^3 on 2 ranks do. A 2-D grid's z is never transformed and counts nothing.
TEST(DirectPoisson, PencilsPastThirtyTwoBitCountsAreRefused) {
  EXPECT_NO_THROW(direct_poisson::DirectPoisson::check_layout({1289, 1289, 1289}, 1, 3));
  EXPECT_NO_THROW(direct_poisson::DirectPoisson::check_layout({1290, 1290, 1290}, 2, 3));
  EXPECT_NO_THROW(direct_poisson::DirectPoisson::check_layout({1, 40000, 40000}, 1, 2));
  try {
    direct_poisson::DirectPoisson::check_layout({1290, 1290, 1290}, 1, 3);
    ADD_FAILURE() << "1290^3 cells on one rank were accepted";
  } catch (const mesh::DecompositionError& e) {
    EXPECT_EQ(e.key(), "nz") << e.what();
    EXPECT_NE(std::string(e.what()).find("2150017200"), std::string::npos) << e.what();
  }
}

}  // namespace
