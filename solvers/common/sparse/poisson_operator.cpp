#include "solvers/common/sparse/poisson_operator.hpp"

#include <stdexcept>

#include "parallel/launch_policy.hpp"

namespace meridian::sparse {

namespace {

bool any_zero_value_face(const mesh::Decomposition& d, const PoissonProblem& p) {
  for (int axis = 0; axis < d.dimensions(); ++axis)
    if (!d.periodic(axis) && (p.lower[axis] == FaceCondition::zero_value || p.upper[axis] == FaceCondition::zero_value))
      return true;
  return false;
}

}  // namespace

// Rows of the owned cells in order; columns are flat offsets into a one-component field with halos.
PoissonOperator::Assembled PoissonOperator::assemble(const mesh::Decomposition& d, const PoissonProblem& problem) {
  if (d.halo(0) < 1) throw std::logic_error("PoissonOperator: the decomposition needs a halo");
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
      }
  return a;
}

CsrHost PoissonOperator::whole_grid_matrix(const mesh::Decomposition& d, const PoissonProblem& problem) {
  if (d.size() != 1) throw std::logic_error("PoissonOperator::whole_grid_matrix: the grid must be on one rank");
  CsrHost csr = assemble(d, problem).matrix;
  const long n[3] = {d.local_cells(0), d.local_cells(1), d.local_cells(2)};
  const long halo[3] = {d.halo(0), d.halo(1), d.halo(2)};
  const long row_stride = n[0] + 2 * halo[0], plane_stride = row_stride * (n[1] + 2 * halo[1]);
  for (int& column : csr.columns) {
    long index[3] = {column % row_stride - halo[0], column / row_stride % (n[1] + 2 * halo[1]) - halo[1],
                     column / plane_stride - halo[2]};
    for (int axis = 0; axis < 3; ++axis) index[axis] = (index[axis] + n[axis]) % n[axis];
    column = static_cast<int>((index[2] * n[1] + index[1]) * n[0] + index[0]);
  }
  csr.column_count = csr.rows();
  return csr;
}

PoissonOperator::PoissonOperator(const mesh::Decomposition& decomp, const PoissonProblem& problem)
    : PoissonOperator(decomp, problem, assemble(decomp, problem)) {}

PoissonOperator::PoissonOperator(const mesh::Decomposition& decomp, const PoissonProblem& problem, const Assembled& a)
    : decomp_(decomp), singular_(!any_zero_value_face(decomp, problem)), matrix_(a.matrix),
      diagonal_(to_device(a.diagonal, "sparse::diagonal")), field_(mesh::make_field(decomp, 1, "sparse::halo_vector")),
      exchange_(decomp, 1) {}

void PoissonOperator::apply(const Vector& x, const Vector& y) {
  const mesh::Field f = field_;
  const long nx = decomp_.local_cells(0), ny = decomp_.local_cells(1);
  const int hx = decomp_.halo(0), hy = decomp_.halo(1), hz = decomp_.halo(2);
  parallel::for_each(
      "sparse::to_halo_vector", parallel::Cells{{0, 0, 0}, {decomp_.local_cells(2), ny, nx}},
      KOKKOS_LAMBDA(const long k, const long j, const long i) { f(0, k + hz, j + hy, i + hx) = x((k * ny + j) * nx + i); });
  exchange_.exchange(f);
  matrix_.multiply(Vector(f.data(), f.size()), y);
}

}  // namespace meridian::sparse
