// cuSPARSE backend pieces. No Kokkos here: the caller passes device pointers and its stream.
#include <cuda_runtime.h>
#include <cusparse.h>

#include "solvers/common/cuda_checks.hpp"
#include "solvers/common/sparse/cusparse_csr.hpp"

namespace meridian::sparse::cuda {

using cuda_checks::check;

CusparseCsr::CusparseCsr(int rows, int columns, int nonzeros, const int* offsets, const int* column_indices,
                         const double* values, void* stream) {
  cusparseHandle_t handle;
  check(cusparseCreate(&handle), "create");
  handle_ = handle;
  check(cusparseSetStream(handle, static_cast<cudaStream_t>(stream)), "set stream");
  cusparseSpMatDescr_t matrix;
  check(cusparseCreateCsr(&matrix, rows, columns, nonzeros, const_cast<int*>(offsets), const_cast<int*>(column_indices),
                          const_cast<double*>(values), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                          CUDA_R_64F),
        "create CSR");
  matrix_ = matrix;
  rows_ = rows, columns_ = columns;
}

// cuSPARSE refuses a dense vector without values (parameter 3: NULL pointer, as CUDA 12 tightened it), so the
// descriptors and the work buffer sized from them are made with the first product's vectors.
void CusparseCsr::describe_vectors(const double* x, double* y) const {
  cusparseDnVecDescr_t xv, yv;
  check(cusparseCreateDnVec(&xv, columns_, const_cast<double*>(x), CUDA_R_64F), "create x");
  check(cusparseCreateDnVec(&yv, rows_, y, CUDA_R_64F), "create y");
  x_ = xv, y_ = yv;
  const double one = 1, zero = 0;
  std::size_t bytes = 0;
  check(cusparseSpMV_bufferSize(static_cast<cusparseHandle_t>(handle_), CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                static_cast<cusparseSpMatDescr_t>(matrix_), xv, &zero, yv, CUDA_R_64F,
                                CUSPARSE_SPMV_CSR_ALG2, &bytes),
        "SpMV buffer size");
  check(cudaMalloc(&buffer_, bytes > 0 ? bytes : 1), "allocate SpMV buffer");
}

CusparseCsr::~CusparseCsr() {
  if (x_) cusparseDestroyDnVec(static_cast<cusparseDnVecDescr_t>(x_));
  if (y_) cusparseDestroyDnVec(static_cast<cusparseDnVecDescr_t>(y_));
  cusparseDestroySpMat(static_cast<cusparseSpMatDescr_t>(matrix_));
  cusparseDestroy(static_cast<cusparseHandle_t>(handle_));
  if (buffer_) cudaFree(buffer_);
}

void CusparseCsr::multiply(const double* x, double* y) const {
  if (!x_) describe_vectors(x, y);
  const auto xv = static_cast<cusparseDnVecDescr_t>(x_), yv = static_cast<cusparseDnVecDescr_t>(y_);
  check(cusparseDnVecSetValues(xv, const_cast<double*>(x)), "set x");
  check(cusparseDnVecSetValues(yv, y), "set y");
  const double one = 1, zero = 0;
  // CSR_ALG2 gives the same bits on every run (ALG1 need not), as restarts and tests rely on.
  check(cusparseSpMV(static_cast<cusparseHandle_t>(handle_), CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                     static_cast<cusparseSpMatDescr_t>(matrix_), xv, &zero, yv, CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG2,
                     buffer_),
        "SpMV");
}

}  // namespace meridian::sparse::cuda
