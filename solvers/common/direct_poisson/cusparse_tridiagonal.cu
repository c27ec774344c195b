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

CusparseTridiagonal::CusparseTridiagonal(int n, int batch, const double* lower, const double* diagonal,
                                         const double* upper, void* stream)
    : n_(n), batch_(batch), lower_(lower), diagonal_(diagonal), upper_(upper), stream_(stream) {
  cusparseHandle_t handle;
  check(cusparseCreate(&handle), "create");
  handle_ = handle;
  check(cusparseSetStream(handle, static_cast<cudaStream_t>(stream)), "set stream");
  const std::size_t values = static_cast<std::size_t>(n) * static_cast<std::size_t>(batch);
  check(cudaMalloc(reinterpret_cast<void**>(&copies_), 3 * values * sizeof(double)), "allocate diagonals");
  std::size_t bytes = 0;
  check(cusparseDgtsvInterleavedBatch_bufferSizeExt(handle, cu_thomas, n, copies_, copies_ + values,
                                                    copies_ + 2 * values, copies_, batch, &bytes),
        "gtsvInterleavedBatch buffer size");
  check(cudaMalloc(&buffer_, bytes > 0 ? bytes : 1), "allocate gtsvInterleavedBatch buffer");
}

CusparseTridiagonal::~CusparseTridiagonal() {
  cusparseDestroy(static_cast<cusparseHandle_t>(handle_));
  cudaFree(copies_);
  cudaFree(buffer_);
}

void CusparseTridiagonal::solve(double* x) const {
  const std::size_t values = static_cast<std::size_t>(n_) * static_cast<std::size_t>(batch_);
  const auto stream = static_cast<cudaStream_t>(stream_);
  const double* originals[3] = {lower_, diagonal_, upper_};
  for (int d = 0; d < 3; ++d)
    check(cudaMemcpyAsync(copies_ + d * values, originals[d], values * sizeof(double), cudaMemcpyDeviceToDevice, stream),
          "copy diagonals");
  check(cusparseDgtsvInterleavedBatch(static_cast<cusparseHandle_t>(handle_), cu_thomas, n_, copies_, copies_ + values,
                                      copies_ + 2 * values, x, batch_, buffer_),
        "gtsvInterleavedBatch");
}

}  // namespace meridian::direct_poisson::cuda
