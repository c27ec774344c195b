// CUDA backend of SparseMatrix: cuSPARSE's generic SpMV on the stream of Kokkos' CUDA execution space.
#include <Kokkos_Core.hpp>

#include "parallel/launch_counts.hpp"
#include "solvers/common/sparse/cusparse_csr.hpp"
#include "solvers/common/sparse/sparse_matrix.hpp"

namespace meridian::sparse {

struct SparseMatrix::Backend {
  cuda::CusparseCsr csr;
};

void SparseMatrix::make_backend() {
  // CusparseCsr owns descriptors and may not move: made in place.
  backend_.reset(new Backend{cuda::CusparseCsr(rows_, column_count_, static_cast<int>(values_.extent(0)), offsets_.data(),
                                               columns_.data(), values_.data(), Kokkos::Cuda().cuda_stream())});
}

void SparseMatrix::multiply(const Vector& x, const Vector& y) const {
  parallel::count_library_call();
  backend_->csr.multiply(x.data(), y.data());
}

}  // namespace meridian::sparse
