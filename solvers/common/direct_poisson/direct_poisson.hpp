#pragma once
// A direct solver for sparse::PoissonOperator's operator (the negated cell-centred Laplacian with per-axis face
// conditions on a uniform grid per axis), as CaNS solves it (Costa 2018, Comput. Math. Appl. 76): the operator
// is diagonalised by a real transform along x and (in 3-D) y (axis_transform.hpp), which leaves one
// tridiagonal system per mode along the last axis (z in 3-D, y in 2-D; mode_systems.hpp: a Kokkos Thomas kernel,
// or cuSPARSE's batched solver on a GPU). Where the last axis is periodic it is transformed too and the solve is
// a division.
// O(N log N) and exact to round-off: no iterations, no tolerance.
//
// The right-hand side and the solution stay on mesh/'s blocks (row order, x fastest); the solver moves them to
// x-pencils, y-pencils and last-axis pencils and back itself (pencil_reshape.hpp), on a process grid of its own
// (p1 x p2 = the ranks; 2-D: 1 x ranks), every pencil in the blocks' (z, y, x) order with the transforms striding
// along their axis; where a step leaves every value in place (one rank; the x- and y-pencils where p2 = 1; blocks
// that are already pencils) it moves nothing. With no face holding p = 0 the operator is singular (the constants):
// the solution returned has zero mean, as sparse::ConjugateGradient returns it (mode_systems.hpp says how).
// Its pencils and work arrays hold values only while it solves: solvers that solve one after another share them
// through one Workspace (workspace.hpp).
#include <memory>
#include <vector>

#include "mesh/decomposition.hpp"
#include "solvers/common/direct_poisson/axis_transform.hpp"
#include "solvers/common/direct_poisson/mode_systems.hpp"
#include "solvers/common/direct_poisson/pencil_reshape.hpp"
#include "solvers/common/direct_poisson/plane_transform.hpp"
#include "solvers/common/direct_poisson/workspace.hpp"
#include "solvers/common/sparse/poisson_operator.hpp"

namespace meridian::direct_poisson {

// The unknowns of a separable operator, the negated Laplacian (plus a shift) on a uniform grid per axis, by
// logical axis (z, y, x): the global count, kind and spacing of each, and every rank's block of them (x fastest
// within a block; in 2-D, z is one periodic index).
struct SeparableGrid {
  int dimensions = 3;
  std::array<long, 3> cells{1, 1, 1};
  std::array<AxisKind, 3> kinds{AxisKind::periodic, AxisKind::periodic, AxisKind::periodic};
  std::array<double, 3> spacing{1, 1, 1};
  std::vector<Box> blocks;  // one per rank of the communicator
};

// The kernels a solve runs: the build's by default (FFTW's real-to-real kinds and blocks of modes on the host;
// Makhoul's form and a thread per mode on a GPU), or a GPU's anywhere (the tests run a GPU's whole solve on the
// host), with cuSPARSE's tridiagonal solver where the build has it. Makhoul's form transforms y and x together
// (PlaneTransform) where a rank holds whole (y, x) planes, one rank or a process grid one rank wide in p2 (2 and
// 3 ranks), whose x- and y-pencils are the same slabs; `planes = false` transforms them one axis after the
// other there too (the benchmark's comparison).
struct Kernels {
  TridiagonalSolver tridiagonal = TridiagonalSolver::thomas;
  TransformMethod transforms = default_transform_method;
  bool one_column_per_thread = !parallel::device_memory_is_host;
  bool planes = true;
};
inline constexpr Kernels gpu_kernels{TridiagonalSolver::thomas, TransformMethod::makhoul, true, true};

// Every rank's block, from each rank's own (collective).
std::vector<Box> gather_blocks(MPI_Comm comm, const Box& mine);

class DirectPoisson {
 public:
  // sparse::PoissonOperator's operator on decomp's cells. Throws mesh::DecompositionError where the ranks
  // cannot form pencils of at least one cell a side on this grid.
  DirectPoisson(const mesh::Decomposition& decomp, const sparse::PoissonProblem& problem,
                mesh::MessagePath path = mesh::default_message_path(), Kernels kernels = {},
                Workspace workspace = {});
  // Any separable grid's (its pencils checked by the caller with check_layout); comm must outlive the solver.
  DirectPoisson(MPI_Comm comm, const SeparableGrid& grid, mesh::MessagePath path = mesh::default_message_path(),
                Kernels kernels = {}, Workspace workspace = {});
  // The constructor's check that every pencil of this grid has a cell on each of decomp's ranks (throws
  // mesh::DecompositionError, saying which axis is too short), without planning.
  static void check_layout(const mesh::Decomposition& decomp);
  static void check_layout(const std::array<long, 3>& cells, int ranks, int dimensions);
  // x = scale (A + shift)^-1 b over this rank's unknowns in row order; b is not changed. Collective. Allocates
  // nothing.
  void solve(const sparse::Vector& b, const sparse::Vector& x, double shift = 0, double scale = 1);
  bool singular() const { return singular_; }

 private:
  struct Stage {
    BlockLayout layout;
    Kokkos::View<double*> values;
    AxisTransform transform;  // along the stage's whole axis; none (length 0) for the solve stage
    PlaneTransform plane;     // along y and x at once, in the x stage, where the y stage then has none
    bool transforms() const { return transform.length() > 0 || !plane.empty(); }
    void forward(const Kokkos::View<double*>& in, const Kokkos::View<double*>& out) const;
    void backward(const Kokkos::View<double*>& in, const Kokkos::View<double*>& out) const;
    double normalisation() const { return plane.empty() ? transform.normalisation() : plane.normalisation(); }
  };
  static SeparableGrid poisson_grid(const mesh::Decomposition& decomp, const sparse::PoissonProblem& problem);
  void solve_last_axis(double shift, double scale);

  bool singular_, last_axis_transformed_;
  // Transform stages in order (x, then y in 3-D, then the last axis where it is periodic); the last stage
  // holds the values the modes are solved on.
  std::vector<Stage> stages_;
  std::vector<PencilReshape> forward_, backward_;  // forward_[s]: into stage s; backward_[s]: out of it
  double scale_ = 1;  // 1 / the transforms' normalisations: backward(forward(x)) = x / scale_
  Kokkos::View<double*> mode_eigenvalues_;
  std::unique_ptr<ModeSystems> mode_systems_;  // where the last axis is not transformed
};

}  // namespace meridian::direct_poisson
