// Time per pressure Poisson solve against grid size: the direct solver (solvers/common/direct_poisson) and CG
// with the Jacobi and with the multigrid preconditioner (solvers/common/sparse), and where the build has it (Kokkos
// CUDA) the direct solver with cuSPARSE's tridiagonal solve in place of its Thomas kernel, the figures
// bench/poisson_benchmark.sh tabulates and fits, and in 3-D where the transforms are Makhoul's (a GPU's, or
// --kernels gpu on the host) the direct solve transforming y and x one after the other (direct-axes) in place of
// both at once where a rank holds whole planes; beside Meridian's own distributed FFT forward + backward pair
// on the same grid (fft::DistributedFFT, the cost the direct solve is held to). The problem is the projection
// solver's: the cell-centred Laplacian on the unit square (cube) with walls all round (singular, the null space
// removed), right-hand side d pi^2 prod cos(pi x_a), solved from zero (CG to a relative residual of 1e-10).
// Runs on any number of MPI ranks (mpirun); rank 0 prints.
//
// Prints one line per grid and solver:
//   solve <direct|direct-axes|direct-cusparse|jacobi|multigrid> <n> <cells> <iterations> <seconds per solve> <max error against the exact solution>
//   fft_pair <n> <cells> <seconds per forward + backward pair>
//
// usage: poisson_benchmark [--dimensions D] [--smallest N] [--largest N] [--jacobi-largest N]
//                          [--multigrid-largest N] [--repetitions R] [--kernels build|gpu]
//   --dimensions D         2 (n x n, default) or 3 (n x n x n)
//   --smallest, --largest  grid sizes, doubling from the smallest (default 32 to 1024)
//   --jacobi-largest       the largest grid Jacobi-CG is timed on (default 512: its iterations grow like n)
//   --multigrid-largest    the largest grid multigrid-CG is timed on (default: --largest)
//   --repetitions R        timed solves per grid and solver, at least (default 3): after one untimed solve, as
//                          many as take about a quarter second; the best time is reported
//   --kernels gpu          the direct solves with a GPU's kernels (direct_poisson::gpu_kernels) on any build;
//                          build (the default) the build's

#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "command_line.hpp"
#include "mesh/reductions.hpp"
#include "solvers/common/direct_poisson/direct_poisson.hpp"
#include "solvers/common/fft/distributed_fft.hpp"
#include "solvers/common/sparse/conjugate_gradient.hpp"
#include "timing_window.hpp"

namespace {

constexpr double pi = 3.141592653589793;

struct Options {
  int dimensions = 2;
  long smallest = 32, largest = 1024, jacobi_largest = 512, multigrid_largest = 0;
  int repetitions = 3;
  std::string kernels = "build";
};

enum class Solver { direct, direct_axes, direct_cusparse, jacobi, multigrid };

constexpr bench::Usage usage{"poisson_benchmark",
                             "poisson_benchmark [--dimensions D] [--smallest N] [--largest N] [--jacobi-largest N] "
                             "[--multigrid-largest N] [--repetitions R] [--kernels build|gpu]"};

Options parse_options(int argc, char** argv) {
  Options o;
  bench::parse_flags(argc, argv, usage,
                     {{"--dimensions", [&](const char* v) { o.dimensions = std::atoi(v); }},
                      {"--smallest", [&](const char* v) { o.smallest = std::atol(v); }},
                      {"--multigrid-largest", [&](const char* v) { o.multigrid_largest = std::atol(v); }},
                      {"--largest", [&](const char* v) { o.largest = std::atol(v); }},
                      {"--jacobi-largest", [&](const char* v) { o.jacobi_largest = std::atol(v); }},
                      {"--repetitions", [&](const char* v) { o.repetitions = std::atoi(v); }},
                      {"--kernels", [&](const char* v) { o.kernels = v; }}});
  if (o.kernels != "build" && o.kernels != "gpu") bench::usage_error(usage, "--kernels build or gpu");
  if (o.smallest < 4 || o.largest < o.smallest || o.repetitions < 1 || (o.dimensions != 2 && o.dimensions != 3))
    bench::usage_error(usage, "--dimensions 2 or 3, --smallest at least 4, --largest at least --smallest, --repetitions positive");
  if (o.multigrid_largest == 0) o.multigrid_largest = o.largest;
  return o;
}

long row_count(long n, int dimensions);

const char* name_of(Solver solver) {
  switch (solver) {
    case Solver::direct: return "direct";
    case Solver::direct_axes: return "direct-axes";
    case Solver::direct_cusparse: return "direct-cusparse";
    case Solver::jacobi: return "jacobi";
    case Solver::multigrid: return "multigrid";
  }
  return "";
}

bool runs_gpu_kernels(const Options& o) { return o.kernels == "gpu" || !meridian::parallel::device_memory_is_host; }

// The direct solver's kernels for `solver`.
meridian::direct_poisson::Kernels kernels_of(Solver solver, const Options& o) {
  using namespace meridian::direct_poisson;
  Kernels kernels = runs_gpu_kernels(o) ? gpu_kernels : Kernels{};
  if (solver == Solver::direct_cusparse) kernels.tridiagonal = TridiagonalSolver::cusparse;
  kernels.planes = solver != Solver::direct_axes;
  return kernels;
}

// The best seconds of `work` (bench::repetitions_for after one untimed call, which also makes first touches and
// plans). Every rank times the same number of calls, since `work` holds collectives: the slowest rank's first
// call sets it.
template <class Work>
double best_seconds_on_every_rank(int at_least, Work&& work) {
  const auto t0 = bench::Clock::now();
  work();
  double first = bench::seconds_between(t0, bench::Clock::now());
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return bench::best_seconds(bench::Timing{bench::repetitions_for(first, at_least)}, work);
}

void run(long n, int dimensions, Solver solver, const Options& o, int rank) {
  using namespace meridian;
  mesh::GridSpec spec;
  spec.dimensions = dimensions;
  spec.cells = {n, n, dimensions == 3 ? n : 1};
  spec.boundary = {mesh::Boundary::open, mesh::Boundary::open, dimensions == 3 ? mesh::Boundary::open : mesh::Boundary::periodic};
  const mesh::Decomposition d(MPI_COMM_WORLD, spec);
  const double h = 1.0 / static_cast<double>(n);
  sparse::PoissonProblem problem;
  problem.spacing = {h, h, h};
  sparse::PoissonOperator op(d, problem);
  std::unique_ptr<sparse::ConjugateGradient> cg;
  std::unique_ptr<direct_poisson::DirectPoisson> direct;
  if (solver != Solver::jacobi && solver != Solver::multigrid)
    direct = std::make_unique<direct_poisson::DirectPoisson>(d, problem, mesh::default_message_path(),
                                                             kernels_of(solver, o));
  else
    cg = std::make_unique<sparse::ConjugateGradient>(
        op, d, problem, solver == Solver::jacobi ? sparse::Preconditioner::jacobi : sparse::Preconditioner::multigrid);
  sparse::Vector b("b", op.rows()), x("x", op.rows());
  auto host = Kokkos::create_mirror_view(b);
  const double scale = dimensions * pi * pi;
  long row = 0;
  for (long k = 0; k < d.local_cells(2); ++k)
    for (long j = 0; j < d.local_cells(1); ++j)
      for (long i = 0; i < d.local_cells(0); ++i, ++row) {
        double f = std::cos(pi * (d.offset(0) + i + 0.5) * h) * std::cos(pi * (d.offset(1) + j + 0.5) * h);
        if (dimensions == 3) f *= std::cos(pi * (d.offset(2) + k + 0.5) * h);
        host(row) = scale * f;
      }
  Kokkos::deep_copy(b, host);
  sparse::SolveResult result{1, 0, true};
  const double seconds = best_seconds_on_every_rank(o.repetitions, [&] {
    Kokkos::deep_copy(x, 0.0);
    MPI_Barrier(MPI_COMM_WORLD);
    if (direct)
      direct->solve(b, x);
    else
      result = cg->solve(b, x, {1e-10, 100000});
    Kokkos::fence();
  });
  const auto solution = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  double error = 0;
  for (long r = 0; r < op.rows(); ++r) error = std::max(error, std::abs(solution(r) - host(r) / scale));
  error = mesh::global_max(error, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("solve %s %ld %ld %d %.4e %.3e\n", name_of(solver), n, row_count(n, dimensions), result.iterations, seconds, error);
}

long row_count(long n, int dimensions) { return dimensions == 3 ? n * n * n : n * n; }

// Meridian's distributed real-to-complex FFT forward and backward on the same grid and ranks.
void run_fft_pair(long n, int dimensions, int repetitions, int rank) {
  using namespace meridian;
  fft::DistributedFFT transform(MPI_COMM_WORLD, {n, n, dimensions == 3 ? n : 1}, {0, 0});
  const fft::RealPencil real = transform.make_real("real");
  const fft::ComplexPencil spectral = transform.make_spectral("spectral");
  Kokkos::deep_copy(real, 1.0);
  const double seconds = best_seconds_on_every_rank(repetitions, [&] {
    MPI_Barrier(MPI_COMM_WORLD);
    transform.forward(real, spectral);
    transform.backward(spectral, real);
    Kokkos::fence();
  });
  if (rank == 0) std::printf("fft_pair %ld %ld %.4e\n", n, row_count(n, dimensions), seconds);
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
      run_fft_pair(n, o.dimensions, o.repetitions, rank);
      run(n, o.dimensions, Solver::direct, o, rank);
      if (runs_gpu_kernels(o) && o.dimensions == 3) run(n, o.dimensions, Solver::direct_axes, o, rank);
      if (meridian::direct_poisson::available(meridian::direct_poisson::TridiagonalSolver::cusparse))
        run(n, o.dimensions, Solver::direct_cusparse, o, rank);
      if (n <= o.jacobi_largest) run(n, o.dimensions, Solver::jacobi, o, rank);
      if (n <= o.multigrid_largest) run(n, o.dimensions, Solver::multigrid, o, rank);
    }
  }
  Kokkos::finalize();
  MPI_Finalize();
  return 0;
}
