#include "solvers/common/sparse/multigrid.hpp"

#include <sstream>

#include "parallel/copies.hpp"
#include "parallel/launch_policy.hpp"
#include "solvers/common/sparse/banded_cholesky.hpp"

namespace meridian::sparse {

struct Multigrid::Level {
  std::unique_ptr<mesh::Decomposition> decomp;  // none on the finest level, which the caller owns
  std::unique_ptr<PoissonOperator> owned;
  PoissonOperator* op;
  Kokkos::Array<long, 3> cells;  // this rank's extents
  Vector relaxation;          // weight / D per row
  Vector b, x, residual;      // b and x unused on the finest level (the caller's vectors serve)
};

using HostValues = Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
using ConstHostValues = Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

// The coarsest grid factorised whole on every rank, with where each rank's block of it lies.
struct Multigrid::Gathered {
  std::unique_ptr<BandedCholesky> factor;
  bool singular = false;  // the constants are the null space: cell 0 is pinned and means are removed
  MPI_Comm comm;
  std::vector<long> cell_of;  // per gathered value, in rank order: its row in the whole coarsest grid
  std::vector<int> counts, displacements;
  std::vector<double> mine, gathered, whole;
  int own_first = 0;  // where this rank's values start in `gathered`
};

namespace {

// How many times the grid halves: while every rank's extents are even and at least 2 and every global
// extent at least 4 (collective: all ranks or none coarsen). The one rule the levels are built by.
int coarsenings(const mesh::Decomposition& d) {
  long local[3] = {d.local_cells(0), d.local_cells(1), d.local_cells(2)};
  long global[3] = {d.global_cells(0), d.global_cells(1), d.global_cells(2)};
  for (int levels = 0;; ++levels) {
    int here = 1;
    for (int axis = 0; axis < d.dimensions(); ++axis)
      if (local[axis] % 2 != 0 || local[axis] < 2 || global[axis] < 4) here = 0;
    int everywhere = 0;
    MPI_Allreduce(&here, &everywhere, 1, MPI_INT, MPI_MIN, d.comm());
    if (everywhere == 0) return levels;
    for (int axis = 0; axis < d.dimensions(); ++axis) local[axis] /= 2, global[axis] /= 2;
  }
}

void refuse_unless_coarse_enough(const mesh::Decomposition& d, int levels) {
  long coarsest = 1;
  long extent[3];
  for (int axis = 0; axis < 3; ++axis) {
    extent[axis] = axis < d.dimensions() ? d.global_cells(axis) >> levels : d.global_cells(axis);
    coarsest *= extent[axis];
  }
  if (coarsest <= Multigrid::max_coarsest_cells) return;
  std::ostringstream message;
  message << "multigrid: the grid " << d.global_cells(0) << " x " << d.global_cells(1) << " x " << d.global_cells(2)
          << " coarsens only to " << extent[0] << " x " << extent[1] << " x " << extent[2] << " (" << coarsest
          << " cells, more than " << Multigrid::max_coarsest_cells
          << "): give each rank extents with more factors of 2, or use the Jacobi preconditioner";
  throw mesh::DecompositionError(message.str(), "nx");
}

// The same process grid, so that each rank's coarse cells are the parents of its fine ones.
mesh::GridSpec coarser(const mesh::Decomposition& d) {
  mesh::GridSpec spec = d.spec();
  for (int axis = 0; axis < d.dimensions(); ++axis) spec.cells[axis] /= 2;
  spec.process_grid = {d.process_grid(0), d.process_grid(1), d.process_grid(2)};
  spec.halo_width = 1;
  return spec;
}

// Damped Jacobi, optimal for smoothing the 5- and 7-point Laplacians.
double jacobi_weight(int dimensions) { return dimensions == 3 ? 6.0 / 7.0 : 0.8; }

// The sweeps and the residual fuse the product A x into the kernel that uses it: each reads x from the operator's
// operand (PoissonOperator::load), where the product would read it, so each is one kernel and the product's
// library call is not made. Free functions: nvcc refuses device lambdas inside private member functions.

// The damped Jacobi sweep's factor per row, weight / D, tabled once a level: the sweeps multiply by it.
Vector relaxation_of(const PoissonOperator& op, double weight) {
  const Vector diagonal = op.diagonal(), relaxation("mg::relaxation", op.rows());
  Kokkos::parallel_for(
      "mg::relaxation", parallel::FlatPolicy(0, op.rows()), KOKKOS_LAMBDA(const int i) { relaxation(i) = weight / diagonal(i); });
  return relaxation;
}

// The first sweep from x = 0, where A x vanishes: x = weight b / D, one kernel, written to the operand as well (then
// exchanged), so the next sweep needs no load.
void smooth_from_zero(PoissonOperator& op, const Vector& relaxation, const Vector& b, const Vector& x) {
  const Vector operand = op.operand();
  const Kokkos::View<const int*> own = op.own();
  Kokkos::parallel_for(
      "mg::jacobi_from_zero", parallel::FlatPolicy(0, op.rows()), KOKKOS_LAMBDA(const int i) {
        const double value = relaxation(i) * b(i);
        x(i) = value;
        operand(own(i)) = value;
      });
  op.exchange_operand();
}

// x += weight (b - A x) / D, with x loaded in the operand (which keeps the old values while x takes the new).
void smooth(PoissonOperator& op, const Vector& relaxation, const Vector& b, const Vector& x) {
  const SparseMatrix::Rows a = op.rows_view();
  const Kokkos::View<const double*> operand = op.operand();
  Kokkos::parallel_for(
      "mg::jacobi", parallel::FlatPolicy(0, op.rows()),
      KOKKOS_LAMBDA(const int i) { x(i) += relaxation(i) * (b(i) - a.product(i, operand)); });
}

using Extents = Kokkos::Array<long, 3>;  // a rank's cells per axis (device code cannot index std::array)

// r = b - A x, with x loaded in the operand.
void residual(PoissonOperator& op, const Vector& b, const Vector& r) {
  const SparseMatrix::Rows a = op.rows_view();
  const Kokkos::View<const double*> operand = op.operand();
  Kokkos::parallel_for(
      "mg::residual", parallel::FlatPolicy(0, op.rows()), KOKKOS_LAMBDA(const int i) { r(i) = b(i) - a.product(i, operand); });
}

// Coarse cell (i, j, k) averages fine cells (2i + a, 2j + b, 2k + c); `three_d` says whether z halves. Apart from
// the residual: with its products inside, the average took twice a product's time on a CPU.
void restrict_to(const Vector& fine, Extents f, const Vector& coarse, Extents c, bool three_d) {
  const int depth = three_d ? 2 : 1;
  const double share = three_d ? 0.125 : 0.25;
  parallel::for_each(
      "mg::restrict", parallel::Cells{{0, 0, 0}, {c[2], c[1], c[0]}}, KOKKOS_LAMBDA(const long k, const long j, const long i) {
        double sum = 0;
        for (int dk = 0; dk < depth; ++dk)
          for (int dj = 0; dj < 2; ++dj)
            for (int di = 0; di < 2; ++di) sum += fine(((depth * k + dk) * f[1] + 2 * j + dj) * f[0] + 2 * i + di);
        coarse((k * c[1] + j) * c[0] + i) = share * sum;
      });
}

// Fine cells add their parent's value, in x and in the operand (then exchanged) for the sweep that follows.
void prolong_add(const Vector& coarse, Extents c, PoissonOperator& op, const Vector& fine, Extents f, bool three_d) {
  const int depth = three_d ? 2 : 1;
  const Vector operand = op.operand();
  const Kokkos::View<const int*> own = op.own();
  parallel::for_each(
      "mg::prolong", parallel::Cells{{0, 0, 0}, {f[2], f[1], f[0]}}, KOKKOS_LAMBDA(const long k, const long j, const long i) {
        const long row = (k * f[1] + j) * f[0] + i;
        const double value = fine(row) + coarse(((k / depth) * c[1] + j / 2) * c[0] + i / 2);
        fine(row) = value;
        operand(own(row)) = value;
      });
  op.exchange_operand();
}

Extents local_extents(const mesh::Decomposition& d) { return {d.local_cells(0), d.local_cells(1), d.local_cells(2)}; }

// A singular operator made definite by holding cell 0 at zero: its row and column become the identity's. The
// other equations are those of the constants' complement, so with b of zero mean the solution, less its mean,
// is the minimum-norm one.
void pin_first_cell(CsrHost& a) {
  for (int r = 0; r < a.rows(); ++r)
    for (int n = a.row_offsets[r]; n < a.row_offsets[r + 1]; ++n)
      if (r == 0 || a.columns[n] == 0) a.values[n] = r == a.columns[n] ? 1.0 : 0.0;
}

void remove_mean(std::vector<double>& v) {
  double sum = 0;
  for (const double value : v) sum += value;
  const double mean = sum / static_cast<double>(v.size());
  for (double& value : v) value -= mean;
}

}  // namespace

std::unique_ptr<Multigrid::Gathered> Multigrid::gather_plan(const mesh::Decomposition& d, const PoissonProblem& problem,
                                                           bool singular) {
  auto g = std::make_unique<Gathered>();
  mesh::GridSpec whole = d.spec();
  whole.process_grid = {1, 1, 1};
  const mesh::Decomposition one_rank(MPI_COMM_SELF, whole);
  CsrHost matrix = PoissonOperator::whole_grid_matrix(one_rank, problem);
  g->singular = singular;
  if (g->singular) pin_first_cell(matrix);
  g->factor = std::make_unique<BandedCholesky>(matrix);
  g->comm = d.comm();
  const long box[6] = {d.offset(0), d.offset(1), d.offset(2), d.local_cells(0), d.local_cells(1), d.local_cells(2)};
  std::vector<long> boxes(6 * static_cast<std::size_t>(d.size()));
  MPI_Allgather(box, 6, MPI_LONG, boxes.data(), 6, MPI_LONG, g->comm);
  const long nx = d.global_cells(0), ny = d.global_cells(1);
  for (int r = 0; r < d.size(); ++r) {
    const long* b = &boxes[6 * static_cast<std::size_t>(r)];
    g->displacements.push_back(static_cast<int>(g->cell_of.size()));
    for (long k = 0; k < b[5]; ++k)
      for (long j = 0; j < b[4]; ++j)
        for (long i = 0; i < b[3]; ++i) g->cell_of.push_back(((b[2] + k) * ny + b[1] + j) * nx + b[0] + i);
    g->counts.push_back(static_cast<int>(b[3] * b[4] * b[5]));
  }
  g->mine.resize(static_cast<std::size_t>(d.local_cell_count()));
  g->gathered.resize(g->cell_of.size());
  g->whole.resize(g->cell_of.size());
  g->own_first = g->displacements[static_cast<std::size_t>(d.rank())];
  return g;
}

// Each rank gathers the whole right-hand side, solves it with the factor made once, and keeps its own block: the
// same solve, with the same bits, on every rank; the coarse values cross to the host once each way.
void Multigrid::solve_coarsest(const Vector& b, const Vector& x) {
  Gathered& g = *coarsest_;
  parallel::copy<parallel::Copy::device_to_host>(HostValues(g.mine.data(), g.mine.size()), b);
  MPI_Allgatherv(g.mine.data(), static_cast<int>(g.mine.size()), MPI_DOUBLE, g.gathered.data(), g.counts.data(),
                 g.displacements.data(), MPI_DOUBLE, g.comm);
  for (std::size_t n = 0; n < g.cell_of.size(); ++n) g.whole[static_cast<std::size_t>(g.cell_of[n])] = g.gathered[n];
  if (g.singular) {
    remove_mean(g.whole);
    g.whole[0] = 0;
  }
  g.factor->solve(g.whole);
  if (g.singular) remove_mean(g.whole);
  for (std::size_t n = 0; n < g.mine.size(); ++n)
    g.mine[n] = g.whole[static_cast<std::size_t>(g.cell_of[static_cast<std::size_t>(g.own_first) + n])];
  parallel::copy<parallel::Copy::host_to_device>(x, ConstHostValues(g.mine.data(), g.mine.size()));
}

Multigrid::Multigrid(PoissonOperator& finest, const mesh::Decomposition& decomp, const PoissonProblem& problem)
    : three_d_(decomp.dimensions() == 3) {
  auto top = std::make_unique<Level>();
  top->op = &finest;
  top->cells = local_extents(decomp);
  top->relaxation = relaxation_of(finest, jacobi_weight(decomp.dimensions()));
  top->residual = Vector("mg::residual", finest.rows());
  levels_.push_back(std::move(top));
  const int coarser_levels = coarsenings(decomp);
  refuse_unless_coarse_enough(decomp, coarser_levels);
  const mesh::Decomposition* current = &decomp;
  PoissonProblem level_problem = problem;
  for (int l = 0; l < coarser_levels; ++l) {
    auto level = std::make_unique<Level>();
    level->decomp = std::make_unique<mesh::Decomposition>(current->comm(), coarser(*current));
    for (int axis = 0; axis < current->dimensions(); ++axis) level_problem.spacing[axis] *= 2;
    level->owned = std::make_unique<PoissonOperator>(*level->decomp, level_problem);
    level->op = level->owned.get();
    level->cells = local_extents(*level->decomp);
    const int rows = level->op->rows();
    level->relaxation = relaxation_of(*level->op, jacobi_weight(decomp.dimensions()));
    level->b = Vector("mg::b", rows), level->x = Vector("mg::x", rows), level->residual = Vector("mg::residual", rows);
    current = level->decomp.get();
    levels_.push_back(std::move(level));
  }
  coarsest_ = gather_plan(*current, level_problem, levels_.back()->op->singular());
}

Multigrid::~Multigrid() = default;

void Multigrid::check(const mesh::Decomposition& decomp) { refuse_unless_coarse_enough(decomp, coarsenings(decomp)); }

void Multigrid::apply(const Vector& r, const Vector& z) { cycle(0, r, z); }

void Multigrid::cycle(std::size_t l, const Vector& b, const Vector& x) {
  Level& level = *levels_[l];
  PoissonOperator& op = *level.op;
  if (l + 1 == levels_.size()) {
    solve_coarsest(b, x);
    return;
  }
  const bool three_d = three_d_;
  smooth_from_zero(op, level.relaxation, b, x);
  for (int s = 1; s < sweeps; ++s) {
    if (s > 1) op.load(x);
    smooth(op, level.relaxation, b, x);
  }
  op.load(x);
  residual(op, b, level.residual);
  Level& next = *levels_[l + 1];
  restrict_to(level.residual, level.cells, next.b, next.cells, three_d);
  cycle(l + 1, next.b, next.x);
  prolong_add(next.x, next.cells, op, x, level.cells, three_d);
  for (int s = 0; s < sweeps; ++s) {
    if (s > 0) op.load(x);
    smooth(op, level.relaxation, b, x);
  }
}

}  // namespace meridian::sparse
