#include "solvers/common/direct_poisson/direct_poisson.hpp"

#include <mpi.h>

#include <climits>

#include <string>
#include <utility>

#include "mesh/timers.hpp"
#include "parallel/device_memory.hpp"
#include "parallel/fence.hpp"
#include "parallel/launch_policy.hpp"

namespace meridian::direct_poisson {

using mesh::block_offset;
using mesh::block_size;

namespace {

// Logical axes (z, y, x) = (0, 1, 2) against mesh/'s axes (x, y, z) = (0, 1, 2).
int mesh_axis(int logical) { return 2 - logical; }

struct ProcessGrid {
  int p1 = 1, p2 = 1;
};

ProcessGrid process_grid(int ranks, int dimensions) {
  if (dimensions == 2) return {1, ranks};
  int dims[2] = {0, 0};
  MPI_Dims_create(ranks, 2, dims);
  return {dims[0], dims[1]};
}

// Rank r's block of a pencil whole along `whole`, its other two logical axes split over p1 (the slower) and p2.
Box pencil_box(const std::array<long, 3>& cells, int whole, ProcessGrid grid, int r) {
  Box box;
  const int parts[2] = {grid.p1, grid.p2}, index[2] = {r / grid.p2, r % grid.p2};
  int split = 0;
  for (int axis = 0; axis < 3; ++axis) {
    if (axis == whole) {
      box.offset[axis] = 0, box.count[axis] = cells[axis];
      continue;
    }
    box.offset[axis] = block_offset(cells[axis], parts[split], index[split]);
    box.count[axis] = block_size(cells[axis], parts[split], index[split]);
    ++split;
  }
  return box;
}

// This rank's mesh block, logical (z, y, x).
Box mesh_block(const mesh::Decomposition& decomp) {
  Box mine;
  for (int axis = 0; axis < 3; ++axis)
    mine.offset[axis] = decomp.offset(mesh_axis(axis)), mine.count[axis] = decomp.local_cells(mesh_axis(axis));
  return mine;
}

// Every value transformed along all three axes: times `scale`, divided by its eigenvalue plus `shift`; the zero
// mode of the singular operator (the mean: the solution's is zero) becomes 0.
void divide(const Kokkos::View<double*>& values, const Kokkos::View<double*>& eigenvalues, double shift, double scale) {
  Kokkos::parallel_for("direct_poisson::divide", parallel::FlatPolicy(0, static_cast<long>(values.extent(0))),
                       KOKKOS_LAMBDA(const long n) {
                         const double lambda = eigenvalues(n) + shift;
                         values(n) = lambda > 0 ? scale * values(n) / lambda : 0.0;
                       });
}

}  // namespace

std::vector<Box> gather_blocks(MPI_Comm comm, const Box& mine) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  std::array<long, 6> sent{};
  for (int axis = 0; axis < 3; ++axis) sent[axis] = mine.offset[axis], sent[3 + axis] = mine.count[axis];
  std::vector<long> all(6 * static_cast<std::size_t>(ranks));
  MPI_Allgather(sent.data(), 6, MPI_LONG, all.data(), 6, MPI_LONG, comm);
  std::vector<Box> blocks(static_cast<std::size_t>(ranks));
  for (std::size_t r = 0; r < blocks.size(); ++r)
    for (int axis = 0; axis < 3; ++axis) blocks[r].offset[axis] = all[6 * r + axis], blocks[r].count[axis] = all[6 * r + 3 + axis];
  return blocks;
}

DirectPoisson::DirectPoisson(const mesh::Decomposition& decomp, const sparse::PoissonProblem& problem,
                             mesh::MessagePath path, Kernels kernels, Workspace workspace)
    : DirectPoisson(decomp.comm(), poisson_grid(decomp, problem), path, kernels, std::move(workspace)) {}

SeparableGrid DirectPoisson::poisson_grid(const mesh::Decomposition& decomp, const sparse::PoissonProblem& problem) {
  check_layout(decomp);
  SeparableGrid grid;
  grid.dimensions = decomp.dimensions();
  for (int logical = 0; logical < 3; ++logical) {
    const int a = mesh_axis(logical);
    grid.cells[logical] = decomp.global_cells(a);
    grid.kinds[logical] = axis_kind(decomp.periodic(a), problem.lower[a], problem.upper[a]);
    grid.spacing[logical] = problem.spacing[a];
  }
  grid.blocks = gather_blocks(decomp.comm(), mesh_block(decomp));
  return grid;
}

DirectPoisson::DirectPoisson(MPI_Comm comm, const SeparableGrid& grid, mesh::MessagePath path,
                             Kernels kernels, Workspace workspace) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const int dimensions = grid.dimensions;
  const auto& cells = grid.cells;
  // Singular where every axis is periodic or zero-gradient at both ends (the constants solve A p = 0).
  singular_ = true;
  for (int axis = 3 - dimensions; axis < 3; ++axis)
    if (grid.kinds[axis] != AxisKind::periodic && grid.kinds[axis] != AxisKind::neumann_neumann) singular_ = false;
  const int last = dimensions == 3 ? 0 : 1;  // the logical axis the modes are solved along
  last_axis_transformed_ = grid.kinds[last] == AxisKind::periodic;
  const ProcessGrid processes = process_grid(ranks, dimensions);
  // x, then y in 3-D, then the last axis: each stage whole along its axis.
  std::vector<int> wholes{2};
  if (dimensions == 3) wholes.push_back(1);
  wholes.push_back(last);
  // Makhoul's form along y and x at once where the x- and y-pencils are the same slabs.
  const bool plane = dimensions == 3 && kernels.transforms == TransformMethod::makhoul && kernels.planes && processes.p2 == 1 &&
                     fft_length(grid.kinds[1], static_cast<int>(cells[1])) > 1 &&
                     fft_length(grid.kinds[2], static_cast<int>(cells[2])) > 1;
  std::vector<BlockLayout> before(grid.blocks.size());
  for (std::size_t r = 0; r < before.size(); ++r) before[r].box = grid.blocks[r];
  for (std::size_t s = 0; s < wholes.size(); ++s) {
    const int whole = wholes[s];
    const bool transformed = whole != last || last_axis_transformed_;
    // Every pencil in (z, y, x) order, as the mesh's blocks: a transform strides along its axis where the values
    // lie, so a stage whose box is its predecessor's moves nothing (one rank: none does; transposing to make the
    // axis contiguous cost more than the strided transform saves).
    std::vector<BlockLayout> after(before.size());
    for (int r = 0; r < ranks; ++r) after[r].box = pencil_box(cells, whole, processes, r);
    forward_.emplace_back(comm, before, after, path, workspace);
    backward_.emplace_back(comm, after, before, path, workspace);
    // A stage whose values sit where its predecessor's do works in its predecessor's array (the first stage
    // never: the right-hand side is read only).
    const bool in_place = s > 0 && forward_.back().identity();
    Stage stage{after[rank],
                in_place ? stages_.back().values
                         : workspace.array(Workspace::Use::pencil, static_cast<int>(s),
                                           static_cast<std::size_t>(after[rank].box.size())),
                {}, {}};
    const Box& box = stage.layout.box;
    long inner = 1;  // the values between two of a row's: the counts of the axes after the whole one
    for (int axis = whole + 1; axis < 3; ++axis) inner *= box.count[axis];
    if (plane && whole == 2)
      stage.plane = PlaneTransform({grid.kinds[1], grid.kinds[2]}, {static_cast<int>(cells[1]), static_cast<int>(cells[2])},
                                   box.count[0], workspace);
    else if (transformed && !(plane && whole == 1))
      stage.transform = AxisTransform(grid.kinds[whole], static_cast<int>(cells[whole]), box.size() / box.count[whole],
                                      kernels.transforms, inner, workspace);
    stages_.push_back(std::move(stage));
    before = std::move(after);
  }
  // Per mode of the last stage (per value where the last axis is transformed too): the sum of the
  // transformed axes' eigenvalues at its global indices.
  const Stage& solved = stages_.back();
  const Box& box = solved.layout.box;
  const Kokkos::Array<long, 3> stride = logical_strides(solved.layout);
  std::array<std::vector<double>, 3> lambda;
  for (int axis = 3 - dimensions; axis < 3; ++axis)
    if (axis != last || last_axis_transformed_)
      lambda[axis] = axis_eigenvalues(grid.kinds[axis], static_cast<int>(cells[axis]), grid.spacing[axis]);
  const long values = last_axis_transformed_ ? box.size() : box.size() / box.count[last];
  std::vector<double> eigenvalue(static_cast<std::size_t>(values), 0.0);
  for (long k = 0; k < box.count[0]; ++k)
    for (long j = 0; j < box.count[1]; ++j)
      for (long i = 0; i < box.count[2]; ++i) {
        const long index[3] = {k, j, i};
        double sum = 0;
        long at = 0;
        for (int axis = 0; axis < 3; ++axis) {
          if (!lambda[axis].empty()) sum += lambda[axis][box.offset[axis] + index[axis]];
          if (last_axis_transformed_ || axis != last) at += index[axis] * stride[axis];
        }
        eigenvalue[at] = sum;
      }
  for (const Stage& stage : stages_)
    if (stage.transforms()) scale_ /= stage.normalisation();
  long pinned = -1;
  if (singular_ && !last_axis_transformed_)
    for (long m = 0; m < values; ++m)
      if (eigenvalue[m] == 0) pinned = m;
  mode_eigenvalues_ = parallel::device_copy("direct_poisson::mode_eigenvalues", eigenvalue);
  if (!last_axis_transformed_)
    mode_systems_ = std::make_unique<ModeSystems>(box.count[last], values, grid.spacing[last], grid.kinds[last],
                                                  mode_eigenvalues_, pinned, kernels.tridiagonal,
                                                  kernels.one_column_per_thread, workspace);
}

void DirectPoisson::check_layout(const mesh::Decomposition& decomp) {
  std::array<long, 3> cells{};
  for (int logical = 0; logical < 3; ++logical) cells[logical] = decomp.global_cells(mesh_axis(logical));
  check_layout(cells, decomp.size(), decomp.dimensions());
}

void DirectPoisson::check_layout(const std::array<long, 3>& cells, int ranks, int dimensions) {
  const ProcessGrid grid = process_grid(ranks, dimensions);
  const char* names[3] = {"nz", "ny", "nx"};
  // Each pencil splits its two other axes, the slower over p1 and the faster over p2.
  for (int whole = 0; whole < 3; ++whole) {
    int split = 0;
    for (int axis = 0; axis < 3; ++axis) {
      if (axis == whole) continue;
      const int parts = split++ == 0 ? grid.p1 : grid.p2;
      if (cells[axis] < parts)
        throw mesh::DecompositionError("the direct solver splits " + std::string(names[axis]) + " = " +
                                           std::to_string(cells[axis]) + " over " + std::to_string(parts) +
                                           " ranks of its pencils; use fewer ranks or projection.pressure_solver = \"krylov\"",
                                       names[axis]);
    }
    // FFTW, cuFFT, cuSPARSE and MPI count a pencil's values in ints: its rows, each as long as its longest
    // transform holds it (the length plus 2, Makhoul's DST-I on a GPU), must fit.
    if (whole < 3 - dimensions) continue;  // 2-D: z is one index, never transformed
    const Box largest = pencil_box(cells, whole, grid, 0);
    const long values = largest.size() / cells[whole] * (cells[whole] + 2);
    if (values > INT_MAX)
      throw mesh::DecompositionError("the direct solver's libraries count a rank's pencil values in 32-bit integers, at most " +
                                         std::to_string(INT_MAX) + ", and a pencil along " + names[whole] + " here holds " +
                                         std::to_string(values) + ": run on more ranks",
                                     names[whole]);
  }
}

void DirectPoisson::solve_last_axis(double shift, double scale) {
  const Stage& solved = stages_.back();
  if (last_axis_transformed_) {
    divide(solved.values, mode_eigenvalues_, shift, scale * scale_);
    return;
  }
  mode_systems_->solve(solved.values, shift, scale * scale_);
}

void DirectPoisson::Stage::forward(const Kokkos::View<double*>& in, const Kokkos::View<double*>& out) const {
  if (plane.empty())
    transform.forward(in, out);
  else
    plane.forward(in, out);
}

void DirectPoisson::Stage::backward(const Kokkos::View<double*>& in, const Kokkos::View<double*>& out) const {
  if (plane.empty())
    transform.backward(in, out);
  else
    plane.backward(in, out);
}

void DirectPoisson::solve(const sparse::Vector& b, const sparse::Vector& x, double shift, double scale) {
  timing::ScopedTimer timer("direct poisson");
  for (std::size_t s = 0; s < stages_.size(); ++s) {
    const Kokkos::View<double*>& before = s > 0 ? stages_[s - 1].values : b;
    Stage& stage = stages_[s];
    if (!forward_[s].identity()) forward_[s](before, stage.values);
    if (stage.transforms()) stage.forward(forward_[s].identity() ? before : stage.values, stage.values);
  }
  solve_last_axis(shift, scale);
  for (std::size_t s = stages_.size(); s-- > 0;) {
    const Kokkos::View<double*>& before = s > 0 ? stages_[s - 1].values : x;
    Stage& stage = stages_[s];
    const bool moves = !backward_[s].identity();
    if (stage.transforms()) stage.backward(stage.values, moves ? stage.values : before);
    if (moves) backward_[s](stage.values, before);
  }
}

}  // namespace meridian::direct_poisson
