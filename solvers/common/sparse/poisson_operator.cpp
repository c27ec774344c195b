#include "solvers/common/sparse/poisson_operator.hpp"

#include <climits>
#include <stdexcept>
#include <string>

#include "parallel/launch_policy.hpp"

namespace meridian::sparse {

bool is_singular(const mesh::Decomposition& d, const PoissonProblem& p) {
  for (int axis = 0; axis < d.dimensions(); ++axis)
    if (!d.periodic(axis) && (p.lower[axis] == FaceCondition::zero_value || p.upper[axis] == FaceCondition::zero_value))
      return false;
  return true;
}

// Rows of the owned cells in order; columns are flat offsets into a one-component field with halos, or cells
// where this rank holds the whole grid.
PoissonOperator::Assembled PoissonOperator::assemble(const mesh::Decomposition& d, const PoissonProblem& problem) {
  if (d.halo(0) < 1) throw std::logic_error("PoissonOperator: the decomposition needs a halo");
  check_size(d);
  const long hx = d.halo(0), hy = d.halo(1), hz = d.halo(2);
  const long nx = d.local_cells(0), ny = d.local_cells(1), nz = d.local_cells(2);
  const long row_stride = nx + 2 * hx, plane_stride = row_stride * (ny + 2 * hy);
  const long strides[3] = {1, row_stride, plane_stride};
  Assembled a;
  CsrHost& csr = a.matrix;
  csr.column_count = static_cast<int>(plane_stride * (nz + 2 * hz));
  for (long k = 0; k < nz; ++k)
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) {
        const long local[3] = {i, j, k};
        const long self = (k + hz) * plane_stride + (j + hy) * row_stride + (i + hx);
        double centre = 0;
        long lower[3] = {-1, -1, -1}, upper[3] = {-1, -1, -1};
        double weight[3] = {0, 0, 0};
        for (int axis = 0; axis < d.dimensions(); ++axis) {
          const double w = 1 / (problem.spacing[axis] * problem.spacing[axis]);
          weight[axis] = w;
          const bool wall_below = !d.periodic(axis) && d.at_lower_boundary(axis) && local[axis] == 0;
          const bool wall_above = !d.periodic(axis) && d.at_upper_boundary(axis) && local[axis] == d.local_cells(axis) - 1;
          const auto face = [&](bool wall, FaceCondition condition, long& neighbour, long offset) {
            if (!wall) {
              neighbour = self + offset;
              centre += w;
            } else if (condition == FaceCondition::zero_value) {
              centre += 2 * w;
            }
          };
          face(wall_below, problem.lower[axis], lower[axis], -strides[axis]);
          face(wall_above, problem.upper[axis], upper[axis], strides[axis]);
        }
        // Ascending columns: -z, -y, -x, the cell, +x, +y, +z.
        const auto add = [&](long column, double value) {
          csr.columns.push_back(static_cast<int>(column));
          csr.values.push_back(value);
        };
        for (int axis = 2; axis >= 0; --axis)
          if (lower[axis] >= 0) add(lower[axis], -weight[axis]);
        add(self, centre);
        for (int axis = 0; axis < 3; ++axis)
          if (upper[axis] >= 0) add(upper[axis], -weight[axis]);
        csr.row_offsets.push_back(static_cast<int>(csr.values.size()));
        a.diagonal.push_back(centre);
        a.own.push_back(static_cast<int>(self));
      }
  if (d.size() == 1) number_columns_by_cell(d, a);
  return a;
}

// A rank holding the whole grid needs no halo: its halo columns (a periodic axis' images; walls reference none)
// become the cells they image, and each row's own cell is its row.
void PoissonOperator::number_columns_by_cell(const mesh::Decomposition& d, Assembled& a) {
  const long n[3] = {d.local_cells(0), d.local_cells(1), d.local_cells(2)};
  const long halo[3] = {d.halo(0), d.halo(1), d.halo(2)};
  const long row_stride = n[0] + 2 * halo[0], plane_stride = row_stride * (n[1] + 2 * halo[1]);
  for (int& column : a.matrix.columns) {
    long index[3] = {column % row_stride - halo[0], column / row_stride % (n[1] + 2 * halo[1]) - halo[1],
                     column / plane_stride - halo[2]};
    for (int axis = 0; axis < 3; ++axis) index[axis] = (index[axis] + n[axis]) % n[axis];
    column = static_cast<int>((index[2] * n[1] + index[1]) * n[0] + index[0]);
  }
  a.matrix.column_count = a.matrix.rows();
  for (int r = 0; r < a.matrix.rows(); ++r) a.own[r] = r;
}

CsrHost PoissonOperator::whole_grid_matrix(const mesh::Decomposition& d, const PoissonProblem& problem) {
  if (d.size() != 1) throw std::logic_error("PoissonOperator::whole_grid_matrix: the grid must be on one rank");
  return assemble(d, problem).matrix;
}

void PoissonOperator::check_size(const mesh::Decomposition& d) {
  long largest = d.local_cell_count();
  MPI_Allreduce(MPI_IN_PLACE, &largest, 1, MPI_LONG, MPI_MAX, d.comm());
  const long entries = 2L * d.dimensions() + 1, most = INT_MAX / entries;
  if (largest > most)
    throw mesh::DecompositionError("the pressure operator's 32-bit indices hold at most " + std::to_string(most) +
                                       " cells a rank in " + std::to_string(d.dimensions()) + "-D (" +
                                       std::to_string(entries) + " entries a row), and a rank's block here has " +
                                       std::to_string(largest) + ": run on more ranks",
                                   "nx");
}

PoissonOperator::PoissonOperator(const mesh::Decomposition& decomp, const PoissonProblem& problem)
    : PoissonOperator(decomp, problem, assemble(decomp, problem)) {}

PoissonOperator::PoissonOperator(const mesh::Decomposition& decomp, const PoissonProblem& problem, const Assembled& a)
    : decomp_(decomp), singular_(is_singular(decomp, problem)), whole_(decomp.size() == 1), matrix_(a.matrix),
      diagonal_(to_device(a.diagonal, "sparse::diagonal")), own_(to_device(a.own, "sparse::own")),
      field_(whole_ ? mesh::Field() : mesh::make_field(decomp, 1, "sparse::halo_vector")),
      operand_(whole_ ? Vector("sparse::operand", a.matrix.rows()) : Vector(field_.data(), field_.size())),
      exchange_(decomp, 1) {}

void PoissonOperator::load(const Vector& x) {
  const Vector operand = operand_;
  const Kokkos::View<const int*> own = own_;
  Kokkos::parallel_for(
      "sparse::load_operand", parallel::FlatPolicy(0, rows()), KOKKOS_LAMBDA(const int r) { operand(own(r)) = x(r); });
  exchange_operand();
}

void PoissonOperator::exchange_operand() {
  if (!whole_) exchange_.exchange(field_);
}

void PoissonOperator::apply(const Vector& x, const Vector& y) {
  if (whole_) {
    matrix_.multiply(x, y);
    return;
  }
  load(x);
  matrix_.multiply(operand_, y);
}

}  // namespace meridian::sparse
