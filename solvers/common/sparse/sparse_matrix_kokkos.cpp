// Host backend of SparseMatrix: a Kokkos kernel, a row per iteration.
#include "solvers/common/sparse/sparse_matrix.hpp"

#include "parallel/launch_counts.hpp"
#include "parallel/launch_policy.hpp"

namespace meridian::sparse {

struct SparseMatrix::Backend {};

void SparseMatrix::make_backend() {}

void SparseMatrix::multiply(const Vector& x, const Vector& y) const {
  parallel::count_library_call();  // cuSPARSE's SpMV on a device build; here also counted as the kernel it is
  const Rows a = row_view();
  const Kokkos::View<const double*> operand = x;
  Kokkos::parallel_for(
      "sparse::multiply", parallel::FlatPolicy(0, rows_), KOKKOS_LAMBDA(const int r) { y(r) = a.product(r, operand); });
}

}  // namespace meridian::sparse
