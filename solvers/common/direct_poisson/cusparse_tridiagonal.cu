// cuSPARSE's batched tridiagonal solve. No Kokkos here: the caller passes device pointers and its stream.
#include <cuda_runtime.h>
#include <cusparse.h>

#include "solvers/common/cuda_checks.hpp"
#include "solvers/common/direct_poisson/cusparse_tridiagonal.hpp"

namespace meridian::direct_poisson::cuda {
namespace {

using cuda_checks::check;

// cuThomas: no pivoting, which the operator's diagonally dominant rows (and the singular mode's pinned last
// row) need none of; the other algorithms (LU with pivoting, QR) take more memory and passes.
constexpr int cu_thomas = 0;

}  // namespace

CusparseTridiagonal::CusparseTridiagonal(int n, int batch, double* lower, double* diagonal, double* upper,
                                         void* stream)
    : n_(n), batch_(batch), lower_(lower), diagonal_(diagonal), upper_(upper) {
  cusparseHandle_t handle;
  check(cusparseCreate(&handle), "create");
  handle_ = handle;
  check(cusparseSetStream(handle, static_cast<cudaStream_t>(stream)), "set stream");
  std::size_t bytes = 0;
  check(cusparseDgtsvInterleavedBatch_bufferSizeExt(handle, cu_thomas, n, lower, diagonal, upper, diagonal, batch, &bytes),
        "gtsvInterleavedBatch buffer size");
  check(cudaMalloc(&buffer_, bytes > 0 ? bytes : 1), "allocate gtsvInterleavedBatch buffer");
}

CusparseTridiagonal::~CusparseTridiagonal() {
  cusparseDestroy(static_cast<cusparseHandle_t>(handle_));
  cudaFree(buffer_);
}

void CusparseTridiagonal::solve(double* x) const {
  check(cusparseDgtsvInterleavedBatch(static_cast<cusparseHandle_t>(handle_), cu_thomas, n_, lower_, diagonal_, upper_, x,
                                      batch_, buffer_),
        "gtsvInterleavedBatch");
}

}  // namespace meridian::direct_poisson::cuda
