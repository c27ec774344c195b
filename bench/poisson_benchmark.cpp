// Time per pressure Poisson solve against grid size, for CG with the Jacobi and with the multigrid
// preconditioner (solvers/common/sparse), the figures bench/poisson_benchmark.sh tabulates and fits.
// The problem is the projection solver's: the cell-centred Laplacian on the unit square with walls all
// round (singular, the null space removed), right-hand side 2 pi^2 cos(pi x) cos(pi y), solved from zero to
// a relative residual of 1e-10. Runs on any number of MPI ranks (mpirun); rank 0 prints.
//
// Prints one line per grid and preconditioner:
//   solve <jacobi|multigrid> <n> <cells> <iterations> <seconds per solve> <max error against the exact solution>
//
// usage: poisson_benchmark [--smallest N] [--largest N] [--jacobi-largest N] [--repetitions R]
//   --smallest, --largest  grid sizes n x n, doubling from the smallest (default 32 to 1024)
//   --jacobi-largest       the largest grid Jacobi-CG is timed on (default 512: its iterations grow like n)
//   --repetitions R        solves per grid and preconditioner, the best time is reported (default 3)

#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "command_line.hpp"
#include "mesh/reductions.hpp"
#include "solvers/common/sparse/conjugate_gradient.hpp"
#include "timing_window.hpp"

namespace {

constexpr double pi = 3.141592653589793;

struct Options {
  long smallest = 32, largest = 1024, jacobi_largest = 512;
  int repetitions = 3;
};

constexpr bench::Usage usage{"poisson_benchmark",
                             "poisson_benchmark [--smallest N] [--largest N] [--jacobi-largest N] [--repetitions R]"};

Options parse_options(int argc, char** argv) {
  Options o;
  bench::parse_flags(argc, argv, usage,
                     {{"--smallest", [&](const char* v) { o.smallest = std::atol(v); }},
                      {"--largest", [&](const char* v) { o.largest = std::atol(v); }},
                      {"--jacobi-largest", [&](const char* v) { o.jacobi_largest = std::atol(v); }},
                      {"--repetitions", [&](const char* v) { o.repetitions = std::atoi(v); }}});
  if (o.smallest < 4 || o.largest < o.smallest || o.repetitions < 1)
    bench::usage_error(usage, "--smallest at least 4, --largest at least --smallest, --repetitions positive");
  return o;
}

void run(long n, meridian::sparse::Preconditioner preconditioner, int repetitions, int rank) {
  using namespace meridian;
  mesh::GridSpec spec;
  spec.cells = {n, n, 1};
  spec.boundary = {mesh::Boundary::open, mesh::Boundary::open, mesh::Boundary::periodic};
  const mesh::Decomposition d(MPI_COMM_WORLD, spec);
  const double h = 1.0 / static_cast<double>(n);
  sparse::PoissonProblem problem;
  problem.spacing = {h, h, h};
  sparse::PoissonOperator op(d, problem);
  sparse::ConjugateGradient cg(op, d, problem, preconditioner);
  sparse::Vector b("b", op.rows()), x("x", op.rows());
  auto host = Kokkos::create_mirror_view(b);
  for (long j = 0; j < d.local_cells(1); ++j)
    for (long i = 0; i < d.local_cells(0); ++i)
      host(j * d.local_cells(0) + i) = 2 * pi * pi * std::cos(pi * (d.offset(0) + i + 0.5) * h) *
                                       std::cos(pi * (d.offset(1) + j + 0.5) * h);
  Kokkos::deep_copy(b, host);
  sparse::SolveResult result;
  const double seconds = bench::best_seconds(bench::Timing{repetitions}, [&] {
    Kokkos::deep_copy(x, 0.0);
    MPI_Barrier(MPI_COMM_WORLD);
    result = cg.solve(b, x, {1e-10, 100000});
    Kokkos::fence();
  });
  const auto solution = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  double error = 0;
  for (long j = 0; j < d.local_cells(1); ++j)
    for (long i = 0; i < d.local_cells(0); ++i)
      error = std::max(error, std::abs(solution(j * d.local_cells(0) + i) - host(j * d.local_cells(0) + i) / (2 * pi * pi)));
  error = mesh::global_max(error, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("solve %s %ld %ld %d %.4e %.3e\n", preconditioner == sparse::Preconditioner::jacobi ? "jacobi" : "multigrid",
                n, n * n, result.iterations, seconds, error);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Kokkos::initialize(argc, argv);
  {
    const Options o = parse_options(argc, argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (long n = o.smallest; n <= o.largest; n *= 2) {
      if (n <= o.jacobi_largest) run(n, meridian::sparse::Preconditioner::jacobi, o.repetitions, rank);
      run(n, meridian::sparse::Preconditioner::multigrid, o.repetitions, rank);
    }
  }
  Kokkos::finalize();
  MPI_Finalize();
  return 0;
}
